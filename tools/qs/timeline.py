"""Grace-period timelines from a boot log's trace dump (docs/rcu/timeline.md).

The kernel prints its per-CPU trace buffers (kernel/trace/control.c) as

  TRACE-HEADER tsc_khz=<kHz> cpus=<n> entries=<per cpu> mode=<m> mask=<hex>
  TRACE <cpu> <tsc> <event> <a> <b>         (tsc, a, b in hex)
  TRACE-CPU <cpu> records=<n> skipped=<n> dropped=<n>
  TRACE-END records=<n>

  timeline.py check LOG                 verify every grace period; exit 1 on a violation
  timeline.py json LOG -o trace.json    Chrome/Perfetto trace-event JSON
  timeline.py png LOG -o timeline.png   CPUs as rows, grace periods shaded, QS marked
  timeline.py all LOG -d DIR            the three: DIR/{trace.json,timeline.png,verdict.txt}
  timeline.py run --config rcu_poll_defconfig --cpus 4 -d DIR
                                     boot a traced rcutorture run, then `all` (make trace)

The checker proves from the record, not from the kernel's own counters:
  1. every read-side section (torture's reader_enter .. reader_exit) that
     began before a grace period started ended before it completed: no
     grace period lies wholly inside a reader (seed 000 section 2, the
     guarantee every variant's paper states);
  2. no callback ran (cb_invoke) before the grace period it waits for
     (call_rcu's b: the next one to start after it was queued) ended; on
     one CPU, before some grace period ended after it was queued (a
     quiescent state of the only CPU after the call_rcu covers every
     reader: rcu-tiny lets a callback join the grace period in flight);
  3. no callback ran while a reader that was running when it was queued
     was still running (RCU's promise itself, whatever the numbering).
Only what the trace covers is judged: a ring that wrapped lost its oldest
records, one that stopped when full lost its newest, so events are checked
only inside the window every CPU's records cover. Exit status: 0 pass,
1 a violation, 2 nothing to judge (no grace period or no reader inside the
window: a check that saw nothing cannot pass).
"""
import argparse
import bisect
import json
import re
import sys
from pathlib import Path

LINE = re.compile(r"TRACE (\d+) ([0-9a-f]+) (\w+) ([0-9a-f]+) ([0-9a-f]+)\s*$")
HEADER = re.compile(r"TRACE-HEADER tsc_khz=(\d+) cpus=(\d+) entries=(\d+) mode=(\w+)")
CPULINE = re.compile(r"TRACE-CPU (\d+) records=(\d+) skipped=(\d+) dropped=(\d+)")
READ_CTX = {0: "thread", 1: "timer", 2: "irq"}


class Ev:
    __slots__ = ("cpu", "tsc", "name", "a", "b")

    def __init__(self, cpu, tsc, name, a, b):
        self.cpu, self.tsc, self.name, self.a, self.b = cpu, tsc, name, a, b

    def fmt(self, t0, khz):
        return "cpu%-2d %12.3f us  %-14s a=%#x b=%#x" % (
            self.cpu, (self.tsc - t0) * 1000.0 / khz, self.name, self.a, self.b)


class Trace:
    """The last complete dump in a log."""

    def __init__(self, text):
        dumps, cur = [], None
        for line in text.splitlines():
            m = HEADER.search(line)
            if m:
                cur = {"khz": int(m.group(1)), "cpus": int(m.group(2)),
                       "entries": int(m.group(3)), "mode": m.group(4),
                       "events": [], "percpu": {}}
                continue
            if cur is None:
                continue
            m = LINE.search(line)
            if m:
                cur["events"].append(Ev(int(m.group(1)), int(m.group(2), 16), m.group(3),
                                        int(m.group(4), 16), int(m.group(5), 16)))
                continue
            m = CPULINE.search(line)
            if m:
                cur["percpu"][int(m.group(1))] = {"records": int(m.group(2)),
                                                  "skipped": int(m.group(3)),
                                                  "dropped": int(m.group(4))}
            elif "TRACE-END" in line:
                dumps.append(cur)
                cur = None
        if not dumps:
            raise ValueError("no complete trace dump (TRACE-HEADER .. TRACE-END) in the log")
        d = dumps[-1]
        self.khz, self.cpus, self.entries, self.mode = d["khz"], d["cpus"], d["entries"], d["mode"]
        self.percpu = d["percpu"]
        self.events = sorted(d["events"], key=lambda e: e.tsc)
        if not self.events:
            raise ValueError("the trace dump holds no records")
        self.t0 = self.events[0].tsc
        self.window = self._window()

    def _window(self):
        """The span every CPU's records cover (see the module comment)."""
        first, last = {}, {}
        for e in self.events:
            first.setdefault(e.cpu, e.tsc)
            last[e.cpu] = e.tsc
        lo, hi = self.events[0].tsc, self.events[-1].tsc
        for cpu, st in self.percpu.items():
            if cpu not in first:
                continue
            if st["records"] + st["skipped"] >= self.entries:	# it wrapped: older ones lost
                lo = max(lo, first[cpu])
            if st["dropped"]:					# it filled: newer ones lost
                hi = min(hi, last[cpu])
        return lo, hi

    def us(self, tsc):
        return (tsc - self.t0) * 1000.0 / self.khz

    def around(self, tsc, n=8, mark=()):
        i = bisect.bisect_left([e.tsc for e in self.events], tsc)
        out = ["  the events:"] + ["  >> " + e.fmt(self.t0, self.khz) for e in mark]
        out.append("  around them (all CPUs):")
        for e in self.events[max(0, i - n):i + n]:
            out.append(("  >> " if e in mark else "     ") + e.fmt(self.t0, self.khz))
        return "\n".join(out)


def grace_periods(tr):
    """{seq: (start tsc or None, end tsc or None, start ev, end ev)}"""
    gps = {}
    for e in tr.events:
        if e.name == "gp_start":
            gps.setdefault(e.a, [None, None, None, None])[0:3:2] = [e.tsc, e]
        elif e.name == "gp_end":
            g = gps.setdefault(e.a, [None, None, None, None])
            g[1], g[3] = e.tsc, e
    return gps


def readers(tr):
    """[(enter ev, exit ev)] for sections whose both ends were recorded."""
    enters, out = {}, []
    for e in tr.events:
        if e.name == "reader_enter":
            enters[e.a] = e
        elif e.name == "reader_exit" and e.a in enters:
            out.append((enters.pop(e.a), e))
    return out


def check(tr):
    """Returns (ok or None when nothing could be judged, report text)."""
    lo, hi = tr.window
    gps = grace_periods(tr)
    full = sorted((s, e, seq, se, ee) for seq, (s, e, se, ee) in gps.items()
                  if s is not None and e is not None and lo <= s and e <= hi)
    starts = [g[0] for g in full]
    violations = []
    nread = 0
    for ent, ext in readers(tr):
        if ent.tsc < lo or ext.tsc > hi:
            continue
        nread += 1
        # The first grace period to start after the reader began ends
        # soonest (one in flight at a time): it alone decides.
        i = bisect.bisect_right(starts, ent.tsc)
        if i < len(full) and full[i][1] < ext.tsc:
            s, e, seq, se, ee = full[i]
            violations.append((e, "grace period %d started at %.3f us, after reader %d "
                               "(%s, cpu%d) entered at %.3f us, and completed at %.3f us, "
                               "before the reader exited at %.3f us"
                               % (seq, tr.us(s), ent.a, READ_CTX.get(ent.b, "?"), ent.cpu,
                                  tr.us(ent.tsc), tr.us(e), tr.us(ext.tsc)),
                               (se, ee, ent, ext)))
    # Callbacks: each invocation against its queueing's grace period, and
    # against the readers that were running when it was queued.
    ends = sorted((seq, ee.tsc) for seq, (s, e, se, ee) in gps.items() if ee is not None)
    end_seqs = [seq for seq, _ in ends]
    # The earliest end among grace periods >= seq (numbers and ends rise together).
    first_end = [0] * len(ends)
    for i in range(len(ends) - 1, -1, -1):
        first_end[i] = min(ends[i][1], first_end[i + 1] if i + 1 < len(ends) else ends[i][1])
    end_tscs = sorted(t for _, t in ends)
    rd = sorted((ent.tsc, ext.tsc, ent, ext) for ent, ext in readers(tr))
    rd_enter = [r[0] for r in rd]
    rd_maxexit = []
    for r in rd:
        rd_maxexit.append(max(r[1], rd_maxexit[-1] if rd_maxexit else r[1]))
    queued, ncb = {}, 0
    for e in tr.events:
        if e.name == "call_rcu":
            queued[e.a] = e
        elif e.name == "cb_invoke" and e.a in queued:
            q = queued.pop(e.a)
            if q.tsc < lo or e.tsc > hi:
                continue
            ncb += 1
            if tr.cpus > 1:
                i = bisect.bisect_left(end_seqs, q.b)
                ok = i < len(ends) and first_end[i] <= e.tsc
            else:
                # One CPU: its quiescent state after the call_rcu covers
                # every reader (rcu-tiny lets a callback join the grace
                # period in flight): some grace period must end between.
                i = bisect.bisect_right(end_tscs, q.tsc)
                ok = i < len(end_tscs) and end_tscs[i] <= e.tsc
            if not ok:
                end = gps.get(q.b, [None] * 4)
                violations.append((e.tsc, "callback %#x queued at %.3f us on cpu%d waits for "
                                   "grace period %d, but ran at %.3f us on cpu%d, %s"
                                   % (q.a, tr.us(q.tsc), q.cpu, q.b, tr.us(e.tsc), e.cpu,
                                      "before it ended at %.3f us" % tr.us(end[1])
                                      if end[1] else "and that grace period never ended"),
                                   (q, e) + ((end[3],) if end[3] else ())))
            # RCU's promise itself: no reader running at the call_rcu is
            # still running when the callback runs.
            j = bisect.bisect_left(rd_enter, q.tsc) - 1
            if j >= 0 and rd_maxexit[j] > e.tsc:
                ent, ext = next((r[2], r[3]) for r in rd[:j + 1] if r[1] > e.tsc)
                if ent.tsc >= lo and ext.tsc <= hi:
                    violations.append((e.tsc, "callback %#x queued at %.3f us on cpu%d ran at "
                                       "%.3f us, inside reader %d (cpu%d, %.3f..%.3f us) that "
                                       "was running when it was queued"
                                       % (q.a, tr.us(q.tsc), q.cpu, tr.us(e.tsc), ent.a, ent.cpu,
                                          tr.us(ent.tsc), tr.us(ext.tsc)), (q, e, ent, ext)))
    head = ("trace: %d records on %d CPUs (%s mode), window %.3f..%.3f us: %d grace periods, "
            "%d reader sections, %d callbacks judged"
            % (len(tr.events), tr.cpus, tr.mode, tr.us(lo), tr.us(hi), len(full), nread, ncb))
    if violations:
        t, why, evs = min(violations, key=lambda v: v[0])
        return False, "%s\nFAIL: %d violation(s); the first: %s\n%s" % (
            head, len(violations), why, tr.around(t, mark=evs))
    if not full or not nread:
        return None, "%s\nINCONCLUSIVE: no %s inside the window" % (
            head, "grace period" if not full else "reader section")
    return True, "%s\nPASS" % head


def node_waits(tr):
    """Tree RCU's rcu_node tracks: {(level, index): [(start tsc, empty tsc)]},
    from each grace period's start to the report that emptied the node
    (node_qs with b == 0), and [(tsc, qsmask)] of every report on it."""
    starts = sorted(s for s, _, _, _ in grace_periods(tr).values() if s is not None)
    waits, reports = {}, {}
    for e in tr.events:
        if e.name != "node_qs":
            continue
        node = (e.a >> 16, e.a & 0xffff)
        reports.setdefault(node, []).append((e.tsc, e.b))
        if e.b == 0:
            i = bisect.bisect_right(starts, e.tsc)
            if i:
                waits.setdefault(node, []).append((starts[i - 1], e.tsc))
    return waits, reports


def to_json(tr):
    """Chrome trace-event format: one track (tid) per CPU in process 1."""
    ev = [{"name": "process_name", "ph": "M", "pid": 1, "tid": 0, "args": {"name": "Quiescent"}}]
    for cpu in range(tr.cpus):
        ev.append({"name": "thread_name", "ph": "M", "pid": 1, "tid": cpu,
                   "args": {"name": "cpu%d" % cpu}})
        ev.append({"name": "thread_sort_index", "ph": "M", "pid": 1, "tid": cpu,
                   "args": {"sort_index": cpu}})
    waits, reports = node_waits(tr)
    for level, idx in sorted(reports):
        tid = 1000 + idx
        ev.append({"name": "thread_name", "ph": "M", "pid": 1, "tid": tid,
                   "args": {"name": "rcu_node %d (level %d)" % (idx, level)}})
        ev.append({"name": "thread_sort_index", "ph": "M", "pid": 1, "tid": tid,
                   "args": {"sort_index": tid}})
        for s, e in waits.get((level, idx), []):
            ev.append({"name": "waits", "cat": "rcu", "ph": "X", "pid": 1, "tid": tid,
                       "ts": tr.us(s), "dur": max(tr.us(e) - tr.us(s), 0.001)})
        for t, mask in reports[(level, idx)]:
            ev.append({"name": "qsmask %#x" % mask, "cat": "rcu", "ph": "i", "s": "t",
                       "pid": 1, "tid": tid, "ts": tr.us(t), "args": {"qsmask": mask}})
    for seq, (s, e, se, ee) in sorted(grace_periods(tr).items()):
        if s is not None and e is not None:
            ev.append({"name": "GP %d" % seq, "cat": "rcu", "ph": "X", "pid": 1,
                       "tid": se.cpu, "ts": tr.us(s), "dur": max(tr.us(e) - tr.us(s), 0.001),
                       "args": {"gp": seq, "variant_gpnum": ee.b, "ended_on": "cpu%d" % ee.cpu}})
    enters = {}
    for e in tr.events:
        base = {"pid": 1, "tid": e.cpu, "ts": tr.us(e.tsc)}
        if e.name == "qs":
            ev.append(dict(base, name="QS cpu%d" % e.b, cat="rcu", ph="i", s="t",
                           tid=e.b, args={"gp": e.a, "seen_by": "cpu%d" % e.cpu}))
        elif e.name == "cb_batch":
            ev.append(dict(base, name="callbacks", cat="rcu", ph="i", s="t",
                           args={"count": e.a, "cycles": e.b}))
        elif e.name == "cb_pending":
            ev.append(dict(base, name="pending callbacks cpu%d" % e.cpu, cat="rcu", ph="C",
                           args={"pending": e.a}))
        elif e.name == "switch":
            ev.append(dict(base, name="switch" + ("" if e.b else " (preempted)"), cat="sched",
                           ph="i", s="t", args={"prev": e.a >> 32, "next": e.a & 0xffffffff}))
        elif e.name in ("softirq_entry", "tasklet_entry"):
            ev.append(dict(base, name=e.name.split("_")[0] + " %x" % e.a, cat="softirq", ph="B"))
        elif e.name in ("softirq_exit", "tasklet_exit"):
            ev.append(dict(base, name=e.name.split("_")[0], cat="softirq", ph="E"))
        elif e.name in ("tick", "ipi"):
            ev.append(dict(base, name=e.name, cat="irq", ph="i", s="t", args={"a": e.a}))
        elif e.name == "reader_enter":
            enters[e.a] = e
        elif e.name == "reader_exit" and e.a in enters:
            s = enters.pop(e.a)
            ev.append({"name": "reader %s" % READ_CTX.get(s.b, "?"), "cat": "torture", "ph": "X",
                       "pid": 1, "tid": s.cpu, "ts": tr.us(s.tsc),
                       "dur": max(tr.us(e.tsc) - tr.us(s.tsc), 0.001), "args": {"id": e.a}})
    return {"traceEvents": ev, "displayTimeUnit": "ns",
            "otherData": {"tsc_khz": tr.khz, "cpus": tr.cpus, "mode": tr.mode}}


def to_png(tr, out, title=None, span_us=None):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    gps = sorted((s, e, seq) for seq, (s, e, _, _) in grace_periods(tr).items()
                 if s is not None and e is not None)
    t_end = tr.us(tr.events[-1].tsc)
    t_lo = 0.0
    if span_us and gps:
        # A readable slice: span_us around the middle reader (or grace period).
        rd = [e.tsc for e in tr.events if e.name == "reader_enter"]
        mid = tr.us(rd[len(rd) // 2] if rd else gps[len(gps) // 2][0])
        t_lo, t_end = max(0.0, mid - span_us / 2), mid + span_us / 2
    inside = lambda t: t_lo <= t <= t_end
    waits, reports = node_waits(tr)
    nodes = sorted(reports)         # Tree RCU only: a row per rcu_node, root first
    rows = tr.cpus + len(nodes)
    fig, ax = plt.subplots(figsize=(14, 1.2 + 0.8 * rows))
    for i, (s, e, seq) in enumerate(gps):
        s_us, e_us = tr.us(s), tr.us(e)
        if e_us < t_lo or s_us > t_end:
            continue
        ax.axvspan(s_us, e_us, color="tab:blue" if i % 2 else "tab:cyan", alpha=0.18, lw=0)
    for cpu in range(tr.cpus):
        y = cpu
        evs = [e for e in tr.events if inside(tr.us(e.tsc))]
        rd = {}
        for e in evs:
            if e.name == "reader_enter" and e.cpu == cpu:
                rd[e.a] = e
            elif e.name == "reader_exit" and e.a in rd:
                s = rd.pop(e.a)
                ax.plot([tr.us(s.tsc), tr.us(e.tsc)], [y + 0.25] * 2, color="0.45", lw=2,
                        solid_capstyle="butt")
        qs = [tr.us(e.tsc) for e in evs if e.name == "qs" and e.b == cpu]
        sw = [tr.us(e.tsc) for e in evs if e.name == "switch" and e.cpu == cpu]
        cb = [tr.us(e.tsc) for e in evs if e.name == "cb_batch" and e.cpu == cpu]
        tk = [tr.us(e.tsc) for e in evs if e.name == "tick" and e.cpu == cpu]
        sq = [tr.us(e.tsc) for e in evs if e.name == "softirq_entry" and e.cpu == cpu]
        ax.plot(tk, [y - 0.3] * len(tk), "|", color="0.6", ms=6, label="tick" if cpu == 0 else None)
        if sq:      # only with trace=softirq
            ax.plot(sq, [y + 0.4] * len(sq), "|", color="tab:orange", ms=5,
                    label="softirq" if cpu == 0 else None)
        ax.plot(sw, [y - 0.15] * len(sw), "|", color="tab:purple", ms=8,
                label="context switch" if cpu == 0 else None)
        ax.plot(cb, [y + 0.05] * len(cb), "s", color="tab:green", ms=4,
                label="callbacks invoked" if cpu == 0 else None)
        ax.plot(qs, [y] * len(qs), "v", color="tab:red", ms=7,
                label="quiescent state" if cpu == 0 else None)
    for row, node in enumerate(nodes, start=tr.cpus):
        for s, e in waits.get(node, []):
            if tr.us(e) >= t_lo and tr.us(s) <= t_end:
                ax.plot([tr.us(s), tr.us(e)], [row] * 2, color="tab:brown", lw=4, alpha=0.6,
                        solid_capstyle="butt")
        part = [tr.us(t) for t, mask in reports[node] if mask and inside(tr.us(t))]
        ax.plot(part, [row] * len(part), "|", color="tab:brown", ms=9)
    if nodes:
        ax.plot([], [], color="tab:brown", lw=4, alpha=0.6,
                label="rcu_node owed (| a report that left bits)")
    ax.plot([], [], color="0.45", lw=2, label="torture reader")
    ax.axvspan(0, 0, color="tab:blue", alpha=0.18, label="grace period")
    ax.set_yticks(range(rows))
    ax.set_yticklabels(["cpu%d" % c for c in range(tr.cpus)] +
                       ["%s %d" % ("root" if lv == 0 else "L%d node" % lv, i) for lv, i in nodes])
    ax.set_ylim(-0.6, rows - 0.4)
    ax.invert_yaxis()
    ax.set_xlim(t_lo, t_end)
    ax.ticklabel_format(axis="x", useOffset=False, style="plain")
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda x, _: "%.1f" % (x / 1000)))
    ax.set_xlabel("milliseconds since the first record")
    ax.set_title(title or "grace periods across CPUs")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.25), ncol=8, fontsize=8, frameon=False)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def run(a):
    """Boot a traced rcutorture run (make trace) and keep its log in DIR."""
    from qs.boot import boot
    cmdline = ("ktest=torture_rcu torture.duration=%d torture.flood=0 trace=%s trace.size=%d "
               "trace.dump_at_end=1" % (a.seconds, a.cats, a.size))
    name = "trace-" + a.config.replace("_defconfig", "")
    print("timeline.py: booting %s at -smp %d: %s" % (a.config, a.cpus, cmdline))
    r = boot(name=name, defconfig=a.config, cpus=a.cpus, cmdline=cmdline,
             timeout=120 + 10 * a.seconds, kvm=a.kvm)
    d = Path(a.dir)
    d.mkdir(parents=True, exist_ok=True)
    (d / "console.log").write_text(r.log)
    print("timeline.py: the run ended %s; its console: %s" % (r.status, d / "console.log"))
    return d / "console.log"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("cmd", choices=["check", "json", "png", "all", "run"])
    p.add_argument("log", nargs="?")
    p.add_argument("--config", default="rcu_ltimer_defconfig")
    p.add_argument("--cpus", type=int, default=4)
    p.add_argument("--kvm", default="0")
    p.add_argument("--seconds", type=int, default=1)
    p.add_argument("--cats", default="rcu,sched,irq,torture")
    p.add_argument("--size", type=int, default=65536)
    p.add_argument("-o", "--out")
    p.add_argument("-d", "--dir")
    p.add_argument("--title")
    p.add_argument("--span-us", type=float, default=None,
                   help="PNG: show this many microseconds around the middle grace period")
    a = p.parse_args(argv)
    if a.cmd == "run":
        a.log, a.cmd = str(run(a)), "all"
        a.dir = a.dir or "."
        a.span_us = a.span_us or 30000
        a.title = a.title or "%s, -smp %d: grace periods (shaded), quiescent states, readers" % (
            a.config.replace("_defconfig", "").replace("rcu_", "rcu-").replace("_", "-"), a.cpus)
    elif not a.log:
        p.error("which log?")
    try:
        tr = Trace(Path(a.log).read_text(errors="replace"))
    except (OSError, ValueError) as e:
        print("timeline.py: %s: %s" % (a.log, e), file=sys.stderr)
        return 2
    if a.cmd == "json":
        Path(a.out or "trace.json").write_text(json.dumps(to_json(tr)))
        return 0
    if a.cmd == "png":
        to_png(tr, a.out or "timeline.png", a.title, a.span_us)
        return 0
    ok, text = check(tr)
    print(text)
    if a.cmd == "all":
        d = Path(a.dir or ".")
        d.mkdir(parents=True, exist_ok=True)
        (d / "verdict.txt").write_text(text + "\n")
        (d / "trace.json").write_text(json.dumps(to_json(tr)))
        to_png(tr, d / "timeline.png", a.title, a.span_us)
        print("timeline.py: wrote %s/{trace.json,timeline.png,verdict.txt}" % d)
    return 0 if ok else (2 if ok is None else 1)

