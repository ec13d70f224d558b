#!/usr/bin/env python3
"""Lab 8 (labs/lab8-find-the-bug/README.md): one planted RCU bug per student.

    lab8.py plant --student ID      # hash ID to one of the bugs, plant it in this tree
    lab8.py plant --pick N          # the instructor's choice: bug N (lab8.py list)
    lab8.py workload [--kasan|--kcsan|--deterministic]
                                    # the command that reproduces the planted bug
    lab8.py list                    # the bugs (instructor: labs/instructor/lab8/)
    lab8.py which [--file]          # the bug this tree's planted.toml names (--file:
                                    # only its source file)
    lab8.py rate [NAME...] --repeat 10
                                    # each bug planted in a scratch copy, its
                                    # workload booted N times: how often a tool
                                    # reports it
    lab8.py grade CHECK             # one check of grade.toml (tools/grade.py runs it)
    lab8.py measure [--write]       # the instructor's: what the grader measures for
                                    # each bug (--write: into the reference answers)

The bugs are tools/mutants.py's files (find/replace on one source file, the
check that catches it) with a [lab] table, in labs/instructor/lab8/bugs/.
Planting writes labs/lab8-find-the-bug/planted.toml (the student's id, or
the pick) and keeps the file as it was in build/lab8/pristine/, which the
grader's "before" boot plants again.
"""
import argparse
import hashlib
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))

import mutants  # noqa: E402  (tools/mutants.py: the bug files' format and runner)
from qs import replay  # noqa: E402
from qs.build import boot_timeout  # noqa: E402
from qs.symbolize import symbolize  # noqa: E402
from qs.sync_tree import sync_tree, tree_files  # noqa: E402

LAB = REPO / "labs" / "lab8-find-the-bug"
BUGS = REPO / "labs" / "instructor" / "lab8" / "bugs"
PLANTED = LAB / "planted.toml"
ANSWERS = LAB / "answers.toml"
WORK = REPO / "build" / "lab8"
PRISTINE = WORK / "pristine"


class LabError(Exception):
    pass


# ------------------------------------------------------------------ the bugs
_bugs = []


def bugs():
    """The bugs, in a fixed order (by name): the pick indexes it."""
    if _bugs:
        return _bugs
    if not BUGS.is_dir():
        raise LabError(f"{BUGS.relative_to(REPO)} is missing: the bugs are the instructor's "
                       "(a student's copy of the tree comes planted)")
    _bugs.extend(mutants.load(p) for p in sorted(BUGS.glob("*.toml")))
    return _bugs


def pick_of(student):
    """The bug index a student id hashes to: the same id, the same bug, on
    any machine (sha256, not Python's salted hash())."""
    return int.from_bytes(hashlib.sha256(student.strip().encode()).digest()[:8], "big")


def chosen(planted=None):
    """(bug, planted table) for this tree's planted.toml."""
    if planted is None:
        if not PLANTED.exists():
            raise LabError("no bug planted here: run `make lab8 STUDENT=<your id>` first "
                           f"({PLANTED.relative_to(REPO)} is missing)")
        planted = tomllib.loads(PLANTED.read_text())
    all_bugs = bugs()
    if "pick" in planted:
        n = int(planted["pick"])
    elif "student" in planted:
        n = pick_of(str(planted["student"]))
    else:
        raise LabError(f"{PLANTED.relative_to(REPO)} names no student and no pick")
    return all_bugs[n % len(all_bugs)], planted


def build_name(m, prefix):
    opts = sorted(m["options"])
    return prefix + m["config"][:-len("_defconfig")] + "".join(
        "+" + o.replace("CONFIG_", "").replace("=", "-") for o in opts)


# ------------------------------------------------------------------ rates
def rate(names, repeat, kvm):
    """Each bug through tools/mutants.py's runner `repeat` times."""
    chosen_bugs = [m for m in bugs() if not names or m["name"] in names]
    mutants.SCRATCH.mkdir(parents=True, exist_ok=True)
    sync_tree(mutants.SCRATCH)
    rows, bad = [], 0
    for m in chosen_bugs:
        verdicts, times = [], []
        for _ in range(repeat):
            v, secs, why, log = mutants.run(m, kvm)
            verdicts.append(v)
            times.append(secs)
            print(f"{v:7s} {m['name']:28s} after {secs:.1f}s: {why}", flush=True)
            if v == "STALE":
                break
        caught = verdicts.count("CAUGHT")
        rows.append((m, caught, len(verdicts)))
        bad += caught < repeat
    print("\n| bug | user | class | tool | workload | reported |")
    print("|---|---|---|---|---|---|")
    for m, caught, n in rows:
        lab = m.get("lab", {})
        print(f"| {m['name']} | {lab.get('user', '')} | {lab.get('class', '')} | "
              f"{lab.get('tool', '')} | `{m['cmdline']}` -smp {m['cpus']} "
              f"{' '.join(m['options'])} | {caught}/{n} |")
    return 1 if bad else 0


# ------------------------------------------------------------------ planting
def plant(student=None, pick=None, force=False):
    if PLANTED.exists() and not force:
        raise LabError(f"a bug is planted here already ({PLANTED.relative_to(REPO)}); "
                       "FORCE=1 plants another over a tree you have restored")
    planted = {"pick": pick} if pick is not None else {"student": student}
    m, _ = chosen(planted)
    target = REPO / m["file"]
    text = target.read_text()
    if text.count(m["find"]) != 1:
        raise LabError(f"the bug's text occurs {text.count(m['find'])} times in its file, "
                       "not once: restore the file (git checkout) or use a fresh tree")
    out = PRISTINE / m["file"]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    target.write_text(text.replace(m["find"], m["replace"]))
    key = "pick" if pick is not None else "student"
    PLANTED.write_text("# Lab 8: the bug planted in this tree (make lab8). The grader reads\n"
                       "# this file: keep it as it is.\n"
                       f"{key} = {planted[key]!r}\n".replace("'", '"'))
    print(f"lab8: one RCU bug is planted in this tree ({PLANTED.relative_to(REPO)} says for whom).")
    print("lab8: what reproduces it (make lab8-workload prints this again):\n")
    print(workload_text(m))
    return 0


def make_args(m):
    """make run's short form of the bug's configuration."""
    mm = re.match(r"rcu_(\w+?)(_kpreempt)?_defconfig$", m["config"])
    if not mm:
        return f"CONFIG={m['config']}"
    return f"RCU={mm.group(1)}" + (" KPREEMPT=1" if mm.group(2) else "")


def workload_text(m):
    """The bug report a student starts from: the workload, and the same
    with each tool, without naming the bug."""
    q = replay._q(m["cmdline"])
    run = f"make run {make_args(m)} BOOT=kernel CPUS={m['cpus']} ARGS={q}"
    lines = [f"  the workload:          {run}",
             f"  with KASAN:            {run} KASAN=1",
             f"  with KCSAN:            {run} KCSAN=1",
             "  deterministic, judged: python3 tools/qrun.py boot --deterministic --name "
             f"{build_name(m, 'lab8-det-')} --config {m['config']} --cpus {m['cpus']} --args {q}"
             + "".join(f" --option {o}" for o in sorted(m["options"])),
             "  replay, gdb stopped 2 ms before the first failure:",
             "                         " + replay.replay_command(
                 m["config"], m["cpus"], m["cmdline"], m["options"], s=3, stop=-2)]
    return "\n".join(lines)


# ------------------------------------------------------------------ grading
def kvm():
    return os.environ.get("KVM", "0")


def boot(tree, name, m, deterministic=False):
    """One qrun.py boot of m's check (its config, options, cpus, cmdline)
    in tree: (passed, log path or None, qrun's last line)."""
    timeout = boot_timeout(m.get("timeout", 240), name, m["config"], m.get("options", []), tree)
    if deterministic:
        timeout *= 10            # one thread for every vCPU (docs/replay.md)
    cmd = [sys.executable, str(tree / "tools" / "qrun.py"), "boot", "--name", name,
           "--config", m["config"], "--cpus", str(m.get("cpus", 4)), "--args", m["cmdline"],
           "--timeout", str(timeout), "--kvm", kvm(), "--expect", "pass"]
    for o in sorted(m.get("options", [])):
        cmd += ["--option", o]
    if deterministic:
        cmd += ["--deterministic", "--shift", "3"]
    env = {k: v for k, v in os.environ.items() if k not in ("QS_DETERMINISTIC", "QS_SHIFT")}
    p = subprocess.run(cmd, cwd=tree, capture_output=True, text=True, env=env)
    out = (p.stdout + p.stderr).strip()
    log = re.search(r"log=(\S+)", out)
    last = out.split("\n")[-1] if out else ""
    return p.returncode == 0, (tree / log.group(1)) if log else None, last


def planted_text(m):
    """The bug's file as the student received it: the pristine copy that
    planting kept, planted again; or this tree's, with the find text (an
    unplanted tree, or one fixed by restoring it) or with the bug."""
    for src in (PRISTINE / m["file"], REPO / m["file"]):
        if src.exists():
            text = src.read_text()
            if text.count(m["find"]) == 1:
                return text.replace(m["find"], m["replace"])
            if text.count(m["replace"]) == 1 and m["find"] not in text:
                return text
    raise LabError(f"cannot rebuild the planted kernel: {m['file']} holds neither the bug nor "
                   f"the text it replaced, and {PRISTINE.relative_to(REPO)} is gone")


def tree_list():
    """The tree's files. In the grader's own scratch copy
    (build/grade/lab8-*/src), which is no git work tree, the list that
    made it (its .synced)."""
    synced = REPO / ".synced"
    if synced.exists() and not (REPO / ".git").exists():
        return [f for f in synced.read_text().split("\n") if f and (REPO / f).is_file()]
    return tree_files(REPO)


def copy_tree(dst):
    """dst as a copy of the tree: sync_tree where the tree is a git work
    tree; else each listed file whose bytes differ, written (a fresh
    mtime: make compiles it again)."""
    if (REPO / ".git").exists():
        sync_tree(dst)
        return
    for f in tree_list():
        src, out = REPO / f, dst / f
        data = src.read_bytes()
        if not out.exists() or out.read_bytes() != data:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(data)
            out.chmod(src.stat().st_mode)


def grader_run(m):
    """The grader's own deterministic boot of the planted kernel (a scratch
    copy in build/lab8/src): (failed as it must, raw log, symbolized log).
    Cached while the planted file and the check are the same."""
    text = planted_text(m)
    boot_keys = [m[k] for k in ("config", "options", "cpus", "cmdline", "timeout")]
    h = hashlib.sha256((text + repr(boot_keys)).encode())
    for f in tree_list():                # the rest of the tree is in the boot too
        if f != m["file"] and not f.startswith("labs/"):     # answers are not
            h.update(f.encode() + b"\0" + (REPO / f).read_bytes())
    key = h.hexdigest()
    cache = WORK / "grader"
    if (cache / "key").exists() and (cache / "key").read_text() == key:
        return ((cache / "failed").read_text() == "1", (cache / "log").read_text(),
                (cache / "log.sym").read_text())
    dst = WORK / "src"
    dst.mkdir(parents=True, exist_ok=True)
    copy_tree(dst)
    # Written, not copied, both ways (as tools/mutants.py does): a fresh
    # mtime is what makes make compile the file again, and sync_tree's
    # copies keep the tree's older mtime, which would leave the object of
    # an earlier bug planted in the copy's build.
    (dst / m["file"]).write_text(text)
    name = build_name(m, "lab8-det-")
    try:
        ok, log, last = boot(dst, name, m, deterministic=True)
    finally:
        (dst / m["file"]).write_text((REPO / m["file"]).read_text())
    if log is None or not log.exists():
        raise LabError(f"the grader's boot of the planted kernel left no log: {last}")
    raw = log.read_text(errors="replace")
    sym = symbolize(raw.replace("\r", ""), dst / "build" / name / "quiescent.elf")
    cache.mkdir(parents=True, exist_ok=True)
    (cache / "log").write_text(raw)
    (cache / "log.sym").write_text(sym)
    (cache / "failed").write_text("0" if ok else "1")
    (cache / "key").write_text(key)
    return not ok, raw, sym


# What a boot of the planted kernel is made of besides the planted file:
# a change to any of it can move the first failure by microseconds of
# virtual time, and the reference answers with it.
BOOT_INPUTS = ("boot/", "configs/", "include/", "kernel/", "modules/", "user/", "Kconfig",
               "Makefile", "tools/mkinitrd.py", "tools/qs/qemu.py", "tools/qs/replay.py")


def tree_fingerprint():
    """A hash of BOOT_INPUTS' files as this tree has them: the reference
    answers record the one they were measured on."""
    h = hashlib.sha256()
    for f in sorted(tree_list()):
        if f.startswith(BOOT_INPUTS):
            h.update(f.encode() + b"\0" + (REPO / f).read_bytes() + b"\0")
    return h.hexdigest()[:16]


def write_reference(measured):
    """labs/instructor/lab8/answers.toml rewritten from measure's tables
    (every bug's), with the fingerprint of the tree they came from."""
    ref = REPO / "labs" / "instructor" / "lab8" / "answers.toml"
    head = ref.read_text().split("\nreference = true")[0] if ref.exists() else ""
    out = [head.rstrip("\n"), "reference = true",
           "# tree_fingerprint() of the tree these were measured on (lab8.py measure",
           "# --write): tests/test_lab8.py fails when the kernel has changed since.",
           f'tree = "{tree_fingerprint()}"']
    for name, got in measured:
        out += ["", f"[{name}]"] + [f"{k} = {v!r}".replace("'", '"') for k, v in got.items()
                                    if k != "failed"]
    ref.write_text("\n".join(out).lstrip("\n") + "\n")
    print(f"lab8: wrote {ref.relative_to(REPO)}")


def measure(m):
    """What the grader reads from its boot: never printed."""
    failed, raw, sym = grader_run(m)
    lab = m["lab"]
    # The first failure: replay's (an unexpected WARNING/BUG line, a torture
    # ERROR, a timestamped `not ok`), or where a test's own complaint
    # carries the time and its KTAP verdict does not, that line's.
    t = replay.failure_time(raw)
    if "time_rx" in lab:
        mm = re.search(lab["time_rx"], raw, re.M)
        t = float(mm.group(1)) if mm else None
    out = {"failed": failed, "first_failure_s": t, "held": lab["held"]}
    for key in ("report", "reader"):
        if key in lab:           # not on the console: read in gdb (a test's parked reader)
            out[key] = lab[key]
            continue
        if key == "report" and "report_text" in lab:
            # A report from a run that cannot be deterministic (KCSAN's):
            # the planted line it names, found in the planted file.
            lines = planted_text(m).split("\n")
            out[key] = next((f"{m['file']}:{i}" for i, ln in enumerate(lines, 1)
                             if ln.strip() == lab["report_text"]), None)
            continue
        mm = re.search(lab[key + "_rx"], sym, re.M)
        out[key] = mm.group(1) if mm else None
    return out


def answers_for(m):
    """(answers, whether to put the instructor's fix in place). The
    reference's file has a table per bug and `reference = true`."""
    a = tomllib.loads(ANSWERS.read_text()) if ANSWERS.exists() else {}
    if isinstance(a.get(m["name"]), dict):
        return a[m["name"]], bool(a.get("reference"))
    return a, bool(a.get("reference"))


def same(key, want, got):
    if want in ("", None):
        return False
    if key == "first_failure_s":
        try:
            return abs(float(want) - float(got)) <= 0.0005
        except (TypeError, ValueError):
            return False
    norm = lambda v: re.sub(r"^\./", "", str(v).strip().lower()).removesuffix("()")
    return norm(want) == norm(got)


def check_evidence(m, keys):
    got = measure(m)
    if not got["failed"]:
        return [f"the grader's deterministic boot of the planted kernel did not fail: "
                "this bug cannot be graded on evidence (an instructor's problem, not yours)"]
    answers, _ = answers_for(m)
    why = []
    for key in keys:
        if got[key] is None:
            why.append(f"the grader's boot did not show what {key} is measured by")
        elif key not in answers or answers[key] in ("", None):
            why.append(f"{key}: no answer in {ANSWERS.name}")
        elif not same(key, answers[key], got[key]):
            why.append(f"{key}: {answers[key]!r} is not what the grader measured")
    return why


def reference_fix(m):
    """--reference grades a scratch copy (build/grade/lab8-ref/src): put the
    bug's text back there, as the instructor's fix."""
    if "/build/grade/" not in str(REPO):
        return
    target = REPO / m["file"]
    text = target.read_text()
    if text.count(m["replace"]) == 1 and m["find"] not in text:
        target.write_text(text.replace(m["replace"], m["find"]))


TORTURE = {"config": "rcu_ltimer_defconfig", "cpus": 4, "timeout": 120,
           "cmdline": "ktest=torture_rcu torture.duration=2"}


def check_fix(m, what):
    if answers_for(m)[1]:
        reference_fix(m)
    if what == "own-test":
        failed, _, _ = grader_run(m)
        if not failed:
            return ["the planted kernel passed the bug's own test in the grader's boot: "
                    "the test cannot tell a fix (an instructor's problem)"]
        case = m
    elif what == "stress":
        case = dict(m["lab"]["stress"])
    else:
        case = TORTURE
    ok, log, last = boot(REPO, build_name(case | {"options": case.get("options", [])}, "lab8-"),
                         case)
    if ok:
        return []
    where = os.path.relpath(log, os.environ.get("QS_GRADE_ROOT", REPO)) if log else "no log"
    return [f"`{case['cmdline']}` -smp {case.get('cpus', 4)} on configs/{case['config']} "
            f"failed on your tree ({where})", last]


CHECKS = {"evidence-report": lambda m: check_evidence(m, ["report"]),
          "evidence-replay": lambda m: check_evidence(m, ["first_failure_s"]),
          "evidence-reader": lambda m: check_evidence(m, ["reader", "held"]),
          "fix-own-test": lambda m: check_fix(m, "own-test"),
          "fix-stress": lambda m: check_fix(m, "stress"),
          "fix-torture": lambda m: check_fix(m, "torture")}


def grade(check):
    m, _ = chosen()
    why = CHECKS[check](m)
    for w in why:
        print(w)
    return 1 if why else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("rate")
    r.add_argument("names", nargs="*")
    r.add_argument("--repeat", type=int, default=10)
    r.add_argument("--kvm", default=os.environ.get("KVM", "0"))
    sub.add_parser("list")
    wh = sub.add_parser("which")
    wh.add_argument("--file", action="store_true",
                    help="print only the source file the bug is in (Gradescope's run_autograder)")
    me = sub.add_parser("measure")
    me.add_argument("names", nargs="*")
    me.add_argument("--write", action="store_true",
                    help="rewrite the reference answers (every bug) from what was measured")
    g = sub.add_parser("grade")
    g.add_argument("check", choices=sorted(CHECKS))
    sub.add_parser("workload")
    pl = sub.add_parser("plant")
    pl.add_argument("--student", default="")
    pl.add_argument("--pick", type=int)
    pl.add_argument("--force", action="store_true")
    a = ap.parse_args(argv)
    try:
        if a.cmd == "rate":
            return rate(a.names, a.repeat, a.kvm)
        if a.cmd == "plant":
            if not a.student and a.pick is None:
                raise LabError("plant needs --student ID (make lab8 STUDENT=<id>) or --pick N")
            return plant(a.student or None, a.pick, a.force)
        if a.cmd == "measure":
            # The instructor's: what the grader measures, to write the reference answers.
            if a.write and a.names:
                raise LabError("measure --write measures every bug: give no names")
            measured = []
            for m in bugs():
                if not a.names or m["name"] in a.names:
                    got = measure(m)
                    measured.append((m["name"], got))
                    keep = WORK / "measured"
                    keep.mkdir(parents=True, exist_ok=True)
                    for f in ("log", "log.sym"):
                        (keep / f"{m['name']}.{f}").write_text((WORK / "grader" / f).read_text())
                    print(f"[{m['name']}]\n" + "".join(
                        f"{k} = {v!r}\n".replace("'", '"') for k, v in got.items()
                        if k != "failed") + f"# failed: {got['failed']}, log: "
                          f"{(keep / (m['name'] + '.log.sym')).relative_to(REPO)}\n",
                          flush=True)
            if a.write:
                write_reference(measured)
            return 0
        if a.cmd == "grade":
            return grade(a.check)
        if a.cmd == "workload":
            print(workload_text(chosen()[0]))
            return 0
        if a.cmd == "which":
            m, planted = chosen()
            if a.file:
                print(m["file"])
                return 0
            print(f"{m['name']}: {m['lab']['user']}, {m['lab']['class']} ({m['file']})")
            return 0
        if a.cmd == "list":
            for i, m in enumerate(bugs()):
                print(f"{i}  {m['name']:28s} {m['lab']['user']:18s} {m['lab']['class']}")
            return 0
    except LabError as e:
        print(f"lab8: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
