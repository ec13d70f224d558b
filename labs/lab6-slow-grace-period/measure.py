#!/usr/bin/env python3
"""Lab 6's measurement (labs/lab6-slow-grace-period/grade.toml): what the
grader reads off its own traced boot, the way the handout asks a student
to read it off theirs. It prints one line,

  lab6-measured: gp=<seq> cpu=<n> ms=<duration> cause=<preempt|bh|irq>

for the slowest complete grace period in the recording:
  cpu    the CPU whose quiescent state for it came last (the one that held
         it up: the grace period ended when that CPU's `qs` arrived);
  ms     its length, gp_start to gp_end: the width of its band. On a
         loaded host QEMU itself stops now and then (every row of the
         timeline goes blank at once) and one CPU's thread can be starved
         alone; that time is in the band too, so the grader allows a wide
         margin;
  cause  what that CPU could not do while it held the grace period up,
         found in its longest stretch without a context switch inside the
         grace period: fewer than a quarter of the ticks the other CPUs
         took meanwhile means interrupts were off (irq); ticks, but fewer
         than a quarter as many softirqs or tasklets, means softirqs were
         off (bh); both going on means only the scheduler was kept away
         (preempt). Counting against the other CPUs, not the clock, keeps
         a host stall (every CPU's ticks stop at once) from reading as
         interrupts off.

A second line,

  lab6-misread: median_ms=<duration> s=<seconds>

holds what the grader's hints recognise in a wrong answer (grade.toml's
[[answer_hint]]s, labs/instructor/lab6/mistakes/): the median grace
period (the typical one, not the slowest) and the slowest one's length in
seconds (the unit the console prints, not the one asked for).

Running it on your own log hands you the graded answers; the handout's
written questions ask for the events that show each one, which this
script does not give.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from qs.timeline import Trace, grace_periods  # noqa: E402


def count(evs, names, cpu, a, b):
    return sum(1 for ev in evs if ev.cpu == cpu and ev.name in names and a < ev.tsc < b)


def measure(tr):
    lo, hi = tr.window
    gps = [(e - s, seq, s, e)
           for seq, (s, e, _, _) in grace_periods(tr).items()
           if s is not None and e is not None and lo <= s and e <= hi]
    if not gps:
        raise ValueError("no complete grace period in the recording")
    dur, seq, s, e = max(gps)
    qs = [ev for ev in tr.events if ev.name == "qs" and ev.a == seq and s <= ev.tsc <= e]
    if not qs:
        raise ValueError("grace period %d has no quiescent state recorded (trace=rcu?)" % seq)
    cpu = max(qs, key=lambda ev: ev.tsc).b
    # The stretch without a context switch on that CPU, inside the grace period.
    sw = [ev.tsc for ev in tr.events if ev.cpu == cpu and ev.name == "switch" and s <= ev.tsc <= e]
    pts = [s] + sw + [e]
    a, b = max(zip(pts, pts[1:]), key=lambda p: p[1] - p[0])
    # Compared with the other CPUs' ticks meanwhile, not with the clock:
    # a host stall stops every CPU's ticks at once, interrupts off only one's.
    others = sorted(count(tr.events, ("tick",), c, a, b) for c in range(tr.cpus) if c != cpu)
    ticks = count(tr.events, ("tick",), cpu, a, b)
    soft = count(tr.events, ("softirq_entry", "tasklet_entry"), cpu, a, b)
    if not others or others[len(others) // 2] < 4:
        raise ValueError("too few ticks on the other CPUs to judge cpu%d by" % cpu)
    if ticks < others[len(others) // 2] / 4:
        cause = "irq"
    elif soft < ticks / 4:
        cause = "bh"
    else:
        cause = "preempt"
    return seq, cpu, dur * 1.0 / tr.khz, cause


def misread(tr, ms):
    """(the median grace period in ms, ms in seconds)."""
    durs = sorted(e - s for s, e, _, _ in grace_periods(tr).values()
                  if s is not None and e is not None)
    return durs[len(durs) // 2] * 1.0 / tr.khz, ms / 1000


def main(argv):
    if len(argv) != 1:
        print("usage: measure.py LOG", file=sys.stderr)
        return 2
    try:
        tr = Trace(Path(argv[0]).read_text(errors="replace"))
        seq, cpu, ms, cause = measure(tr)
    except (OSError, ValueError) as e:
        print("measure.py: %s" % e, file=sys.stderr)
        return 1
    print("lab6-measured: gp=%d cpu=%d ms=%.1f cause=%s" % (seq, cpu, ms, cause))
    print("lab6-misread: median_ms=%.1f s=%.3f" % misread(tr, ms))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
