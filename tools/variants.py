#!/usr/bin/env python3
"""variants.py: the RCU variants, kernel/rcu/Kconfig's choice: their names,
or (--make) the line of each one's own file that kernel/rcu/variants.mk
includes. The code is tools/qs/variants.py."""
from qs.variants import main

if __name__ == "__main__":
    main()
