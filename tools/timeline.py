#!/usr/bin/env python3
"""timeline.py check|json|png|all|run: the grace-period timeline of a traced
console log, and the checker that proves no grace period ended under a
reader (docs/rcu/timeline.md; make trace runs it). The parser, checker and
drawing are tools/qs/timeline.py."""
import sys

from qs.timeline import main

if __name__ == "__main__":
    sys.exit(main())
