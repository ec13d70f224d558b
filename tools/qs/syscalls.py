"""The kernel's system-call table, read from the sources, and the check
that a fuzzer's description table covers it (issue: every call described).

The kernel has no central list: each call registers itself where it is
defined, `SYSCALL_DEFINE(SYS_name, fn)` (include/syscall.h), and its
number is a `#define SYS_name N` in include/uapi/. The fuzzer's table,
user/bin/fuzz/calls.h, has one `CALL(SYS_name, result, flags, kinds...)`
entry per call. check() lists what does not match: a registered call with
no description (a new call the fuzzer would never make), a description of
no call (a stale entry), a call described twice, a registration without a
number or a number used twice.
"""
import re
from pathlib import Path

from qs import REPO

DESCRIPTIONS = Path("user/bin/fuzz/calls.h")

_DEFINE = re.compile(r"^\s*SYSCALL_DEFINE\(\s*(SYS_\w+)\s*,\s*(\w+)\s*\)", re.M)
_NUMBER = re.compile(r"^#define\s+(SYS_\w+)\s+(\d+)\b", re.M)
_CALL = re.compile(r"\bCALL\(\s*(SYS_\w+)\s*,")


def registered(repo=REPO):
    """{SYS_name: [(file, handler), ...]} from every SYSCALL_DEFINE under kernel/."""
    calls = {}
    for path in sorted((repo / "kernel").rglob("*.c")):
        for m in _DEFINE.finditer(path.read_text(errors="replace")):
            calls.setdefault(m.group(1), []).append((str(path.relative_to(repo)), m.group(2)))
    return calls


def numbers(repo=REPO):
    """{SYS_name: [number, ...]} from include/uapi/*.h."""
    nums = {}
    for path in sorted((repo / "include" / "uapi").glob("*.h")):
        for m in _NUMBER.finditer(path.read_text(errors="replace")):
            nums.setdefault(m.group(1), []).append(int(m.group(2)))
    return nums


def described(path):
    """The SYS_ names of a description table, in order, repeats kept. A
    comment that shows the entry form (CALL(SYS_name, ...)) is not an entry."""
    text = Path(path).read_text(errors="replace")
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return [m.group(1) for m in _CALL.finditer(text) if m.group(1) != "SYS_name"]


def check_table(repo=REPO):
    """Problems of the kernel's own table: registered without a number, a
    number given twice, two calls on one number, a call registered twice."""
    regs, nums = registered(repo), numbers(repo)
    problems = []
    for name, where in sorted(regs.items()):
        if name not in nums:
            problems.append(f"{name} ({where[0][0]}) has no number in include/uapi")
        if len(where) > 1:
            problems.append(f"{name} is registered {len(where)} times: {where}")
    by_number = {}
    for name, ns in nums.items():
        if len(set(ns)) > 1:
            problems.append(f"{name} has several numbers: {ns}")
        if name in regs:
            by_number.setdefault(ns[0], []).append(name)
    for n, names in sorted(by_number.items()):
        if len(names) > 1:
            problems.append(f"number {n} is shared by {', '.join(sorted(names))}")
    return problems


def check_descriptions(table, repo=REPO):
    """Problems of a description table against the kernel's calls."""
    regs = registered(repo)
    names = described(table)
    problems = [f"{n}: registered in {regs[n][0][0]} ({regs[n][0][1]}) but not described "
                f"in {table}: add a CALL({n}, ...) entry" for n in sorted(set(regs) - set(names))]
    problems += [f"{n}: described in {table} but no kernel file registers it"
                 for n in sorted(set(names) - set(regs))]
    problems += [f"{n}: described {names.count(n)} times" for n in sorted(set(names))
                 if names.count(n) > 1]
    return problems
