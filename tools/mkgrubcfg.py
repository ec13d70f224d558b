#!/usr/bin/env python3
"""Write the ISO's grub.cfg: boot quiescent.elf by Multiboot2 with the
kernel command line from configs (CONFIG_CMDLINE is built in) plus ARGS=.
The file is rewritten only when its content changes, so the ISO is only
remade when the command line really changed."""
import argparse
import os
import re

ap = argparse.ArgumentParser()
ap.add_argument("--args", default="")
ap.add_argument("--out", required=True)
ap.add_argument("--module", action="append", default=[])
a = ap.parse_args()


def quote(args):
    """args for GRUB's script syntax, word by word: a word with a character
    GRUB would interpret (';', quotes, '$', ...) goes in single quotes.
    Not the whole line as one word: GRUB would pass it on in double quotes."""
    def word(w):
        if re.fullmatch(r"[A-Za-z0-9_.,:=/+@%-]+", w):
            return w
        return "'" + w.replace("'", "'\\''") + "'"
    return " ".join(word(w) for w in args.split())


lines = [
    "set timeout=0",
    "set default=0",
    "serial --unit=0 --speed=115200",
    "terminal_input serial console",
    "terminal_output serial console",
    'menuentry "Quiescent" {',
    # Single quotes: GRUB's script syntax gives ';' and friends a meaning,
    # and the text after " -- " (a shell script for init) may have them.
    f"\tmultiboot2 /boot/quiescent.elf {quote(a.args)}".rstrip(),
]
for m in a.module:
    lines.append(f"\tmodule2 /boot/{os.path.basename(m)} {os.path.basename(m)}")
lines += ["\tboot", "}"]
text = "\n".join(lines) + "\n"
old = open(a.out).read() if os.path.exists(a.out) else None
if old != text:
    with open(a.out, "w") as f:
        f.write(text)
