"""A console judged whole: the lines that say the kernel went wrong.

A case can pass its own checks (KTAP ok, SUCCESS, the exit code) while its
console says something went wrong beside them: a WARNING from a context
check, a BUG: line from a variant used where it is unsafe, a stall
warning. As Linux's torture scripts do (parse-console.sh), every line
matching CONSOLE_PROBLEM fails the case unless the case names it as
expected (a scenario's `expect_console`, a list of regexes searched in the
line; docs/testing.md). A pattern allows its lines, it does not demand
them: a case that must see a line says so in `log`.

What the kernel prints, and where:

  WARNING:            WARN_ON() (kernel/core/panic.c), might_sleep(),
                      a mutex released by another task, pr_warn()
  BUG                 "BUG: scheduling while atomic", a variant's
                      "BUG: call_rcu(...) from hard-IRQ context", the
                      NMI-handler checks; BUG()/BUG_ON() panic with it
  Call Trace:         after any of them and every panic (traps.c)
  panic               "Kernel panic on CPU n", "CPU n stopping: panic on
                      CPU m", "recursive panic" (panic.c, nmi.c)
  INFO: ... detected stall
                      an RCU stall warning (kernel/rcu/stall.c)

    from qs.judge import unexpected_lines
    for n, line in unexpected_lines(log_text, ["WARNING: .*softirq"]):
        print(f"line {n}: {line}")

A case that expects a panic need not name the panic's own lines
(KIND_EXPECTED); anything else it prints, a WARNING before the panic
included, it must.
"""
import re

from qs import ktap

CONSOLE_PROBLEM = re.compile(r"WARNING:|\bBUG\b|Call Trace:|\bpanic\b|INFO: .*detected stall")
# Not reports themselves: a backtrace's frames ("[<ffff...>] panic+0x40/0x90";
# the "Call Trace:" above them is the report) and a test's own KTAP
# diagnostics ("    # this must panic"), which are its words, not the kernel's.
NOT_A_REPORT = re.compile(r"^(?:\[\s*\d+\.\d+\] cpu\d+: )?\s*(?:\[<[0-9a-fA-F]+>\]|# )")


# What a case of each kind may print without naming it: a case expected
# to panic (expect = "panic") prints the panic, its Call Trace and the
# other CPUs stopping. Its `trace` and `log` keys say which panic it must be.
KIND_EXPECTED = {
    "panic": [r"Kernel panic on CPU \d+: ", r"^(\[\s*\d+\.\d+\] cpu\d+: )?Call Trace:$",
              r"CPU \d+ stopping: panic on CPU \d+"],
}


def kind_expected(expect):
    """The patterns a case expecting `expect` (pass, fail, panic, poweroff)
    allows without naming them."""
    return list(KIND_EXPECTED.get(expect, ()))


def compile_expected(expected):
    """The case's patterns, compiled (a ValueError names a bad one)."""
    out = []
    for p in expected or ():
        try:
            out.append(re.compile(p))
        except re.error as e:
            raise ValueError(f"bad expect_console regex {p!r}: {e}") from None
    return out


def unexpected_lines(text, expected=()):
    """[(line number, line)] for each console line that reports a problem
    (CONSOLE_PROBLEM) and that no expected pattern matches (re.search).
    Line numbers count from 1 in the log as written."""
    pats = compile_expected(expected)
    out = []
    for n, line in enumerate(ktap.clean(text).split("\n"), 1):
        line = line.rstrip()
        if not CONSOLE_PROBLEM.search(line) or NOT_A_REPORT.match(line):
            continue
        if not any(p.search(line) for p in pats):
            out.append((n, line))
    return out


def console_problems(text, expected=(), limit=5):
    """unexpected_lines() as the reasons a runner prints: one per line, the
    first `limit` of them, then how many more."""
    bad = unexpected_lines(text, expected)
    why = [f"console line {n}: unexpected {line.strip()[:160]!r}" for n, line in bad[:limit]]
    if len(bad) > limit:
        why.append(f"console: {len(bad) - limit} more unexpected WARNING/BUG/Call Trace/"
                   f"panic/stall lines")
    return why
