#!/usr/bin/env python3
"""semopbench.py: seed 004 Table 5: semop() round trips with ipc=global against ipc=rcu
(make figures' ipc section).
The code is tools/qs/semopbench.py, which make figures reuses; --help lists the
options."""
from qs.semopbench import main

if __name__ == "__main__":
    main()
