"""Seed 003 Table 1 for Quiescent: realtime scheduling latency under an RCU
callback load, for Base, krcud, direct invocation and throttle
(docs/rcu/realtime.md).

Boots configs/realtime_defconfig (1 CPU, preemptible, all three
options built in and switched at run time) with ktest=bench_amlat, once per
load: "light" (amlat.load=1000 callbacks a tick, about 2,000 per grace
period, the paper's 1,660) and "heavy" (the same rate queued as 30,000
callbacks every 30 ticks, the paper's 30,000 per grace period). All four
rows of one table come from one boot, measured one after the other under
the same load. With --smp N it also boots realtime_smp_defconfig at
-smp N (no direct invocation there: it needs one CPU).

Prints one table per boot (mean, standard deviation, p99 and max lateness
in microseconds, callbacks per grace period, p99 and max against Base),
checks the issue's targets, and writes build/amlat/amlat.json and
build/amlat/amlat-hist-<label>.png (a latency histogram per row).

  tools/amlat.py [--seconds 3] [--loads light,heavy] [--smp 2] [--kvm 0]
  make amlat [AMLAT_ARGS="--seconds 5 --smp 2"]
"""
import argparse
import json
import sys
from pathlib import Path

from qs import REPO
from qs.boot import accel_desc, boot
OUT = REPO / "build" / "amlat"
ROWS = ["base", "krcud", "direct", "throttle"]
NAMES = {"base": "Base", "krcud": "krcud", "direct": "Direct Invocation", "throttle": "Throttle"}
LOADS = {   # name -> (amlat.load, amlat.burst)
    "light": (1000, 1),
    "heavy": (1000, 30),
}


def run(label, cfg, cpus, load, burst, seconds, work, kvm, extra=""):
    cmd = (f"ktest=bench_amlat amlat.seconds={seconds} amlat.load={load} "
           f"amlat.burst={burst} amlat.work={work} {extra}").strip()
    r = boot(name=f"amlat-{cfg.replace('_defconfig', '')}", defconfig=cfg, boot="kernel",
                  cpus=cpus, cmdline=cmd, timeout=120 + 40 * seconds, kvm=kvm,
                  label=f"amlat-{label}")
    if r.status != "pass":
        print(f"amlat: {label}: the run ended as {r.describe_status()} (log {r.log_path})",
              file=sys.stderr)
    for why in r.console_problems():      # a console judged whole (qs.judge)
        print(f"amlat: {label}: {why} (log {r.log_path})", file=sys.stderr)
    rows = {b["mode"]: b for b in r.console.bench if b.get("bench") == "amlat"}
    hist = {b["mode"]: b for b in r.console.bench if b.get("bench") == "amlat_hist"}
    return dict(label=label, config=cfg, cpus=cpus, accel=r.accel, cpu=r.cpu,
                accel_why=r.accel_why, accel_desc=accel_desc(r), cmdline=cmd, status=r.status,
                log=str(r.log_path), rows=rows, hist=hist)


def us(ns):
    return ns / 1000.0


def table(res):
    rows, out = res["rows"], []
    base = rows.get("base")
    b0 = next(iter(rows.values()), {})
    out.append(f"amlat: {res['label']}: {res['config']} -smp {res['cpus']}, "
               f"{res.get('accel_desc', res['accel'])}, "
               f"HZ={b0.get('hz')}, load {b0.get('load_per_tick')} callbacks/tick"
               f"{' queued every %d ticks' % b0['burst'] if b0.get('burst', 1) > 1 else ''}, "
               f"work {b0.get('work')}, {b0.get('samples')} samples a row")
    out.append(f"{'Configuration':<18} {'mean':>9} {'stddev':>9} {'p99':>9} {'max':>9} "
               f"{'cbs/GP':>8} {'p99/base':>9} {'max/base':>9}   (microseconds)")
    for m in ROWS:
        b = rows.get(m)
        if not b:
            continue
        per_gp = b["cbs_per_gp"] if b["gps"] else None
        if m == "direct":
            per_gp_s = "(none)"
        elif b.get("burst", 1) > 1:
            per_gp_s = f"{b['load_per_tick'] * b['burst']}"
        else:
            per_gp_s = f"{per_gp:.0f}" if per_gp else "-"
        rp = f"{b['p99_ns'] / base['p99_ns']:.2f}" if base and base["p99_ns"] else "-"
        rm = f"{b['max_ns'] / base['max_ns']:.2f}" if base and base["max_ns"] else "-"
        out.append(f"{NAMES[m]:<18} {us(b['mean_ns']):9.1f} {us(b['stddev_ns']):9.1f} "
                   f"{us(b['p99_ns']):9.1f} {us(b['max_ns']):9.1f} {per_gp_s:>8} {rp:>9} {rm:>9}")
    return "\n".join(out)


def targets(res):
    """The issue's targets: each option halves p99 and max against Base; the
    best keeps p99 under 100 us under TCG. Reported, never asserted."""
    rows, lines = res["rows"], []
    base = rows.get("base")
    if not base:
        return ["targets: no Base row"]
    for m in ROWS[1:]:
        b = rows.get(m)
        if b:
            ok = b["p99_ns"] * 2 <= base["p99_ns"] and b["max_ns"] * 2 <= base["max_ns"]
            lines.append(f"target: {NAMES[m]} halves p99 and max against Base: "
                         f"{'met' if ok else 'NOT met'}")
        if b and b.get("lost"):
            lines.append(f"target: {NAMES[m]} lost {b['lost']} callbacks: NOT met")
    opts = [rows[m] for m in ROWS[1:] if m in rows]
    if opts:
        best = min(opts, key=lambda b: b["p99_ns"])
        lines.append(f"target: best option ({NAMES[best['mode']]}) p99 {us(best['p99_ns']):.1f} us "
                     f"< 100 us{' under TCG' if res['accel'] == 'tcg' else ''}: "
                     f"{'met' if best['p99_ns'] < 100000 else 'NOT met'}")
    return lines


def plot(res, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("amlat: matplotlib missing: no plot (make deps)", file=sys.stderr)
        return False
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for m in ROWS:
        h = res["hist"].get(m)
        if not h:
            continue
        w = h["bucket_us"]
        counts = h["counts"]
        edges = [i * w for i in range(len(counts) + 1)]
        ax.stairs(counts, edges, label=f"{NAMES[m]} (last bin: >= {w * (len(counts) - 1)} us)"
                  if m == "base" else NAMES[m], linewidth=1.6)
    ax.set_yscale("log")
    ax.set_xlabel("scheduling lateness of the SCHED_FIFO task (us)")
    ax.set_ylabel("wake-ups")
    b0 = next(iter(res["rows"].values()), {})
    ax.set_title(f"amlat on Quiescent ({res['label']}, -smp {res['cpus']}, {res['accel']}, "
                 f"{b0.get('load_per_tick', 0) * b0.get('burst', 1)} callbacks "
                 f"every {b0.get('burst', 1)} tick(s))", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=int, default=3, help="per row (default 3)")
    ap.add_argument("--loads", default="light,heavy", help="light, heavy or both (default)")
    ap.add_argument("--work", type=int, default=100, help="work units per callback (default 100)")
    ap.add_argument("--smp", type=int, default=0, help="also boot the SMP configuration at -smp N")
    ap.add_argument("--kvm", default="0", help="0 (TCG, default), 1 or auto")
    ap.add_argument("--args", default="",
                    help="more kernel command line, e.g. 'bhlimit=64 rcumaxbatch=128'")
    a = ap.parse_args()

    OUT.mkdir(parents=True, exist_ok=True)
    results = []
    for ld in a.loads.split(","):
        load, burst = LOADS[ld]
        results.append(run(f"{ld}-smp1", "realtime_defconfig", 1, load, burst,
                           a.seconds, a.work, a.kvm, a.args))
        if a.smp > 1:
            results.append(run(f"{ld}-smp{a.smp}", "realtime_smp_defconfig", a.smp, load,
                               burst, a.seconds, a.work, a.kvm, a.args))
    ok = True
    for res in results:
        print(table(res))
        for line in targets(res):
            print(line)
        png = OUT / f"amlat-hist-{res['label']}.png"
        if plot(res, png):
            print(f"amlat: histogram {png.relative_to(REPO)}")
        print()
        ok &= res["status"] == "pass"
    (OUT / "amlat.json").write_text(json.dumps(results, indent=1) + "\n")
    return 0 if ok else 1

