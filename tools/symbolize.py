#!/usr/bin/env python3
"""Symbolize a console log: each func+0xoff/0xsize gets its file:line from
the kernel's debug information (tools/qs/symbolize.py, the one symbolizer
the tests, KASAN's reports and the graders use).

  tools/symbolize.py build/test-x/logs/case.log       ELF found from the path
  tools/symbolize.py --elf build/kasan/quiescent.elf < console.txt
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from qs.symbolize import elf_for_log, symbolize  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("log", nargs="?", help="console log (default: standard input)")
    ap.add_argument("--elf", help="the kernel's ELF (default: build/<name>/quiescent.elf of the log's path)")
    a = ap.parse_args()
    elf = a.elf or (elf_for_log(a.log) if a.log else None)
    if not elf:
        ap.error("no ELF: give --elf (the log is not under build/<name>/logs/)")
    text = Path(a.log).read_text(errors="replace") if a.log else sys.stdin.read()
    sys.stdout.write(symbolize(text, elf))


if __name__ == "__main__":
    main()
