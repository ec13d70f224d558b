#!/usr/bin/env python3
"""Pack files into a "newc" cpio archive, the initrd that the kernel reads
(kernel/proc/initrd.c). Each FILE goes in as bin/<its base name>.

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
    ap.add_argument("--file", action="append", default=[], metavar="DEST=SRC",
                    help="add SRC as DEST (read-only data, mode 0644)")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    members = {"bin/" + os.path.basename(f): (f, 0o100755) for f in a.files}
    for spec in a.file:
        dest, sep, src = spec.partition("=")
        dest = dest.strip("/")
        if not sep or not dest or not src:
            ap.error(f"--file {spec!r}: expected DEST=SRC")
        members[dest] = (src, 0o100644)
    dirs = {"/".join(d.split("/")[:i]) for d in members for i in range(1, d.count("/") + 1)}
    blob, ino = b"", 1
    for d in sorted(dirs):
        blob += entry(d, b"", ino, 0o040755)
        ino += 1
    for dest in sorted(members):
        src, mode = members[dest]
        with open(src, "rb") as fh:
            blob += entry(dest, fh.read(), ino, mode)
        ino += 1
    blob += entry("TRAILER!!!", b"", 0, 0)
    blob += b"\0" * (-len(blob) % 512)
    old = open(a.out, "rb").read() if os.path.exists(a.out) else None
    if old != blob:
        with open(a.out, "wb") as fh:
            fh.write(blob)


if __name__ == "__main__":
    main()
