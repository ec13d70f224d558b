"""The one fault-injection seam (include/fault_inject.h): every point in
include/fault_points.h is used exactly once in the kernel, through
fault_inject(), and has a row in docs/fault-injection.md; no production
file keeps a test-only function pointer of its own instead. No QEMU."""
import re

from qs import REPO

POINTS_H = REPO / "include" / "fault_points.h"
DOC = REPO / "docs" / "fault-injection.md"
RE_POINT = re.compile(r"^\s*X\((\w+),", re.M)
RE_USE = re.compile(r"\bfault_inject\((\w+),")
# A global function pointer defined at file scope ("void (*name)(...);"):
# the shape the old test hooks had. Those listed are not test hooks.
RE_FNPTR = re.compile(r"^[a-z][\w\s\*]*\(\*(\w+)\)\([^)]*\);", re.M)
NOT_TEST_HOOKS = {
    "might_sleep_extra_check",   # RCU's read-side check, installed by update.c at boot
}


def points():
    return RE_POINT.findall(POINTS_H.read_text())


def kernel_sources():
    for p in sorted((REPO / "kernel").rglob("*.[ch]")):
        yield p, p.read_text(errors="replace")


def uses(sources):
    found = {}
    for p, text in sources:
        for name in RE_USE.findall(text):
            found.setdefault(name, []).append(p.relative_to(REPO).as_posix())
    return found


def check(names, found, doc_text):
    problems = []
    for n in names:
        where = found.get(n, [])
        if len(where) != 1:
            problems.append(f"{n}: used {len(where)} times ({', '.join(where) or 'nowhere'}), want once")
        if not re.search(r"^\| `%s` \|" % re.escape(n), doc_text, re.M):
            problems.append(f"{n}: no row in docs/fault-injection.md")
    for n, where in found.items():
        if n not in names:
            problems.append(f"{n}: used in {', '.join(where)} but not in include/fault_points.h")
    return problems


def test_every_point_used_once_and_documented():
    names = points()
    assert len(names) >= 6 and len(set(names)) == len(names), names
    assert check(names, uses(kernel_sources()), DOC.read_text()) == []


def test_no_test_only_function_pointers_left():
    hooks = []
    for p, text in kernel_sources():
        if p.name.endswith("_test.c") or p.parent.name == "test":
            continue
        for name in RE_FNPTR.findall(text):
            if name not in NOT_TEST_HOOKS:
                hooks.append(f"{p.relative_to(REPO)}: {name}")
    assert hooks == [], "a function pointer on a production path; use fault_inject() instead"


def test_check_catches_planted_mistakes():
    doc = "| `a` | x | y |\n| `b` | x | y |\n"
    found = {"a": ["kernel/x.c"], "b": ["kernel/y.c", "kernel/z.c"], "c": ["kernel/w.c"]}
    problems = check(["a", "b", "d"], found, doc)
    assert any(p.startswith("b: used 2 times") for p in problems)
    assert any(p.startswith("d: used 0 times") for p in problems)
    assert any(p.startswith("d: no row") for p in problems)
    assert any(p.startswith("c: used in") for p in problems)
    assert RE_FNPTR.findall("void (*dcache_stress_window)(void);\n") == ["dcache_stress_window"]
