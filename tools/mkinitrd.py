#!/usr/bin/env python3
"""Pack files into a "newc" cpio archive, the initrd that the kernel reads
(kernel/user/initrd.c). Each FILE goes in as bin/<its base name>.

    mkinitrd.py -o build/initrd.cpio build/user/bin/sh build/user/bin/init ...

The archive is written only when its content changes (so make does not
remake the ISO for nothing). No dependency beyond Python."""
import argparse
import os


def entry(name, data, ino, mode):
    name_b = name.encode() + b"\0"
    fields = [ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(name_b), 0]
    hdr = b"070701" + b"".join(b"%08x" % f for f in fields)
    out = hdr + name_b
    out += b"\0" * (-len(out) % 4)
    out += data
    out += b"\0" * (-len(out) % 4)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-o", "--out", required=True)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    blob = entry("bin", b"", 1, 0o040755)
    for i, f in enumerate(sorted(a.files), 2):
        with open(f, "rb") as fh:
            blob += entry("bin/" + os.path.basename(f), fh.read(), i, 0o100755)
    blob += entry("TRAILER!!!", b"", 0, 0)
    blob += b"\0" * (-len(blob) % 512)
    old = open(a.out, "rb").read() if os.path.exists(a.out) else None
    if old != blob:
        with open(a.out, "wb") as fh:
            fh.write(blob)


if __name__ == "__main__":
    main()
