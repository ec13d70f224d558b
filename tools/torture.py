#!/usr/bin/env python3
"""make torture / make torture-bisect: rcutorture scenarios by pattern and
count, for a chosen duration, with one summary table (docs/rcu/torture.md).

    tools/torture.py run '3*torture-poll*' --duration 2m
    tools/torture.py run 'torture-segments*,torture-preempt*' --duration 30s
    tools/torture.py bisect --good v1 --bad HEAD 'torture-poll-smp4' --duration 10s

A pattern is [N*]GLOB over scenario case names (tools/qrun.py scenario
--list shows them); N runs each match N times. Only cases that run
rcutorture (ktest=torture_rcu...) are taken. The duration (s, m or h)
replaces the case's torture.duration. Cases boot through qs.scenario and
are judged by it (qs.judge: the console whole), so a run here passes
exactly when make test's would at that duration; builds go through make,
which rebuilds nothing when nothing changed.

--seeds 1-50 (make torture SEEDS=1-50) runs each case once per
torture.seed, --shifts 2,3,4 (SHIFTS=) once per -icount shift too: in
the deterministic mode (DETERMINISTIC=1) each is a different
interleaving, explored on purpose, and each reproducible: the failed
ones are listed at the end with their `make replay` commands, and a
seed that fails fails every time it is run. (Without the mode the seeds
still differ, but the host picks the interleaving: nothing replays.)

bisect wraps `git bisect run` around `run`: a commit whose runs all pass
is good (exit 0), one that fails is bad (1), one that does not build, or
that the run cannot judge (no such scenario there, a harness that
raises), is skipped (125). It copies this file aside first, since older
commits may not have it.
"""
import argparse
import dataclasses
import re
import shutil
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path

# Beside qs/, or (a bisect's copy) in the tree being bisected, the cwd.
TOOLS = Path(__file__).resolve().parent
if not (TOOLS / "qs").is_dir():
    TOOLS = Path.cwd() / "tools"
sys.path.insert(0, str(TOOLS))
try:
    from qs import REPO, replay
    from qs.build import BuildError
    from qs.scenario import run_scenario, scenarios
except ImportError:
    if "--untestable-skips" not in sys.argv:
        raise
    # A bisect's commit whose harness lacks what this runner needs.
    traceback.print_exc()
    print("torture: this commit's tools/qs cannot run it: skipping it", file=sys.stderr)
    sys.exit(125)

SUMMARY = re.compile(r"rcu-torture: summary: (.*)$", re.M)
DURATION = re.compile(r"torture\.duration=\S+")


def seconds(text):
    """'90', '90s', '2m', '1h' -> seconds."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smh]?)\s*", text)
    if not m:
        raise argparse.ArgumentTypeError(f"duration {text!r}: a number with s, m or h")
    n = float(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[m.group(2)]
    if n < 1:
        raise argparse.ArgumentTypeError(f"duration {text!r}: at least 1 s")
    return int(n)


def numbers(text):
    """'1-50', '3', '1,4,9-12' -> [1, ..., 50] ... (qs.replay.numbers)."""
    try:
        return replay.numbers(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e))


def with_seed(case, seed):
    """case with torture.seed=seed on its command line (before any " -- ")."""
    if seed is None:
        return case
    return dataclasses.replace(case, cmdline=replay.seeded_cmdline(case.cmdline, seed))


def plan(patterns):
    """[(case, run number)] for 'N*glob' terms, comma- or space-separated."""
    out = []
    for term in re.split(r"[,\s]+", patterns.strip()):
        if not term:
            continue
        m = re.fullmatch(r"(\d+)\*(.+)", term)
        count, glob = (int(m.group(1)), m.group(2)) if m else (1, term)
        cases = [c for c in scenarios([glob]) if "torture_rcu" in c.cmdline]
        if not cases:
            raise SystemExit(f"torture: no rcutorture scenario matches {glob!r} "
                             f"(tools/qrun.py scenario --list)")
        out += [(c, i + 1) for c in cases for i in range(count)]
    return out


def with_duration(case, secs):
    if secs is None:
        return case
    cmd = DURATION.sub(f"torture.duration={secs}", case.cmdline)
    if cmd == case.cmdline and "torture.duration=" not in cmd:
        cmd += f" torture.duration={secs}"
    # Room for the drain and a slow host: the run's own time, twice over.
    return dataclasses.replace(case, cmdline=cmd, timeout=max(case.timeout, 2 * secs + 120))


def one(case, run, kvm):
    row = dict(case=case.name, run=run, verdict="FAIL", why="", f={}, log="", replay="")
    try:
        r, why, _ = run_scenario(case, kvm=kvm, cache=False)
    except BuildError as e:
        row.update(verdict="BUILD", why=str(e).splitlines()[0][:100])
        return row
    m = SUMMARY.search(r.log or "")
    if m:
        row["f"] = dict(kv.split("=", 1) for kv in m.group(1).split() if "=" in kv)
    row["log"] = str(getattr(r, "log_path", "") or "")
    if why:
        row["why"] = why[0][:100]
        row["replay"] = next((w for w in why if w.startswith(("replay", "sweep", "try"))), "")
    else:
        row["verdict"] = "PASS"
    return row


def table(rows):
    print("\n| case | run | variant | cpus | preemption | s | GPs/s | reads | updates | errors "
          "| verdict |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for w in rows:
        f = w["f"]
        ms = f.get("duration", "?").rstrip("ms")
        secs = f"{int(ms) / 1000:.1f}" if ms.isdigit() else "?"
        verdict = w["verdict"] + (f": {w['why']}" if w["why"] else "")
        print(f"| {w['case']} | {w['run']} | {f.get('variant', '?')} | {f.get('cpus', '?')} "
              f"| {f.get('preemption', '?')} | {secs} | {f.get('gps/s', '?')} "
              f"| {f.get('reads', '?')} | {f.get('updates', '?')} | {f.get('errors', '?')} "
              f"| {verdict} |")


def cmd_run(a):
    try:
        todo = plan(a.scen)
    except SystemExit as e:
        if not a.untestable_skips:
            raise
        # A commit from before the scenario existed: it can be neither good
        # nor bad. Exit 1 here named the first such commit the culprit.
        print(f"{e}: skipping this commit", file=sys.stderr)
        return 125
    seeds = a.seeds or [None]
    shifts = a.shifts or [None]
    if (a.seeds or a.shifts) and not replay.enabled():
        print("torture: not in the deterministic mode (DETERMINISTIC=1): the seeds differ, "
              "but the host picks the interleaving and no run replays", file=sys.stderr)
    todo = [(c, r, seed, sh) for c, r in todo for sh in shifts for seed in seeds]
    print(f"torture: {len(todo)} runs"
          + (f" of {a.duration} s each" if a.duration else " at each case's own duration"))
    rows = []
    for case, run, seed, sh in todo:
        if sh is not None:
            replay.enable(True, sh)
        row = one(with_seed(with_duration(case, a.duration), seed), run, a.kvm)
        row.update(seed=seed, shift=sh)
        rows.append(row)
        tag = "".join(f" {k}={v}" for k, v in (("seed", seed), ("shift", sh)) if v is not None)
        print(f"{row['verdict']:5s} {case.name} run {run}{tag}: "
              f"gps/s={row['f'].get('gps/s', '?')} errors={row['f'].get('errors', '?')} "
              f"{row['why']}", flush=True)
    table(rows)
    passed = sum(w["verdict"] == "PASS" for w in rows)
    print(f"\ntorture: {passed} of {len(rows)} runs passed")
    failed = [w for w in rows if w["verdict"] != "PASS"]
    if failed and (a.seeds or a.shifts):
        print("torture: failed: " + ", ".join(
            f"{w['case']}" + "".join(f" {k}={w[k]}" for k in ("seed", "shift") if w[k] is not None)
            for w in failed))
    for w in failed:
        if w["replay"]:
            print(f"  {w['case']}" + "".join(f" {k}={w[k]}" for k in ("seed", "shift")
                                            if w.get(k) is not None) + f": {w['replay']}")
    if any(w["verdict"] == "BUILD" for w in rows):
        return 125
    return 0 if passed == len(rows) else 1


def cmd_bisect(a):
    aside = Path(tempfile.mkdtemp(prefix="torture-bisect-")) / "torture.py"
    shutil.copy(Path(__file__), aside)
    git = ["git", "-C", str(REPO)]
    subprocess.run(git + ["bisect", "start", a.bad, a.good], check=True)
    try:
        cmd = [sys.executable, str(aside), "run", a.scen, "--kvm", a.kvm,
               "--untestable-skips"]
        if a.duration:
            cmd += ["--duration", f"{a.duration}s"]
        rc = subprocess.run(git + ["bisect", "run"] + cmd).returncode
        subprocess.run(git + ["bisect", "log"])
    finally:
        subprocess.run(git + ["bisect", "reset"])
    return rc


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("run", "bisect"):
        p = sub.add_parser(name)
        p.add_argument("scen", help="[N*]GLOB[,...] over scenario case names")
        p.add_argument("--duration", type=seconds, default=None,
                       help="torture.duration for every run: 90, 90s, 2m, 1h")
        p.add_argument("--kvm", default="0")
        if name == "run":
            p.add_argument("--seeds", type=numbers, default=None,
                           help="one run per torture.seed: 1-50, 1,4,9-12")
            p.add_argument("--shifts", type=numbers, default=None,
                           help="one run per -icount shift (the deterministic mode): 2,3,4")
            # bisect's: a commit the run cannot judge (no such scenario, a
            # harness older than this runner that raises) exits 125, skip.
            p.add_argument("--untestable-skips", action="store_true", help=argparse.SUPPRESS)
        if name == "bisect":
            p.add_argument("--good", required=True)
            p.add_argument("--bad", default="HEAD")
    a = ap.parse_args()
    if a.cmd == "bisect":
        return cmd_bisect(a)
    if not a.untestable_skips:
        return cmd_run(a)
    try:
        return cmd_run(a)
    except Exception:
        traceback.print_exc()
        print("torture: the run could not judge this commit: skipping it", file=sys.stderr)
        return 125


if __name__ == "__main__":
    sys.exit(main())
