#!/usr/bin/env python3
"""dcachefigs.py: seed 004 Table 3 (dcachebench per variant) and seed 000\nFigures 9-10 (call_rcu() latency under a dbench load): make figures' dcache section.
The code is tools/qs/dcachefigs.py, which make figures reuses; --help lists the
options."""
from qs.dcachefigs import main

if __name__ == "__main__":
    main()
