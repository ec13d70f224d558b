"""Route lookups per second: the route cache's three designs side by side in
one boot (docs/net-route-cache.md; seed 000 Figure 6, seed 001 Figure 1).

Boots the kernel once with an interface and

  ktest=bench_route_lookup route_bench.ms=<ms>

(kernel/net/route_bench.c: rcu, rwlock and off, hit ratios 100/90/10 %,
1, 2, 4 ... N CPUs), prints the table with the ratios rcu/rwlock and
rcu/off and each design's scaling from one CPU, and writes
build/rtbench/route_lookup.json and a plot, build/rtbench/route-lookups.png.

With --runs N it boots N times and takes each cell's median (the host's
load moves single runs by tens of percent under TCG); the table then also
gives the smallest and largest rcu/rwlock ratio seen.

  tools/rtbench.py [--cpus 4] [--config defconfig] [--ms 100] [--runs 1] [--kvm 0] [--png FILE]
  make rtbench [CPUS=4]
"""
import argparse
import json
import statistics
import sys
from pathlib import Path

from qs import REPO
from qs.boot import boot
from qs.net import Nic
from qs.boot import accel_desc

MODES = ("rcu", "rwlock", "off")
OUT = REPO / "build" / "rtbench"


def measure(cfg, cpus, ms, kvm):
    r = boot(name=f"test-{cfg}", defconfig=cfg, boot="kernel", cpus=cpus,
                  cmdline=f"ip=10.0.2.15/24 ktest=bench_route_lookup route_bench.ms={ms}",
                  timeout=600, kvm=kvm, label=f"rtbench-smp{cpus}", nics=[Nic("user", dump=False)])
    if r.status != "pass":
        sys.exit(f"rtbench: the run ended {r.status}; see {r.log_path}")
    bad = r.console_problems()            # a console judged whole (qs.judge)
    if bad:
        sys.exit(f"rtbench: {bad[0]}; see {r.log_path}")
    rows = [b for b in r.console.bench if b.get("bench") == "route_lookup"]
    if not rows:
        sys.exit(f"rtbench: no BENCH route_lookup lines in {r.log_path}")
    return rows, r


def median_rows(runs):
    """One row per (mode, hit, CPUs): the median lookups per second over the
    runs, and each run's rcu/rwlock ratio."""
    by = {}
    for rows in runs:
        for b in rows:
            by.setdefault((b["mode"], b["hit_pct"], b["cpus"]), []).append(b)
    out = []
    for (m, p, c), bs in by.items():
        row = dict(bs[0], lookups_per_s=int(statistics.median(b["lookups_per_s"] for b in bs)),
                   hit_pct_measured=int(statistics.median(b["hit_pct_measured"] for b in bs)),
                   runs=len(bs))
        if m == "rcu":
            row["ratios"] = [b["lookups_per_s"] / max(w["lookups_per_s"], 1)
                             for b, w in zip(bs, by[("rwlock", p, c)])]
        out.append(row)
    return out


def table(rows, emit=print):
    """Prints (or hands emit) the table's lines; returns (pcts, cpus, cell)."""
    cell = {(b["mode"], b["hit_pct"], b["cpus"]): b for b in rows}
    pcts = sorted({b["hit_pct"] for b in rows}, reverse=True)
    cpus = sorted({b["cpus"] for b in rows})
    emit(f"{'hit %':>5} {'CPUs':>4} " + " ".join(f"{m + '/s':>12}" for m in MODES) +
          f" {'rcu/rwlock':>10} {'rcu/off':>8} {'rcu xN':>7} {'rwlock xN':>9}  measured hit % (rcu)")
    for p in pcts:
        for c in cpus:
            v = {m: cell[(m, p, c)]["lookups_per_s"] for m in MODES}
            one = {m: cell[(m, p, cpus[0])]["lookups_per_s"] for m in MODES}
            emit(f"{p:>5} {c:>4} " + " ".join(f"{v[m]:>12,}" for m in MODES) +
                  f" {v['rcu'] / max(v['rwlock'], 1):>10.2f} {v['rcu'] / max(v['off'], 1):>8.2f}"
                  f" {v['rcu'] / max(one['rcu'], 1):>7.2f} {v['rwlock'] / max(one['rwlock'], 1):>9.2f}"
                  f"  {cell[('rcu', p, c)]['hit_pct_measured']}" +
                  (f"   rcu/rwlock over {len(cell[('rcu', p, c)]['ratios'])} runs: "
                   f"{min(cell[('rcu', p, c)]['ratios']):.2f} .. {max(cell[('rcu', p, c)]['ratios']):.2f}"
                   if len(cell[("rcu", p, c)].get("ratios", ())) > 1 else ""))
    return pcts, cpus, cell


def plot(pcts, cpus, cell, title, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(pcts), figsize=(4.2 * len(pcts), 3.6), sharey=False)
    for ax, p in zip(axes, pcts):
        for m, style in zip(MODES, ("o-", "s--", "^:")):
            ax.plot(cpus, [cell[(m, p, c)]["lookups_per_s"] / 1e6 for c in cpus], style, label=m)
        ax.set_title(f"{p}% of lookups hit")
        ax.set_xlabel("CPUs looking up")
        ax.set_xticks(cpus)
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("million lookups per second")
    axes[0].legend()
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"rtbench: plot in {path}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cpus", type=int, default=4)
    ap.add_argument("--config", default="defconfig")
    ap.add_argument("--ms", type=int, default=100)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--kvm", default="0")
    ap.add_argument("--png", default=str(OUT / "route-lookups.png"))
    a = ap.parse_args()
    runs = []
    for i in range(a.runs):
        rows, r = measure(a.config, a.cpus, a.ms, a.kvm)
        runs.append(rows)
    rows = median_rows(runs)
    variant = rows[0].get("variant", "?")
    print(f"route lookups per second, {variant}, {a.config}, -smp {a.cpus}, {accel_desc(r)}, "
          f"{a.ms} ms a cell, {'median of ' + str(a.runs) + ' boots' if a.runs > 1 else 'one boot'} "
          f"(ip_route_output_key + ip_rt_put on every CPU at once)")
    pcts, cpus, cell = table(rows)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "route_lookup.json").write_text(json.dumps(
        {"config": a.config, "cpus": a.cpus, "accel": r.accel, "cpu": r.cpu,
         "accel_why": r.accel_why, "ms": a.ms, "runs": runs,
         "median": rows}, indent=1) + "\n")
    plot(pcts, cpus, cell, f"route cache lookups: {variant}, {r.accel}, -smp {a.cpus}, "
         f"{'median of ' + str(a.runs) + ' boots' if a.runs > 1 else 'one boot'} "
         f"(rcu: seed 000 2.4; rwlock: Linux 2.4; off: Linux 3.6+)", a.png)

