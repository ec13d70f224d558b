#!/usr/bin/env python3
"""compare.py: make compare: every RCU variant side by side (grace-period latency,
read-side cost, update overhead) in one table and plot.
The code is tools/qs/compare.py, which make figures reuses; --help lists the
options."""
from qs.compare import main

if __name__ == "__main__":
    main()
