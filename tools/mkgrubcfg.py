#!/usr/bin/env python3
"""Write the ISO's grub.cfg: boot quiescent.elf by Multiboot2 with the
kernel command line from configs (CONFIG_CMDLINE is built in) plus ARGS=.
The file is rewritten only when its content changes, so the ISO is only
remade when the command line really changed."""
import argparse
import os

ap = argparse.ArgumentParser()
ap.add_argument("--args", default="")
ap.add_argument("--out", required=True)
ap.add_argument("--module", action="append", default=[])
a = ap.parse_args()

lines = [
    "set timeout=0",
    "set default=0",
    "serial --unit=0 --speed=115200",
    "terminal_input serial console",
    "terminal_output serial console",
    'menuentry "Quiescent" {',
    f"\tmultiboot2 /boot/quiescent.elf {a.args}".rstrip(),
]
for m in a.module:
    lines.append(f"\tmodule2 /boot/{os.path.basename(m)} {os.path.basename(m)}")
lines += ["\tboot", "}"]
text = "\n".join(lines) + "\n"
old = open(a.out).read() if os.path.exists(a.out) else None
if old != text:
    with open(a.out, "w") as f:
        f.write(text)
