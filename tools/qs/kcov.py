"""KCOV's coverage read back against the kernel image (docs/kcov.md).

A kernel built with CONFIG_KCOV calls __sanitizer_cov_trace_pc() at the
start of each basic block; a block is named by that call's return address.
PCs reach the host in three forms, all read by pcs_from_text():

  - `kcov: pc <hex>` lines (kcovtest dump, a fuzzer's dump) or a file of
    bare hex addresses, one a line: exact return addresses;
  - kcov.all=1's power-off dump, `kcov: all: base <hex> granule 4` and
    `kcov: map <word> <bits>` lines: each PC rounded down to 4 bytes
    (kernel/kcov/kcov.c), so it lies 0 to 3 bytes before the return
    address, inside the 5-byte call.

Image(elf) finds every block of an image (objdump: each call to the hook)
and the function and source file it belongs to (nm, addr2line: binutils,
nothing else). coverage() turns PCs into the blocks and functions they
reached; table() prints per-file counts and percentages for the areas a
fuzzer is meant to reach (AREAS). Blocks are keyed by (file, function,
line), so coverage from several builds (make coverage boots several
configurations) adds up although their addresses differ.
"""
import bisect
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from qs import REPO

AREAS = ("kernel/fs", "kernel/proc", "kernel/ipc", "kernel/net", "kernel/module")
HOOK = "__sanitizer_cov_trace_pc"
GRANULE_SLACK = 3          # a kcov.all PC is up to 3 bytes before its block's address

_PC = re.compile(r"kcov: pc (?:0x)?([0-9a-f]+)\s*$")
_BARE = re.compile(r"^\s*(?:0x)?([0-9a-f]{8,16})\s*$")
_BASE = re.compile(r"kcov: all: base ([0-9a-f]+) granule (\d+)\s*$")
_MAP = re.compile(r"kcov: map ([0-9a-f]+) ([0-9a-f]+)\s*$")
_END = re.compile(r"kcov: all: end, (\d+) words, (\d+) PCs")
_CALL = re.compile(r"^\s*([0-9a-f]+):\s+((?:[0-9a-f]{2} )+)\s*call\s+[0-9a-f]+ <" + HOOK + r">")


@dataclass
class Pcs:
    exact: set = field(default_factory=set)      # return addresses
    rounded: set = field(default_factory=set)    # kcov.all's, GRANULE_SLACK before them
    dumps: int = 0                               # kcov.all dumps that ended (their end line)

    def __len__(self):
        return len(self.exact) + len(self.rounded)


def pcs_from_text(text):
    """The PCs of a console log or a file of addresses (Pcs)."""
    out = Pcs()
    base = granule = None
    for line in text.splitlines():
        line = line.rstrip("\r")
        m = _MAP.search(line)
        if m and base is not None:
            word, bits = int(m.group(1), 16), int(m.group(2), 16)
            while bits:
                b = (bits & -bits).bit_length() - 1
                out.rounded.add(base + (64 * word + b) * granule)
                bits &= bits - 1
            continue
        m = _BASE.search(line)
        if m:
            base, granule = int(m.group(1), 16), int(m.group(2))
            continue
        if _END.search(line):
            out.dumps += 1
            continue
        m = _PC.search(line) or _BARE.match(line)
        if m:
            out.exact.add(int(m.group(1), 16))
    return out


def _run(cmd, stdin=None):
    return subprocess.run(cmd, input=stdin, capture_output=True, text=True, check=True).stdout


def _addr2line(elf, addrs):
    """[(file, line)] for each address, the tree-relative file ('?' unknown)."""
    if not addrs:
        return []
    out = _run(["addr2line", "-e", str(elf)], "\n".join(f"{a:x}" for a in addrs) + "\n")
    res = []
    for line in out.splitlines():
        path, _, num = line.rpartition(":")
        num = num.split()[0] if num.split() else "0"
        path = path[2:] if path.startswith("./") else path
        res.append((path, int(num) if num.isdigit() else 0))
    return res


class Image:
    """The blocks and functions of one kernel image."""

    def __init__(self, elf):
        self.elf = Path(elf)
        self.funcs = []             # (start, end, name), sorted
        for line in _run(["nm", "-n", "-S", "--defined-only", str(self.elf)]).splitlines():
            p = line.split()
            if len(p) == 4 and p[2] in "tTwW":
                start = int(p[0], 16)
                self.funcs.append((start, start + int(p[1], 16), p[3]))
        self.starts = [f[0] for f in self.funcs]
        files = _addr2line(self.elf, self.starts)
        self.func_file = {f[0]: files[i][0] for i, f in enumerate(self.funcs)}
        sites = []
        for line in _run(["objdump", "-d", str(self.elf)]).splitlines():
            m = _CALL.match(line)
            if m:
                sites.append(int(m.group(1), 16) + len(m.group(2).split()))
        self.sites = sorted(set(sites))      # return addresses: a block each
        lines = _addr2line(self.elf, [s - 1 for s in self.sites])
        # site -> (file, function, line, n): the n-th block of that line in
        # that function, in address order (one line may hold several).
        self.block = {}
        seen = {}
        for s, (_, num) in zip(self.sites, lines):
            f = self.func_of(s - 1)
            if f:
                key = (self.func_file[f[0]], f[2], num)
                seen[key] = seen.get(key, -1) + 1
                self.block[s] = key + (seen[key],)

    def func_of(self, addr):
        i = bisect.bisect_right(self.starts, addr) - 1
        if i >= 0 and self.funcs[i][0] <= addr < max(self.funcs[i][1], self.funcs[i][0] + 1):
            return self.funcs[i]
        return None

    def hit(self, pcs):
        """The blocks (site addresses) pcs reached."""
        got = {p for p in pcs.exact if p in self.block}
        for p in pcs.rounded:
            i = bisect.bisect_left(self.sites, p)
            if i < len(self.sites) and self.sites[i] - p <= GRANULE_SLACK:
                got.add(self.sites[i])
        return got

    def all_blocks(self):
        return set(self.block.values())


@dataclass
class Coverage:
    blocks: set = field(default_factory=set)     # (file, function, line, n) of every block
    reached: set = field(default_factory=set)    # those reached

    def add(self, image, pcs):
        self.blocks |= image.all_blocks()
        self.reached |= {image.block[s] for s in image.hit(pcs)}


# The kernel's own tests and benchmarks (ktest=...): no system call reaches
# them, so a fuzzer's report may leave them out (--exclude-tests).
TEST_FILE = re.compile(r"(_test|_bench|_stress)\.c$")


def in_areas(path, areas=AREAS, exclude_tests=False):
    if exclude_tests and TEST_FILE.search(path):
        return False
    return any(path == a or path.startswith(a + "/") for a in areas)


def rows(cov, areas=AREAS, exclude_tests=False):
    """Per file: (file, functions reached, functions, blocks reached, blocks,
    the functions never reached)."""
    per = {}
    for b in cov.blocks:
        if in_areas(b[0], areas, exclude_tests):
            per.setdefault(b[0], {}).setdefault(b[1], [0, 0])[1] += 1
    for b in cov.reached:
        if b in cov.blocks and in_areas(b[0], areas, exclude_tests):
            per[b[0]][b[1]][0] += 1
    out = []
    for path in sorted(per):
        fn = per[path]
        out.append((path, sum(1 for v in fn.values() if v[0]), len(fn),
                    sum(v[0] for v in fn.values()), sum(v[1] for v in fn.values()),
                    sorted(n for n, v in fn.items() if not v[0])))
    return out


def _pct(a, b):
    return f"{100.0 * a / b:5.1f}%" if b else "   - "


def table(cov, areas=AREAS, unreached=False, exclude_tests=False):
    """The report: a line per file, a total per area, the grand total; with
    unreached, the functions no PC reached under each file."""
    rs = rows(cov, areas, exclude_tests)
    width = max([len(r[0]) for r in rs] + [24])
    head = f"{'file':<{width}}  {'functions':>13} {'':>6}  {'blocks':>13} {'':>6}"
    lines = [head, "-" * len(head)]

    def line(name, fr, ft, br, bt):
        return (f"{name:<{width}}  {fr:>6}/{ft:<6} {_pct(fr, ft)}  {br:>6}/{bt:<6} {_pct(br, bt)}")
    total = [0, 0, 0, 0]
    for area in areas:
        sub = [r for r in rs if in_areas(r[0], (area,))]
        if not sub:
            continue
        at = [sum(r[i] for r in sub) for i in (1, 2, 3, 4)]
        for r in sub:
            lines.append(line(r[0], *r[1:5]))
            if unreached and r[5]:
                lines.append("    never reached: " + ", ".join(r[5]))
        lines.append(line(f"{area}/ (all)", *at))
        lines.append("")
        total = [t + a for t, a in zip(total, at)]
    lines.append(line("total", *total))
    return "\n".join(lines)


def summary(cov, areas=AREAS, exclude_tests=False):
    """One line per area: functions and blocks reached, in percent."""
    rs = rows(cov, areas, exclude_tests)
    out = []
    for area in areas + ("total",):
        sub = rs if area == "total" else [r for r in rs if in_areas(r[0], (area,))]
        fr, ft, br, bt = (sum(r[i] for r in sub) for i in (1, 2, 3, 4))
        out.append(f"{area}: functions {fr}/{ft} ({_pct(fr, ft).strip()}), "
                   f"blocks {br}/{bt} ({_pct(br, bt).strip()})")
    return out


def elf_of(build_name):
    return REPO / "build" / build_name / "quiescent.elf"
