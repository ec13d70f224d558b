#!/usr/bin/env python3
"""make mutants: does rcutorture (and the other RCU checks) catch real bugs?

Each file in tests/mutants/*.toml plants one realistic bug in one RCU
variant: a quiescent state counted too early, a stale snapshot, a CPU
left out of a mask, callbacks invoked one batch early, an ordering
dropped. For each mutant this tool copies the tree into a scratch
directory (build/mutants/src; the real tree is never touched), replaces
the mutant's `find` text with its `replace` text (which must occur exactly
once), builds, and boots the check that should catch it, with the same
parameters make test (or make soak) gives it. A mutant is CAUGHT when the
check fails (a WARNING, BUG, Call Trace, panic or stall line in its
console fails it too: qrun.py boot judges the console whole, qs.judge),
MISSED when it passes; a mutant whose text no longer matches
or that does not build is STALE and must be fixed.

    tools/mutants.py                  # all
    tools/mutants.py 'poll*' --repeat 3
    tools/mutants.py --list

A mutant file:

    description = "what the bug is and why a real one could look like it"
    variant = "poll"
    kind = "stale snapshot"           # one of KINDS below
    file = "kernel/rcu/rcu_poll.c"
    find = '''exact text'''
    replace = '''the bug'''
    config = "rcu_poll_defconfig"     # the check to run: a boot as in a scenario
    options = []                      # CONFIG_X=y added to it
    cpus = 4
    cmdline = "ktest=torture_rcu torture.duration=3"
    net = "user"                      # optional: an e1000 on user networking
    budget = "test"                   # "test": a make test run; "soak": make soak's
    site = ['regex', ...]             # optional: CAUGHT only if each is in the
                                      # symbolized log (qs.symbolize): KASAN's
                                      # report naming the access and free lines
    [lab]                             # optional, ignored here: what a lab that
                                      # plants the bug says of it (Lab 8's bugs,
                                      # labs/instructor/lab8/bugs/)
"""
import argparse
import fnmatch
import os
import re
import subprocess
import sys
import time
import tomllib
from pathlib import Path

from qs import replay
from qs.build import boot_timeout
from qs.symbolize import symbolize
from qs.sync_tree import sync_tree

REPO = Path(__file__).resolve().parent.parent
MUTANTS = REPO / "tests" / "mutants"
SCRATCH = REPO / "build" / "mutants" / "src"
KINDS = ("quiescent state too early", "stale snapshot", "cpu left out",
         "callbacks a batch early", "ordering dropped", "wrong context",
         "lock order reversed", "wrong comparison", "returns early",
         "callbacks dropped", "resource leaked")
KEYS = {"description", "variant", "kind", "file", "find", "replace", "config", "options",
        "cpus", "cmdline", "net", "budget", "timeout", "site", "lab"}


def load(path):
    m = tomllib.loads(path.read_text())
    unknown = set(m) - KEYS
    missing = {"description", "variant", "kind", "file", "find", "replace", "config",
               "cmdline"} - set(m)
    if unknown or missing:
        raise ValueError(f"{path.name}: unknown keys {sorted(unknown)}, missing {sorted(missing)}")
    if m["kind"] not in KINDS:
        raise ValueError(f"{path.name}: kind must be one of {', '.join(KINDS)}")
    m.setdefault("options", [])
    m.setdefault("cpus", 4)
    m.setdefault("budget", "test")
    m.setdefault("timeout", 240)
    m.setdefault("site", [])
    m["name"] = path.stem
    return m


ERROR = re.compile(r"\[\s*(\d+\.\d+)\] cpu\d+: (rcu-torture: ERROR: .*|rcu-torture: FAILURE.*|"
                   r"(?:PANIC|panic|BUG|WARNING:|INFO: .*detected stall|kmalloc: poison).*)")
KTAP_FAIL = re.compile(r"^\s*# .*expected.*$", re.M)


def first_evidence(log_text):
    m = ERROR.search(log_text)
    if m:
        return float(m.group(1)), m.group(2)[:150]
    m = KTAP_FAIL.search(log_text)
    return None, (m.group(0).strip()[:150] if m else "")


def run(m, kvm, seed=None):
    """Plant m, boot its check, restore. (verdict, seconds, evidence, log).
    seed: in the deterministic mode, torture.seed=seed on its command line."""
    target = SCRATCH / m["file"]
    pristine = (REPO / m["file"]).read_text()
    if pristine.count(m["find"]) != 1:
        return "STALE", 0, f"`find` occurs {pristine.count(m['find'])} times in {m['file']}", None
    target.write_text(pristine.replace(m["find"], m["replace"]))
    opts = sorted(m["options"])
    name = "mut-" + m["config"][:-len("_defconfig")] + "".join(
        "+" + o.replace("CONFIG_", "").replace("=", "-") for o in opts)
    timeout = boot_timeout(m["timeout"], name, m["config"], opts, SCRATCH)
    cmdline = m["cmdline"] if seed is None else replay.seeded_cmdline(m["cmdline"], seed)
    cmd = [sys.executable, str(SCRATCH / "tools" / "qrun.py"), "boot", "--name", name,
           "--config", m["config"], "--cpus", str(m["cpus"]), "--args", cmdline,
           "--timeout", str(timeout), "--kvm", str(kvm), "--expect", "pass"]
    if seed is not None:
        cmd += ["--deterministic"]
    if m.get("net"):
        cmd += ["--net", m["net"]]
    for o in opts:
        cmd += ["--option", o]
    t0 = time.time()
    try:
        p = subprocess.run(cmd, cwd=SCRATCH, capture_output=True, text=True)
    finally:
        target.write_text(pristine)
    wall = time.time() - t0
    out = p.stdout + p.stderr
    log = re.search(r"log=(\S+)", out)
    log = (SCRATCH / log.group(1)) if log else None
    if p.returncode == 2 or "build failed" in out.lower() or "BuildError" in out:
        return "STALE", wall, "does not build: " + out.strip().splitlines()[-1][:150], log
    if p.returncode == 0:
        return "MISSED", wall, "", log
    text = log.read_text(errors="replace") if log and log.exists() else out
    at, why = first_evidence(text)
    if not why:
        why = next((line.strip() for line in out.splitlines() if line.startswith("FAIL")), "")
    if m["site"]:
        text = symbolize(text.replace("\r", ""), SCRATCH / "build" / name / "quiescent.elf")
        for rx in m["site"]:
            found = re.search(rx, text, re.M)
            if not found:
                return "UNNAMED", wall, f"caught, but the log does not name the site /{rx}/", log
        why = re.sub(r"^\[\s*\d+\.\d+\] cpu\d+: ", "", re.search(m["site"][0], text, re.M).group(0))[:200]
    return "CAUGHT", at if at is not None else wall, why, log


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("patterns", nargs="*", help="mutant names or globs (default: all)")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each mutant")
    ap.add_argument("--list", action="store_true", help="list the mutants and stop")
    ap.add_argument("--kvm", default=os.environ.get("KVM", "0"))
    ap.add_argument("--seeds", type=replay.numbers, default=None,
                    help="deterministic mode, once per torture seed (1-10, 1,4,9-12): a "
                         "mutant a seed catches, it catches every time (docs/replay.md)")
    a = ap.parse_args()
    paths = sorted(MUTANTS.glob("*.toml"))
    try:
        muts = [load(p) for p in paths]
    except (ValueError, tomllib.TOMLDecodeError) as e:
        print(f"mutants: {e}", file=sys.stderr)
        return 2
    if a.patterns:
        muts = [m for m in muts if any(fnmatch.fnmatch(m["name"], p) for p in a.patterns)]
        if not muts:
            print(f"mutants: nothing matches {' '.join(a.patterns)}; "
                  f"there are: {' '.join(p.stem for p in paths)}", file=sys.stderr)
            return 2
    if a.list:
        for m in muts:
            print(f"{m['name']:32s} {m['variant']:16s} {m['kind']:26s} {m['description']}")
        return 0
    print(f"mutants: {len(muts)} mutants x {a.repeat}, scratch tree {SCRATCH.relative_to(REPO)}")
    SCRATCH.mkdir(parents=True, exist_ok=True)
    sync_tree(SCRATCH)
    rows, bad = [], 0
    for m in muts:
        verdicts = []
        for seed in (a.seeds or [None]):
            for i in range(a.repeat):
                v, secs, why, log = run(m, a.kvm, seed)
                verdicts.append(v)
                where = f" log={log.relative_to(REPO)}" if log else ""
                tag = f" seed={seed}" if seed is not None else ""
                print(f"{v:7s} {m['name']:32s} {m['kind']:26s}{tag} "
                      + (f"after {secs:.1f}s: {why}" if v == "CAUGHT" else why) + where, flush=True)
                if v == "STALE":
                    break
            if "STALE" in verdicts:
                break
        caught = verdicts.count("CAUGHT")
        rows.append((m, caught, len(verdicts), "STALE" in verdicts))
        bad += caught < len(verdicts)
    print("\n| mutant | variant | kind | check | caught |")
    print("|---|---|---|---|---|")
    for m, caught, n, stale in rows:
        check = f"{m['cmdline']} -smp {m['cpus']}" + (f" ({', '.join(m['options'])})"
                                                      if m["options"] else "")
        print(f"| {m['name']} | {m['variant']} | {m['kind']} | `{check}` | "
              + ("STALE" if stale else f"{caught}/{n}") + " |")
    print(f"\nmutants: {sum(c == n and not s for _, c, n, s in rows)} of {len(rows)} caught every time")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
