"""Seed 000 Figures 9 and 10 (grace-period latency against load) and Table 2
(idle overhead): every RCU variant booted once by tools/compare.py
(`make compare`), its table and plot, beside the paper's."""
import json

from qs import REPO

from figs import Section
from figs.doc import Doc

from qs import compare as tool

KEY = "variants"
TITLE = "Seed 000 Figures 9 and 10, Table 2: the RCU variants side by side"

# What the paper says of each real variant (by stem, as compare keys its
# rows), Figures 9-10; None for those the paper did not measure. Every real
# variant has an entry (tests/test_variant_list.py), so a new one is placed.
FIG9 = {
    "poll": "the lowest by far: below 10 ms under dbench, below 250 µs idle",
    "xrcu": "larger, bounded as load grows",
    "krcud": "larger, bounded as load grows",
    "ltimer": "larger, bounded as load grows",
    "taskq": "grows with load (CPUs pass in turn; keventd runs at low priority)",
    "sched": "very large (14.5 s at 8 dbench clients)",
    "preempt": None,
    "poll_percpu": None,
    "tiny": None,
    "tree": None,
}
# Table 2 (memory references with no RCU work in the system): per context
# switch, per timer tick (or preemption, for rcu-preempt); None where the
# paper has no row. From the OCR'd text, so read it beside the paper.
TABLE2 = {
    "xrcu": ("1 local", "8 local + 1 global + 1 timer (50 ms, per CPU)"),
    "krcud": ("1 local", "2 local + 1 global read + 1 global write + 1 timer + #CPU up() (50 ms)"),
    "poll": ("1 local", "none"),
    "ltimer": ("1 local", "7 local + 1 global + 1 tasklet (per CPU)"),
    "taskq": ("none", "none"),
    "sched": ("1 global read", "none"),
    "preempt": ("1 local", "none (6 local per preemption)"),
    "poll_percpu": None,
    "tiny": None,
    "tree": None,
}


def available():
    if not (REPO / "tools" / "compare.py").exists():
        return False, "no tools/compare.py"
    return True, ""


def boots(results, cpus):
    """The runner's result file of each boot compare made (accelerator, banner)."""
    out = []
    for stem, s in results:
        name = f"compare-{stem}" + ("-tuned" if s.get("tuned") else "")
        f = REPO / "build" / name / "results" / f"compare-smp{cpus}.json"
        try:
            d = json.loads(f.read_text())
        except (OSError, ValueError):
            continue
        b = d.get("banner") or {}
        out.append(dict(config=name, cpus=d.get("cpus"), accel=d.get("accel"), cpu=d.get("cpu"),
                        accel_why=d.get("accel_why"),
                        cmdline=d.get("cmdline"), status=d.get("status"),
                        variant=s.get("variant", b.get("rcu")), preemption=b.get("preemption"),
                        hz=b.get("hz"), log=d.get("log")))
    return out


def collect(ctx):
    samples = 20 if ctx.quick else tool.SYNC_SAMPLES
    results = tool.run(ctx.cpus, ctx.kvm, tuned=not ctx.quick, samples=samples)
    return dict(results=results, samples=samples, cpus=ctx.cpus, boots=boots(results, ctx.cpus))


def ms(us):
    return "?" if us is None else f"{us / 1000:.2f}"


def render(data, ctx, out):
    results = [(stem, s) for stem, s in data["results"]]
    doc = Doc()
    s = Section(KEY, TITLE, doc, runs=data.get("boots", []))
    doc.p(f"`tools/compare.py` (`make compare`): each variant's configuration booted once at "
          f"-smp {data['cpus']} with `ktest=bench_rcu_*` and {data['samples']} "
          "`synchronize_kernel()` calls a load. The paper measured `call_rcu()` latency under "
          "dbench on an 8-CPU 700 MHz Xeon; we measure `synchronize_kernel()` idle and with a "
          "busy kernel thread on every CPU, which is what a grace period costs a caller.")
    png = "seed000-fig9-10.png"
    tool.plot(results, out / png)
    if (out / png).exists():
        s.pngs.append(png)
        doc.img(png, "seed 000 Figures 9-10: grace-period latency by variant against load (log)")
    base = [(stem, v) for stem, v in results if not v.get("tuned")]
    busy = sorted((v.get("sync_busy", {}).get("median_us", 1e18), stem) for stem, v in base)
    rank = {stem: i + 1 for i, (_, stem) in enumerate(busy)}
    rows = []
    for stem, v in results:
        i, b = v.get("sync_idle", {}), v.get("sync_busy", {})
        rows.append([v.get("variant", stem), ms(i.get("median_us")), ms(b.get("median_us")),
                     ms(b.get("p99_us")), (FIG9.get(stem) or "(not in Figure 9)") if not v.get("tuned")
                     else "(a shorter period than the paper's)", fig9_sentence(stem, v, rank, len(base))])
    doc.h(3, "Figures 9 and 10: grace-period latency against load")
    doc.table(["variant", "idle median (ms)", "busy median (ms)", "busy p99 (ms)", "paper",
               "ours beside it"], rows)
    doc.h(3, "Table 2: idle overhead")
    doc.p("The paper counts the memory references each variant adds with no RCU work in the "
          "system; `bench_rcu_idle_overhead` times the hooks themselves, after `rcu_barrier()`, "
          "less an empty call through the same pointer; every variant's tick also runs the stall "
          "check, most of the tick column (`docs/rcu/README.md`).")
    rows = []
    for stem, v in base:
        o = v.get("overhead", {})
        p = TABLE2.get(stem)
        sw, tk = o.get("context_switch_cycles"), o.get("tick_cycles")
        rows.append([v.get("variant", stem), p[0] if p else "(not in Table 2)", p[1] if p else "",
                     "?" if sw is None else sw, "?" if tk is None else tk, table2_sentence(p, sw, tk)])
    doc.table(["variant", "paper: per switch", "paper: per tick", "ours: cycles per switch",
               "ours: cycles per tick", "ours beside it"], rows)
    doc.p("The whole comparison, as `make compare` prints it (read-side cycles per pair, "
          "synchronize latency min/median/p99/max, call_rcu throughput, callbacks per grace period):")
    doc.pre(tool.table(results, data["cpus"], data["samples"]))
    return s


def fig9_sentence(stem, v, rank, n):
    i = v.get("sync_idle", {}).get("median_us")
    b = v.get("sync_busy", {}).get("median_us")
    if i is None or b is None:
        return "no numbers (see the log)"
    grow = b / i if i else float("inf")
    if v.get("tuned"):
        return f"its period, not load, sets it: {ms(i)} → {ms(b)} ms"
    if stem == "poll":
        return (f"{'the lowest' if rank[stem] == 1 else f'number {rank[stem]} of {n}'} under load "
                f"here, {ms(i)} ms idle" + (" (under the paper's 250 µs)" if i < 250 else
                                            " (the paper's 250 µs idle is a bare-metal figure)"))
    if stem == "taskq":
        return (f"busy/idle {grow:.1f} ×: " + ("it grows with load, as in the paper" if grow > 1.5
                                             else "one busy thread a CPU is less load than dbench"))
    if stem == "sched":
        return (f"{ms(b)} ms busy: its ring advances at every pass through the scheduler while "
                "callbacks wait, nothing like the seconds the paper was still investigating")
    if stem in ("xrcu", "krcud", "ltimer"):
        return f"{ms(i)} → {ms(b)} ms: paced by its timer, as the paper's are (busy ÷ idle {grow:.1f})"
    return f"{ms(i)} → {ms(b)} ms"


def table2_sentence(p, sw, tk):
    if p is None or sw is None or tk is None:
        return ""
    agree = []
    for paper, ours, what in ((p[0], sw, "switch"), (p[1], tk, "tick")):
        none = paper.startswith("none")
        if none and ours <= 5:
            agree.append(f"nothing per {what}, as in the paper")
        elif none:
            agree.append(f"{ours} cycles per {what} where the paper counts none"
                         + (" (the stall check)" if what == "tick" else ""))
        elif ours <= 5:
            agree.append(f"too little per {what} to measure where the paper counts {paper.split(' (')[0]}")
        else:
            agree.append(f"a cost per {what}, as in the paper")
    return "; ".join(agree)
