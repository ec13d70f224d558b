#!/usr/bin/env python3
"""soak.py: make soak: rcutorture on every RCU variant, long enough to
matter. The code is tools/qs/soak.py; --help lists the options."""
import sys

from qs.soak import main

if __name__ == "__main__":
    sys.exit(main())
