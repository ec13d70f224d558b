#!/usr/bin/env python3
"""amlat.py: seed 003 Table 1: realtime scheduling latency under an RCU callback
flood, for each realtime option (make figures' realtime section).
The code is tools/qs/amlat.py, which make figures reuses; --help lists the
options."""
from qs.amlat import main

if __name__ == "__main__":
    main()
