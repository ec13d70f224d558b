"""Seed 004 Table 5 for Quiescent: semopbench with ipc=global (one lock for
the ID table, Linux 2.5.42) against ipc=rcu (seed 004), at each CPU count
(docs/ipc.md).

For every CPU count N, boots the default configuration with each mode at
-smp N, and runs user/bin/semopbench there: N processes, one per
CPU, each doing --ops semop() calls on its own set; --repeat runs per boot,
and --boots boots per mode, alternating global and rcu so that a change in
the host's load falls on both. Prints one table: seconds per run (the
fastest of each cell, the one the host disturbed least, since on a shared
machine the median measures the neighbours; the median beside it),
global/rcu, the rcu throughput against one process's in the same boots
(a ratio measured side by side) and, as a control, the same ratio for
getpid() loops (what any system call can scale to here), beside the paper's
515.3 s and 46.7 s; and the uncontended semop() round trip beside a null
system call. Writes
build/semopbench/semopbench.json and prints the figures as BENCH lines.
Benchmarks, not tests: nothing here passes or fails on a number.

  tools/semopbench.py [--cpus 1,2] [--ops 500000] [--repeat 3] [--boots 2] [--kvm 0]
  make semopbench [SEMOPBENCH_CPUS=1,2]
"""
import argparse
import json
import os
import statistics
import sys
from pathlib import Path

from qs import REPO
from qs.boot import boot
from qs.net import Nic
from qs.boot import accel_desc

OUT = REPO / "build" / "semopbench"
PAPER = {"cpus": 8, "global_s": 515.3, "rcu_s": 46.7,
         "machine": "8-CPU 700 MHz Pentium III, Linux 2.5.42-mm2"}


def host():
    model = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} host cores ({model})"


def run(mode, cpus, ops, repeat, kvm, k=0):
    # At -smp N > 1, one process alone as well, in the same boot: the
    # 1-CPU rate the N-process rate is compared with, side by side.
    one = f"semopbench 1 {ops}; " if cpus > 1 else ""
    script = "; ".join([f"{one}semopbench {cpus} {ops}"] * repeat)
    # The control, in the rcu boots: getpid() loops, which share nothing
    # but what every system call shares (and what TCG shares); four times
    # as many calls, which take about as long.
    if cpus > 1 and mode == "rcu":
        script += f"; semopbench 1 {4 * ops} null; semopbench {cpus} {4 * ops} null"
    script += "; poweroff"
    r = boot(name="test-defconfig", defconfig="defconfig", boot="kernel", cpus=cpus,
                  cmdline=f"ipc={mode} -- {script}", timeout=120 + repeat * ops * cpus // 20000,
                  kvm=kvm, label=f"semopbench-{mode}-smp{cpus}-{k}")
    if r.status not in ("pass", "poweroff"):
        print(f"semopbench: {mode} -smp {cpus}: the run ended as {r.describe_status()} "
              f"(log {r.log_path})", file=sys.stderr)
    for why in r.console_problems():      # a console judged whole (qs.judge)
        print(f"semopbench: {mode} -smp {cpus}: {why} (log {r.log_path})", file=sys.stderr)
    if f"ipc: semaphore ids: {mode} lookup" not in r.log:
        print(f"semopbench: {mode} -smp {cpus}: the kernel did not report ipc={mode} "
              f"(log {r.log_path})", file=sys.stderr)
        return None
    runs = [b for b in r.console.bench if b.get("bench") == "semopbench" and b["procs"] == cpus]
    singles = [b for b in r.console.bench if b.get("bench") == "semopbench" and b["procs"] == 1]
    trips = [b for b in r.console.bench if b.get("bench") == "user_semop_vs_null"]
    nulls = [b for b in r.console.bench if b.get("bench") == "semopbench_null"]
    if not runs:
        return None
    for b in runs + singles + trips:
        b["mode"] = mode
    return dict(mode=mode, cpus=cpus, ops=ops, accel=r.accel, cpu=r.cpu,
                accel_why=r.accel_why, accel_desc=accel_desc(r), runs=runs, singles=singles,
                trips=trips, nulls=nulls, logs=[str(r.log_path)],
                variant=runs[0].get("variant"))


def merge(a, b):
    """Two boots' results of one mode and CPU count as one: fastest and median of all runs."""
    if not a or not b:
        a = a or b
    else:
        a = dict(a, runs=a["runs"] + b["runs"], singles=a["singles"] + b["singles"],
                 trips=a["trips"] + b["trips"], nulls=a["nulls"] + b["nulls"],
                 logs=a["logs"] + b["logs"])
    if a:
        a["seconds_all"] = [x["total_ns"] / 1e9 for x in a["runs"]]
        a["seconds"] = min(a["seconds_all"])
        a["seconds_median"] = statistics.median(a["seconds_all"])
        a["ops_per_s"] = max(x["ops_per_s"] for x in a["runs"])
        # The same boots' one-process rate (at -smp 1, the runs themselves).
        ones = a["singles"] or a["runs"]
        a["one_ops_per_s"] = max(x["ops_per_s"] for x in ones)
        n1 = [x["ops_per_s"] for x in a["nulls"] if x["procs"] == 1]
        nn = [x["ops_per_s"] for x in a["nulls"] if x["procs"] == a["cpus"]]
        a["null_scaling"] = max(nn) / max(n1) if n1 and nn else None
    return a


def fmt(x, nd=3):
    return "?" if x is None else f"{x:.{nd}f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cpus", default="1,2", help="comma-separated CPU counts (default 1,2)")
    ap.add_argument("--ops", type=int, default=500000, help="semop() calls per process")
    ap.add_argument("--repeat", type=int, default=3, help="runs per boot")
    ap.add_argument("--boots", type=int, default=2, help="boots per mode and CPU count")
    ap.add_argument("--kvm", default="0")
    a = ap.parse_args()
    counts = [int(c) for c in a.cpus.split(",") if c]
    res = collect(counts, a.ops, a.repeat, a.boots, a.kvm)
    text, bench = report(res, counts, a.ops, a.repeat, a.boots)
    print(text)
    for b in bench:
        print("BENCH " + json.dumps(b))
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "table.md").write_text(text + "\n")
    (OUT / "semopbench.json").write_text(json.dumps(
        dict(paper=PAPER, host=host(), results={f"{m}-smp{n}": v for (m, n), v in res.items()},
             bench=bench), indent=1))
    print(f"semopbench: written to {OUT}/table.md and semopbench.json", file=sys.stderr)


def collect(counts, ops, repeat, boots, kvm):
    """Every boot: {(mode, cpus): merged results} (tools/figures.py calls this too)."""
    res = {}
    for n in counts:
        for k in range(boots):
            for mode in ("global", "rcu"):
                print(f"semopbench: ipc={mode} at -smp {n} (boot {k + 1} of {boots}) ...",
                      file=sys.stderr)
                res[(mode, n)] = merge(res.get((mode, n)), run(mode, n, ops, repeat, kvm, k))
    return res


def report(res, counts, ops, repeat, boots):
    """The table as text, and the BENCH objects of its figures."""
    accel = "; ".join(sorted({r.get("accel_desc", r["accel"]) for r in res.values() if r})) or "?"
    variant = next((r["variant"] for r in res.values() if r), "?")
    lines = [f"semopbench (seed 004 Table 5): one process per CPU, each {ops} semop() calls "
             f"on its own set; the fastest of {repeat} runs in each of {boots} boots per cell "
             f"(median in brackets)",
             f"machine: {host()}; QEMU {accel}; defconfig ({variant}); one boot per mode "
             f"and CPU count",
             "",
             "| CPUs | ipc=global (s) | ipc=rcu (s) | global/rcu | rcu Mops/s | rcu: N processes vs 1, "
             "same boots (target >= 0.9 N) | control: getpid() N vs 1 |",
             "|---|---|---|---|---|---|---|"]
    bench = []
    for n in counts:
        g, r = res.get(("global", n)), res.get(("rcu", n))
        ratio = g["seconds"] / r["seconds"] if g and r else None
        scale = r["ops_per_s"] / r["one_ops_per_s"] if r else None
        note = "" if n <= (os.cpu_count() or 1) else " (more vCPUs than host cores)"
        def cell(x):
            return "?" if not x else f"{x['seconds']:.3f} ({x['seconds_median']:.3f})"
        lines.append(f"| {n}{note} | {cell(g)} | {cell(r)} | "
                     f"{fmt(ratio, 2)} | {fmt(r and r['ops_per_s'] / 1e6, 2)} | "
                     f"{fmt(scale, 2)} (of {n}) | {fmt(r and r.get('null_scaling'), 2)} |")
        bench.append(dict(bench="semopbench_table", cpus=n, ops_per_proc=ops,
                          global_s=g and g["seconds"], rcu_s=r and r["seconds"],
                          global_median_s=g and g["seconds_median"],
                          rcu_median_s=r and r["seconds_median"],
                          global_over_rcu=ratio, rcu_scaling=scale,
                          null_scaling=r and r.get("null_scaling"), accel=accel))
    lines.append(f"| paper: {PAPER['cpus']} ({PAPER['machine']}) | {PAPER['global_s']} | "
                 f"{PAPER['rcu_s']} | {PAPER['global_s'] / PAPER['rcu_s']:.2f} | | | |")
    trips = [t for r in res.values() if r for t in r["trips"]]
    if trips:
        lines.append("")
        lines.append("uncontended semop() round trip beside a null system call (getpid), "
                     "one process (target: within 2x):")
        for mode in ("global", "rcu"):
            ts = [t for t in trips if t["mode"] == mode]
            if ts:
                sem = min(t["semop_ns"] for t in ts)
                null = min(t["null_ns"] for t in ts)
                lines.append(f"  ipc={mode}: semop {sem:.0f} ns, getpid {null:.0f} ns: "
                             f"{sem / null:.2f}x (the fastest of {len(ts)})")
                bench.append(dict(bench="semop_round_trip", mode=mode, semop_ns=sem,
                                  null_ns=null, ratio=sem / null, accel=accel))
    return "\n".join(lines), bench

