#!/usr/bin/env python3
"""rtbench.py: route lookups per second, the route cache's designs side by side
(rcu, rwlock, off; make figures' route section).
The code is tools/qs/rtbench.py, which make figures reuses; --help lists the
options."""
from qs.rtbench import main

if __name__ == "__main__":
    main()
