"""make soak: rcutorture on every RCU variant, long enough to matter.

Each run boots one variant's configuration at -smp CPUS with
`ktest=torture_rcu torture.duration=<minutes*60>` (docs/rcu/torture.md)
and prints one line; a table of every run ends the output, and the exit
status is non-zero if any run failed. Runs use the papers' timer periods
(configs/rcu_<variant>[_kpreempt]_defconfig as they are), unlike make
test's short torture runs, which shorten them to get hundreds of grace
periods in three seconds.

    tools/soak.py                                  # every variant, both models, 10 min, -smp 4
    tools/soak.py --minutes 1 --variants poll,sched --kpreempt none
    tools/soak.py --runs 3 --jobs 2                # three runs each, two at a time

A run passes only if torture says SUCCESS and its console has no
WARNING, BUG, Call Trace, panic or stall line (qs.judge): torture on a
real variant has none to expect.

Where a variant has no configuration for a model (the rcu-preempt variant needs the
preemptible kernel, tiny one CPU and no preemption), that run is
skipped and said so. Boots go through `tools/qrun.py boot`, so the logs
land in build/soak-<config>/logs/ like any other boot's.
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from qs import REPO, variants as rcu_variants
from qs.judge import console_problems

QRUN = REPO / "tools" / "qrun.py"

# The real variants (qs.variants) by name, as RCU= takes them
# (docs/rcu/README.md, "Names").
VARIANTS = [v.name for v in rcu_variants.real()]

SUMMARY = re.compile(r"rcu-torture: summary: (.*)")
VERDICT = re.compile(r"rcu-torture: (SUCCESS|FAILURE: .*)")
LOGPATH = re.compile(r"log=(\S+)")
# What qrun boot adds under a failure: the replay command (deterministic
# mode), else a sweep or a deterministic try (qs.replay.failure_lines).
REPLAY = re.compile(r"^\s*((?:replay|sweep|try)\b.*?: make .*)$", re.M)


def config_for(variant, model):
    """The defconfig and CPU count limit (its CONFIG_NR_CPUS) for a variant
    and preemption model, or None when the pair does not exist: the
    rcu-preempt variant's own defconfig is the preemptible kernel's, tiny's
    has one CPU."""
    for cfg, cfg_model, nr_cpus in rcu_variants.configs(rcu_variants.find(variant)):
        if cfg_model == model:
            return cfg, nr_cpus
    return None


def fields(summary):
    return dict(kv.split("=", 1) for kv in summary.split() if "=" in kv)


def run_one(variant, model, cpus, minutes, kvm, run):
    cfg = config_for(variant, model)
    if cfg is None:
        return dict(variant=variant, model=model, run=run, verdict="n/a")
    config, max_cpus = cfg
    cpus = min(cpus, max_cpus or cpus)
    secs = int(minutes * 60)
    cmd = [sys.executable, str(QRUN), "boot", "--name", f"soak-{config[:-len('_defconfig')]}",
           "--config", config, "--cpus", str(cpus), "--kvm", str(kvm),
           "--timeout", str(secs + 600),
           "--args", f"ktest=torture_rcu torture.duration={secs} torture.stat_interval=60 "
           "torture.segments=1"]
    t0 = time.time()
    p = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    out = p.stdout + p.stderr
    res = dict(variant=variant, model=model, run=run, cpus=cpus, wall=time.time() - t0,
               verdict="FAIL (no summary)", fields={}, log=None)
    m = LOGPATH.search(out)
    text = ""
    if m:
        res["log"] = m.group(1)
        try:
            text = (REPO / m.group(1)).read_text(errors="replace")
        except OSError:
            pass
    rp = REPLAY.search(out)
    res["replay"] = rp.group(1) if rp else ""
    s = SUMMARY.search(text)
    v = VERDICT.search(text)
    bad = console_problems(text) if text else []
    if s:
        res["fields"] = fields(s.group(1))
    if v and v.group(1) == "SUCCESS" and bad:
        res["verdict"] = "FAIL " + bad[0]
    elif v and v.group(1) == "SUCCESS" and p.returncode == 0:
        res["verdict"] = "PASS"
    elif v:
        res["verdict"] = "FAIL " + v.group(1)[len("FAILURE: "):] if v.group(1) != "SUCCESS" \
            else "FAIL (boot)"
    elif p.returncode:
        tail = [line for line in out.splitlines() if line.strip()][-3:]
        res["verdict"] = "FAIL " + " / ".join(t.strip() for t in tail)[:120]
    return res


def line(r):
    if r["verdict"] == "n/a":
        return f"SKIP  {r['variant']:12s} {r['model']:8s} run {r['run']}: no such configuration"
    f = r["fields"]
    return (f"{r['verdict'][:4]:5s} {r['variant']:12s} {r['model']:8s} run {r['run']} "
            f"smp={r['cpus']} {f.get('duration', '?'):>9s} gps={f.get('gps', '?')} "
            f"gps/s={f.get('gps/s', '?')} updates={f.get('updates', '?')} "
            f"reads={f.get('reads', '?')} errors={f.get('errors', '?')} "
            f"wall={r['wall']:.0f}s log={r['log']}"
            + ("" if r["verdict"] == "PASS" else f"  | {r['verdict']}"))


def table(results):
    rows = [r for r in results if r["verdict"] != "n/a"]
    print("\n| variant | model | runs | passed | errors | grace periods (each run) | updates (each run) |")
    print("|---|---|---|---|---|---|---|")
    keys = sorted({(r["variant"], r["model"]) for r in rows},
                  key=lambda k: (VARIANTS.index(k[0]) if k[0] in VARIANTS else 99, k[1]))
    for v, m in keys:
        rs = [r for r in rows if (r["variant"], r["model"]) == (v, m)]
        ok = sum(r["verdict"] == "PASS" for r in rs)
        errs = sum(int(r["fields"].get("errors", 0) or 0) for r in rs)
        gps = ", ".join(r["fields"].get("gps", "?") for r in rs)
        ups = ", ".join(r["fields"].get("updates", "?") for r in rs)
        print(f"| {v} | {m} | {len(rs)} | {ok} | {errs} | {gps} | {ups} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=float(os.environ.get("SOAK_MINUTES", 10)))
    ap.add_argument("--cpus", type=int, default=4)
    ap.add_argument("--variants", default=",".join(VARIANTS),
                    help="comma-separated, from: " + " ".join(VARIANTS))
    ap.add_argument("--kpreempt", default="both", choices=("none", "kpreempt", "both"),
                    help="the kernel's preemption model: none, kpreempt (CONFIG_KPREEMPT) or both")
    ap.add_argument("--runs", type=int, default=1, help="runs of each (default 1)")
    ap.add_argument("--jobs", type=int, default=1, help="boots at once (default 1)")
    ap.add_argument("--kvm", default=os.environ.get("KVM", "0"))
    a = ap.parse_args()
    variants = [v.strip().replace("_", "-") for v in a.variants.split(",") if v.strip()]
    bad = [v for v in variants if v not in VARIANTS]
    if bad:
        ap.error(f"unknown variant(s) {', '.join(bad)}; choose from: {' '.join(VARIANTS)}")
    if a.minutes <= 0 or a.runs < 1 or a.jobs < 1 or not 1 <= a.cpus <= 16:
        ap.error("--minutes > 0, --runs >= 1, --jobs >= 1, --cpus 1..16")
    models = ["none", "kpreempt"] if a.kpreempt == "both" else [a.kpreempt]
    plan = [(v, m, run) for run in range(1, a.runs + 1) for v in variants for m in models]
    print(f"soak: {len(plan)} runs of {a.minutes:g} min at -smp {a.cpus}, {a.jobs} at a time")
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        futs = [ex.submit(run_one, v, m, a.cpus, a.minutes, a.kvm, run) for v, m, run in plan]
        for f in concurrent.futures.as_completed(futs):
            r = f.result()
            results.append(r)
            print(line(r), flush=True)
            if r["verdict"] not in ("PASS", "n/a") and r.get("replay"):
                print(f"      {r['replay']}", flush=True)
    results.sort(key=lambda r: (r["run"], variants.index(r["variant"]), r["model"]))
    table(results)
    failed = [r for r in results if r["verdict"] not in ("PASS", "n/a")]
    print(f"\nsoak: {len(results) - len(failed)} of {len(results)} runs passed or skipped")
    return 1 if failed else 0

