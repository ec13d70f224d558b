#!/usr/bin/env python3
"""chatbench.py: seed 000 Figure 11, the chat benchmark over UDP on lo, per variant\nand per files= mode (make chatbench; make figures' chat section).
The code is tools/qs/chatbench.py, which make figures reuses; --help lists the
options."""
from qs.chatbench import main

if __name__ == "__main__":
    main()
