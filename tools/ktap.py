#!/usr/bin/env python3
"""ktap.py LOGFILE: print the KTAP results in a console log; exit 0 if all
passed. The parser is tools/qs/ktap.py."""
import sys

from qs.ktap import main

if __name__ == "__main__":
    sys.exit(main(sys.argv))
