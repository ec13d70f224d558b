#!/usr/bin/env python3
"""Lab 6's measurement (labs/lab6-slow-grace-period/grade.toml): what the
grader reads off its own traced boot, the way the handout asks a student
to read it off theirs. It prints one line,

  lab6-measured: gp=<seq> cpu=<n> ms=<duration> cause=<preempt|bh|irq>

for the slowest complete grace period in the recording:
  cpu    the CPU whose quiescent state for it came last (the one that held
         it up: the grace period ended when that CPU's `qs` arrived);
  ms     its length, gp_start to gp_end;
  cause  what that CPU could not do while it held the grace period up,
         found in its longest stretch without a context switch inside the
         grace period: no tick for most of it means interrupts were off
         (irq); ticks but no softirq or tasklet for most of it means
         softirqs were off (bh); both going on means only the scheduler
         was kept away (preempt). "Most": more than half, as a late tick
         under TCG on a loaded host can leave a gap of several periods
         even with interrupts on.

Running it on your own log hands you the graded answers; the handout's
written questions ask for the events that show each one, which this
script does not give.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from trace import Trace, grace_periods  # noqa: E402


def longest_gap(times, lo, hi):
    pts = [lo] + sorted(t for t in times if lo < t < hi) + [hi]
    return max(b - a for a, b in zip(pts, pts[1:]))


def measure(tr):
    lo, hi = tr.window
    gps = [(e - s, seq, s, e) for seq, (s, e, _, _) in grace_periods(tr).items()
           if s is not None and e is not None and lo <= s and e <= hi]
    if not gps:
        raise ValueError("no complete grace period in the recording")
    dur, seq, s, e = max(gps)
    qs = [ev for ev in tr.events if ev.name == "qs" and ev.a == seq and s <= ev.tsc <= e]
    if not qs:
        raise ValueError("grace period %d has no quiescent state recorded (trace=rcu?)" % seq)
    cpu = max(qs, key=lambda ev: ev.tsc).b
    mine = [ev for ev in tr.events if ev.cpu == cpu]
    # The stretch without a context switch on that CPU, inside the grace period.
    sw = [ev.tsc for ev in mine if ev.name == "switch" and s <= ev.tsc <= e]
    pts = [s] + sw + [e]
    a, b = max(zip(pts, pts[1:]), key=lambda p: p[1] - p[0])
    ticks = [ev.tsc for ev in mine if ev.name == "tick"]
    soft = [ev.tsc for ev in mine if ev.name in ("softirq_entry", "tasklet_entry")]
    if not ticks:
        raise ValueError("no ticks recorded on cpu%d (trace=irq?)" % cpu)
    if longest_gap(ticks, a, b) > (b - a) / 2:
        cause = "irq"
    elif longest_gap(soft, a, b) > (b - a) / 2:
        cause = "bh"
    else:
        cause = "preempt"
    return seq, cpu, dur * 1.0 / tr.khz, cause


def main(argv):
    if len(argv) != 1:
        print("usage: measure.py LOG", file=sys.stderr)
        return 2
    try:
        seq, cpu, ms, cause = measure(Trace(Path(argv[0]).read_text(errors="replace")))
    except (OSError, ValueError) as e:
        print("measure.py: %s" % e, file=sys.stderr)
        return 1
    print("lab6-measured: gp=%d cpu=%d ms=%.1f cause=%s" % (seq, cpu, ms, cause))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
