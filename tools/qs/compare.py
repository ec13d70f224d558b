"""Compare the RCU variants side by side (docs/rcu/README.md, "Comparing them").

For every real variant (qs.variants: Kconfig's choice less busted and
student) whose configs/rcu_<stem>_defconfig allows the CPU count, build
it, boot it once with the RCU benchmarks (ktest=bench_rcu_*), collect the
BENCH lines, and print one table:

  read-side cost (cycles per rcu_read_lock/unlock pair beside an rwlock
  read pair, 1 and all readers), synchronize_kernel latency idle and with
  a busy thread per CPU (min / median / p99 / max, ms), call_rcu
  throughput, callbacks per grace period, and the idle overhead of seed 000
  Table 2 (cycles the variant's hooks add to a context switch and a tick
  with no callback in flight). The same boots also time
  synchronize_rcu_expedited() beside synchronize_kernel(). The cache lines
  each quiescent state writes are the coherence plugin's to count
  (tools/c2c.py qslines, docs/rcu/qs-lines.md), in boots of their own.

--cpus 1,2,4,8 (make compare COMPARE_CPUS=1,2,4,8) boots every variant at
each CPU count instead and prints the "2002 against today" table
(tools/qs/thennow.py, docs/rcu/then-and-now.md).

The timer-paced variants (X-rcu, rcu, rcu-preempt) get a second row with a
much shorter period than the papers' (TUNED below), to show what paces them.

It also draws build/compare/sync-latency.png: synchronize_kernel latency by
variant against load, in the manner of seed 000 Figures 9-10.

  tools/compare.py [--cpus 2] [--variants ltimer,poll,...] [--kvm 0]
  make compare COMPARE_CPUS=2
"""
import argparse
import json
import sys
from pathlib import Path

from qs import REPO, variants
from qs.boot import accel_desc, boot


# The timer-paced variants again with shorter periods than the papers'
# (label, config stem, boot parameters): what paces their grace periods.
# Boot parameters, so a tuned row boots the variant's own build again.
TUNED = [
    ("xrcu, period 1 jiffy", "xrcu", "rcu_xrcu.period=1"),
    ("krcud, period 4 ms", "krcud", "rcu_krcud.period_ms=4"),
    ("preempt, period 4 ms", "preempt", "rcu_krcud.period_ms=4"),
]


# synchronize_kernel() calls per load: enough for a p99 that is not the max.
SYNC_SAMPLES = 200


def available(cpus):
    """[(stem, defconfig)] of every real variant that can boot at -smp cpus
    (tiny's defconfig has CONFIG_NR_CPUS=1), keyed by stem, the spelling of
    its file names (docs/rcu/README.md, "Names")."""
    out = []
    for v in variants.real():
        facts = variants.defconfig_facts(v.defconfig())
        if facts and (facts[1] is None or facts[1] >= cpus):
            out.append((v.stem, v.defconfig()))
    return out


def bench(stem, cfg, cpus, kvm, extra="", name=None, samples=SYNC_SAMPLES, label=None):
    # The test configurations count read-side nesting (CONFIG_RCU_DEBUG_READ,
    # which PROVE_RCU turns on: rcu_tree_defconfig has it); the comparison
    # measures the read side as a production build has it.
    r = boot(name=name or f"compare-{stem}", defconfig=cfg, boot="kernel", cpus=cpus,
                  options=["# CONFIG_PROVE_RCU is not set", "# CONFIG_RCU_DEBUG_READ is not set"],
                  cmdline=f"ktest=bench_rcu_* bench.sync_samples={samples} {extra}".strip(),
                  timeout=600,
                  kvm=kvm, label=label or f"compare-smp{cpus}")
    rows = [b for b in r.console.bench]
    print(f"compare: {stem}: {accel_desc(r)}", file=sys.stderr)
    if r.status != "pass":
        print(f"compare: {stem}: the run ended as {r.describe_status()} (log {r.log_path})",
              file=sys.stderr)
    bad = r.console_problems()
    if bad:
        # A benchmark from a boot that warned measured a broken kernel.
        print(f"compare: {stem}: {bad[0]} (log {r.log_path}); its figures are left out",
              file=sys.stderr)
        return []
    return rows


def summarise(rows):
    s = {}
    for b in rows:
        kind = b.get("bench")
        if kind == "rcu_read_pair":
            s.setdefault("read", {}).setdefault(b["readers"], {})[b["kind"]] = b["cycles"]
        elif kind == "synchronize_kernel":
            s[f"sync_{b['load']}"] = b
            s["variant"] = b["variant"]
        elif kind == "synchronize_rcu_expedited":
            s[f"exp_{b['load']}"] = b
        elif kind == "call_rcu":
            s["call_rcu"] = b
        elif kind == "rcu_idle_overhead":
            s["overhead"] = b
    return s


def ms(us):
    return f"{us / 1000:.1f}"


def table(results, cpus, samples=SYNC_SAMPLES):
    # At -smp 1 the all-readers column would repeat the one-reader one.
    reads = [1] if cpus == 1 else [1, cpus]
    head = (["variant"] + [f"read {n} (rcu/rwlock)" for n in reads] +
            [f"sync idle min/med/p99/max ms ({samples})",
             f"sync busy min/med/p99/max ms ({samples})",
             # The grace periods' own length (rcu_gp_begin to rcu_gp_end),
             # beside the latency of the synchronize_kernel() that waits for them.
             "gp mean idle/busy ms",
             "call_rcu/s", "cbs/gp", "idle cycles switch/tick"])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for stem, s in results:
        rd = s.get("read", {})

        def pair(n):
            r = rd.get(n, {})
            return f"{r.get('rcu', '?')}/{r.get('rwlock', '?')}"

        def sync(k):
            b = s.get(k)
            if not b:
                return "?"
            return "/".join(ms(b[f]) for f in ("min_us", "median_us", "p99_us", "max_us"))

        def gp_mean(k):
            b = s.get(k, {})
            return ms(b["gp_mean_us"]) if b.get("grace_periods") else "?"
        c = s.get("call_rcu", {})
        o = s.get("overhead", {})
        lines.append("| " + " | ".join(
            [s.get("variant", stem), pair(1)] + ([pair(max(rd) if rd else cpus)] if cpus > 1 else []) +
            [sync("sync_idle"), sync("sync_busy"),
             f"{gp_mean('sync_idle')}/{gp_mean('sync_busy')}",
             str(c.get("callbacks_per_sec", "?")), str(c.get("callbacks_per_gp", "?")),
             f"{o.get('context_switch_cycles', '?')}/{o.get('tick_cycles', '?')}"]) + " |")
    return "\n".join(lines)


def plot(results, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("compare: matplotlib missing: no plot (pip install matplotlib)", file=sys.stderr)
        return
    fig, ax = plt.subplots(figsize=(7, 4.5))
    loads = ["idle", "busy"]
    for stem, s in results:
        med = [s.get(f"sync_{l}", {}).get("median_us") for l in loads]
        p99 = [s.get(f"sync_{l}", {}).get("p99_us") for l in loads]
        if None in med:
            continue
        lo = [m / 1000 for m in med]
        hi = [(p - m) / 1000 for m, p in zip(med, p99)]
        ax.errorbar(loads, lo, yerr=[[0, 0], hi], marker="o", capsize=4,
                    label=s.get("variant", stem))
    ax.set_yscale("log")
    ax.set_ylabel("synchronize_kernel latency, ms (median, bar to p99)")
    ax.set_xlabel("load: idle, or a busy kernel thread on every CPU")
    ax.set_title("Grace-period latency by variant against load (cf. seed 000 Figs. 9-10)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    print(f"compare: plot written to {path}")


def run(cpus, kvm, only=(), tuned=True, samples=SYNC_SAMPLES):
    """Boot every variant (or those in only, by stem), and the
    tuned rows unless tuned=False: [(stem, summary)], as main() prints them
    (tools/figures.py calls this too)."""
    todo = available(cpus)
    if only:
        todo = [t for t in todo if t[0] in set(only)]
    results = []
    for stem, cfg in todo:
        print(f"compare: {stem} at -smp {cpus} ...", file=sys.stderr)
        results.append((stem, summarise(bench(stem, cfg, cpus, kvm, samples=samples))))
    if tuned:
        have = {stem: cfg for stem, cfg in todo}
        for label, stem, extra in TUNED:
            if stem not in have:
                continue
            print(f"compare: {label} at -smp {cpus} ...", file=sys.stderr)
            s = summarise(bench(stem, have[stem], cpus, kvm, extra, samples=samples))
            s["variant"] = label
            s["tuned"] = True
            results.append((stem, s))
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cpus", default="2",
                    help="a CPU count, or a list (1,2,4,8): the 2002-against-today table")
    ap.add_argument("--variants", default="",
                    help="comma-separated, from: " + " ".join(v.name for v in variants.real())
                    + " (default: all)")
    ap.add_argument("--kvm", default="0")
    ap.add_argument("--no-tuned", action="store_true",
                    help="skip the timer-paced variants' extra rows with shorter periods")
    a = ap.parse_args()
    try:
        only = [variants.find(v).stem for v in a.variants.split(",") if v]
    except KeyError as e:
        ap.error(e.args[0])
    if "," in a.cpus:
        from qs import thennow
        thennow.main([int(c) for c in a.cpus.split(",")], a.kvm, only)
        return
    a.cpus = int(a.cpus)
    results = run(a.cpus, a.kvm, only, tuned=not a.no_tuned)
    out = REPO / "build" / "compare"
    out.mkdir(parents=True, exist_ok=True)
    text = table(results, a.cpus)
    print(text)
    (out / f"table-smp{a.cpus}.md").write_text(text + "\n")
    (out / f"results-smp{a.cpus}.json").write_text(json.dumps(results, indent=1))
    plot(results, out / f"sync-latency-smp{a.cpus}.png")

