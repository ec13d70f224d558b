#!/usr/bin/env python3
"""make grade LAB=n: grade a lab (labs/labN-*/grade.toml), in the manner of
MIT 6.1810's gradelib: each check prints `name: OK (1.2s)` or `name: FAIL
(1.2s)` with the evidence under it (the reasons and the log lines that
show them), then `Score: x/y`. The exit status is 0 only with full marks.

    tools/grade.py 4                  # grade Lab 4 in this tree
    tools/grade.py 4 --json           # one JSON object, for course infrastructure
    tools/grade.py 4 --only 'torture-smp2,rcu-api-*'   # these (and what they require)
    tools/grade.py 4 --reference      # the instructor's reference instead of the student's work
    tools/grade.py 4 --with kernel/rcu/rcu_student.c=labs/instructor/lab4/rcu_student.c
                                      # another file in the student's place (a scratch copy)
    tools/grade.py 4 --gradescope /autograder/results/results.json
                                      # also Gradescope's results.json (qs/grade_gradescope.py)
    tools/grade.py --list             # the labs and their checks

A grade.toml:

    lab = 4
    title = "Write an RCU implementation"

    [reference]                       # what --reference puts in the student's place
    config = { rcu_student_defconfig = "rcu_poll_defconfig" }   # another configuration
    answers = "labs/instructor/lab1/answers.toml"              # another answers file
    files = { "kernel/labs/lab3_table.c" = "labs/instructor/lab3/lab3_table.c" }

    [[check]]
    name = "torture-smp2"
    points = 10                       # 0: shown, not graded
    requires = ["rcu-api-smp1"]       # FAIL without a boot unless these passed
    # a boot: the keys of a scenario case (tools/qs/scenario.py):
    config = "rcu_student_defconfig"
    cpus = 2
    cmdline = "ktest=torture_rcu torture.duration=3"
    groups = ["torture"]
    log = ['rcu-torture: SUCCESS']
    # and/or answers: each key of the lab's answers.toml must equal group 1 of
    # its regex in that boot's log (numbers as numbers, text without case)
    answers = { variant = 'rcu=(\\S+)' }
    # an answer that need only be close: a table, within = relative tolerance
    answers = { gp_ms = { rx = 'ms=([\\d.]+)', within = 0.3 } }
    # measure: a host command run on that boot's log ({log}: its path);
    # the answers' regexes see its output too (never printed)
    measure = "python3 labs/lab6-slow-grace-period/measure.py {log}"
    # show: a regex whose group 1 in that boot's log is printed under the
    # check (a benchmark's ratio), OK or not
    show = 'scaling ([\\d.]+)'
    # timeline = "pass": the boot's trace dump (trace.dump_at_end=1) must
    # pass tools/timeline.py's checker, as a scenario case's timeline key
    # or a host command, run in the tree; OK when it exits 0
    host = "test -s build/compare/compare.md"

    [[hint]]                          # said under any failed check whose console matches rx
    rx = 'lab3-stress: a reader .* found a freed'
    say = "an entry was freed while a reader still held it: ..."

Checks with the same boot keys share one boot. With `files` (or --with),
the grader copies the tree into build/grade/labN-ref/src (or -with/; only
what changed, and this tree's builds of the checks' configurations, so
that only the replaced files compile again), puts the files in place
there, and grades that copy; `config` and `answers` need no copy. The
student's tree is never modified.

As it runs, each build and boot says so on stderr (`check k/n name:
booting ...`). A boot ends a moment after its first fatal console line
(qs.boot's stop=: an unexpected WARNING, BUG, Call Trace, panic or stall
line, which would fail the check anyway), and that line is the first of
the evidence. A configuration is built once per run; if it fails, the
first check on it shows the first compiler error and the build log's
path, and the others point at that check.
"""
import argparse
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import time
import tomllib

from qs import REPO
from qs import grade_gradescope
from qs.build import BuildError, build
from qs.log import user_view
from qs.scenario import Scenario, default_label, run_scenario
from qs.sync_tree import sync_tree

LABS = REPO / "labs"
BOOT_KEYS = {"config": str, "option": list, "cpus": int, "cmdline": str, "timeout": int,
             "expect": str, "groups": list, "log": list, "shell": list, "expect_console": list,
             "timeline": str}
CHECK_KEYS = {"name", "points", "description", "requires", "answers", "host", "show",
              "measure"} | set(BOOT_KEYS)
# Log lines worth showing as evidence when a boot check fails.
# A PROVE_RCU report's place and reason (docs/rcu/checking.md) and the
# locks held are the lines after its WARNING that say what to fix.
EVIDENCE = re.compile(r"rcu-torture: (FAILURE|ERROR)|^\s*not ok |^\s*# .*: expected |"
                      r"Kernel panic|kmalloc: poison|BUG:|rcu: stall|lab3: .*(FAIL|ERROR)|"
                      r"\S+\.c:\d+: rcu_dereference\w*\(\) (outside|and its condition)|"
                      r"lockdep:  #\d+: |lockdep: no locks held")
# The first error of a failed build: the compiler's, the assembler's, the linker's.
BUILD_ERROR = re.compile(r"^\S+:\d+(?::\d+)?: (?:fatal )?error: |undefined reference to|"
                         r"^\S+: No such file|\*\*\* No rule")


# A lab's [[hint]] said under a failed check: printed even past the first
# reasons, which a failing test suite can fill (Lab 7's unit tests).
HINT = "hint: "


class GradeError(Exception):
    pass


# ------------------------------------------------------------------ the labs
def lab_dirs():
    """{n: folder} for every labs/labN-*/ with a grade.toml."""
    out = {}
    for d in sorted(LABS.glob("lab[0-9]*-*")):
        m = re.match(r"lab(\d+)-", d.name)
        if m and (d / "grade.toml").exists():
            out[int(m.group(1))] = d
    return out


def list_labs():
    lines = []
    for n, d in lab_dirs().items():
        spec = tomllib.loads((d / "grade.toml").read_text())
        pts = sum(c.get("points", 0) for c in spec.get("check", []))
        lines.append(f"  LAB={n}  {spec.get('title', d.name)} ({pts} points; {d.relative_to(REPO)})")
    return "\n".join(lines)


def load(n):
    dirs = lab_dirs()
    if n not in dirs:
        raise GradeError(f"no lab {n} with a grader; the labs:\n{list_labs()}")
    d = dirs[n]
    spec = tomllib.loads((d / "grade.toml").read_text())
    names = set()
    for c in spec.get("check", []):
        where = f"{d.name}/grade.toml check {c.get('name', '?')}"
        unknown = set(c) - CHECK_KEYS
        if unknown or "name" not in c:
            raise GradeError(f"{where}: unknown keys {sorted(unknown)} or no name")
        for r in c.get("requires", []):
            if r not in names:
                raise GradeError(f"{where}: requires {r}, which is not an earlier check")
        if not ("config" in c or "host" in c):
            raise GradeError(f"{where}: needs a boot (config = ...) or a host command")
        if "answers" in c and "config" not in c:
            raise GradeError(f"{where}: answers are compared with a boot's log: give config")
        names.add(c["name"])
    spec["dir"] = d
    return spec


# ------------------------------------------------------------------ one check
def scenario_of(c, lab, config_map):
    config = config_map.get(c["config"], c["config"])
    return Scenario(name=f"grade-lab{lab}-{c['name']}", path=str(LABS), config=config,
                    label=default_label(config), options=list(c.get("option", [])),
                    cpus=c.get("cpus", 4), cmdline=c.get("cmdline", ""),
                    timeout=c.get("timeout", 120), expect=c.get("expect", "pass"),
                    groups=list(c.get("groups", [])), log=list(c.get("log", [])),
                    shell=list(c.get("shell", [])), description=c.get("description", ""),
                    expect_console=list(c.get("expect_console", [])),
                    timeline=c.get("timeline", ""))


def same_answer(want, got, within=0.0):
    """A measured value against a student's answer: numbers as numbers,
    within a relative tolerance if given."""
    try:
        return abs(float(want) - float(got)) <= within * abs(float(got))
    except (TypeError, ValueError):
        return str(want).strip().lower() == str(got).strip().lower()


def check_answers(c, log_text, answers, answers_path):
    why = []
    for key, rx in c["answers"].items():
        within = 0.0
        if isinstance(rx, dict):
            rx, within = rx["rx"], rx.get("within", 0.0)
        m = re.search(rx, log_text, re.M)
        if not m:
            why.append(f"the grader's boot did not show /{rx}/ to measure {key} by")
            continue
        # The measured value is never shown: the output would give the answer away.
        if key not in answers or answers[key] in ("", None):
            why.append(f"{key}: no answer in {answers_path}")
        elif not same_answer(answers[key], m.group(1), within):
            why.append(f"{key}: {answers[key]!r} is not what the grader measured")
    return why


_built = {}           # build name -> None (built) or (first check, reasons, evidence, log)


def first_build_error(text):
    """The first error in a build's output and the lines that go with it
    (the source line and the caret under it), not the tail of the output."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if BUILD_ERROR.search(line):
            start = i - 1 if i and "In function" in lines[i - 1] else i
            return [ln for ln in lines[start:i + 3] if ln.strip()][:4]
    return [ln for ln in lines if ln.strip()][-6:]


def quoted(line, why):
    """Whether a reason already says what this console line says: a KTAP
    `not ok N name` under the reason `not ok name: ...`, or a line a
    reason quotes (qs.judge's unexpected lines)."""
    m = re.match(r"\s*not ok \d+ (\S+)", line)
    if m:
        return any(re.match(rf"not ok (\d+ )?{re.escape(m.group(1))}\b", w) for w in why)
    said = re.sub(r"^\s*# ", "", line).strip()[:100]     # a KTAP diagnostic, without its "# "
    return any(said in w for w in why)


def one_not_ok_each(why):
    """The KTAP verdict (`not ok 4 name: ...`) and the group check (`not ok
    name: ...`) report the same failed test: keep the first."""
    numbered = {m.group(1) for w in why if (m := re.match(r"not ok \d+ (\S+?):", w))}
    return [w for w in why
            if not ((m := re.match(r"not ok ([^\d\s]\S*?):", w)) and m.group(1) in numbered)]


def build_of(sc, c, say):
    """Build sc's configuration once per run; (reasons, evidence, log) when
    it does not build. A later check on the same build only points at the
    first one: the evidence is shown once."""
    if sc.build_name in _built:
        failed = _built[sc.build_name]
        if failed is None:
            return None
        return ([f"configs/{sc.config} does not build (the error is under {failed[0]})"],
                [], failed[3])
    say(f"building configs/{sc.config}" + ("" if (REPO / "build" / sc.build_name / "quiescent.elf")
                                           .exists() else " (a first build takes about two minutes)"))
    try:
        build(sc.build_name, sc.config, sc.options)
    except BuildError as e:
        log = e.log_path or None
        evidence = first_build_error(str(e).split("\n", 1)[-1])
        why = [f"configs/{sc.config} does not build; its first error:"]
        same = [f[0] for f in _built.values() if f and f[2] == evidence]
        if same:                 # another configuration, the same error in the same file
            why, evidence = [f"configs/{sc.config} does not build: the same error as under "
                             f"{same[0]}"], []
        _built[sc.build_name] = (c["name"], why, evidence, log)
        return why, evidence, log
    _built[sc.build_name] = None
    return None


def boot_check(c, lab, config_map, kvm, answers, answers_path, say=lambda msg: None, hints=()):
    """(reasons, evidence lines, log path, shown) for a check with a boot.
    The boot ends at its first fatal console line (a stall, a panic, an
    unexpected warning), which is then the first line of the evidence."""
    sc = scenario_of(c, lab, config_map)
    failed = build_of(sc, c, say)
    if failed:
        why, evidence, log = failed
        return why, evidence, log, None
    say(f"booting -smp {sc.cpus} '{sc.cmdline}' (at most {sc.timeout}s)")
    r, why, _ = run_scenario(sc, kvm=kvm, cache=True, stop_early=True)
    text = user_view(r.log)
    m = re.search(c["show"], text, re.M) if "show" in c else None
    shown = m.group(1) if m else None
    evidence = []
    if why:
        why = one_not_ok_each(why)
        matched = [line.strip() for line in text.split("\n") if EVIDENCE.search(line)]
        evidence = [e for e in matched if not quoted(e, why)]
        if r.stop_line:          # the line that ended the run, quoted once, first
            stop = r.stop_line.strip()
            # The Call Trace after the stop line is its backtrace, not news.
            kept = [w for w in why if stop[:100] not in w and
                    not re.match(r"console line \d+: unexpected .*Call Trace:", w)]
            if len(kept) < len(why) and not any("first fatal console line" in w for w in kept):
                # Never fewer reasons than one: the line fails the check.
                kept.insert(0, "an unexpected console line, the first below, fails the check")
            why = kept
            evidence = [stop] + [e for e in evidence if e != stop]
        evidence = evidence[:10]
        if not matched and not r.stop_line:     # nothing to show but where it ended
            evidence = ["last console lines:"] + r.tail(8).split("\n")
        for rx, say_what in hints:
            if re.search(rx, text, re.M):
                why.append(HINT + say_what)
    elif "measure" in c:         # the grader's own reading of the boot, for the answers
        measured, why = measure(c["measure"], r.log_path)
        if not why and "answers" in c:
            why = check_answers(c, text + "\n" + measured, answers, answers_path)
    elif "answers" in c:         # the boot is as expected: only the answers can be wrong
        why = check_answers(c, text, answers, answers_path)
    return why, evidence, r.log_path, shown


def measure(cmd, log_path):
    """(output, reasons): cmd run on the boot's log. The output holds the
    measured values, so only a failure's last error line is shown."""
    p = subprocess.run(cmd.replace("{log}", str(log_path)), shell=True, cwd=REPO,
                       capture_output=True, text=True)
    if p.returncode == 0:
        return p.stdout, []
    err = (p.stderr.strip().split("\n") or [""])[-1]
    return "", [f"the grader could not measure its boot (`{cmd}`: status {p.returncode}): {err}"]


def host_check(c):
    p = subprocess.run(c["host"], shell=True, cwd=REPO, capture_output=True, text=True)
    if p.returncode == 0:
        return [], [], None, None
    out = (p.stdout + p.stderr).strip().split("\n")[-10:]
    return [f"`{c['host']}` exited with status {p.returncode}"], out, None, None


def run_check(c, lab, config_map, kvm, answers, answers_path, results, say=lambda msg: None,
              hints=()):
    t0 = time.time()
    missing = [r for r in c.get("requires", []) if not results.get(r)]
    if missing:
        why, evidence, log, shown = [f"not run: needs {', '.join(missing)} to pass first"], [], None, None
    elif "config" in c:
        why, evidence, log, shown = boot_check(c, lab, config_map, kvm, answers, answers_path,
                                               say, hints)
    else:
        why, evidence, log, shown = host_check(c)
    # A scratch copy's grader (grade_copy) names its logs from the tree the
    # grader was started in, where the person reading them is.
    shown_from = os.environ.get("QS_GRADE_ROOT", str(REPO))
    return dict(name=c["name"], points=c.get("points", 0), ok=not why,
                seconds=round(time.time() - t0, 1), reasons=why, evidence=evidence,
                log=os.path.relpath(log, shown_from) if log else None,
                shown=shown, description=c.get("description", ""))


# ------------------------------------------------------------------ the reference
def grade_copy(spec, files, child_args, label):
    """Grade a copy of the tree (build/grade/labN-<label>/src) with files
    ({path in the tree: file to put there}) in place."""
    # Under make test's workers, one copy each: two graders in one copy
    # would each build the other's files.
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    dst = REPO / "build" / "grade" / f"lab{spec['lab']}-{label}{'-' + worker if worker else ''}" / "src"
    sync_tree(dst)
    for target, src in files.items():
        data = (REPO / src).read_bytes()
        out = dst / target
        if not out.exists() or out.read_bytes() != data:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(data)
    # Seed the copy's builds with this tree's (their .d files name sources
    # by relative path, and the copy keeps their mtimes): only the files
    # put in place are compiled again.
    for c in spec.get("check", []):
        if "config" in c:
            name = scenario_of(c, spec["lab"], {}).build_name
            src, out = REPO / "build" / name, dst / "build" / name
            if src.is_dir() and not out.exists():
                shutil.copytree(src, out, symlinks=True, ignore=shutil.ignore_patterns("logs", "results"))
    env = dict(os.environ, QS_GRADE_ROOT=os.environ.get("QS_GRADE_ROOT", str(REPO)))
    return subprocess.call([sys.executable, str(dst / "tools" / "grade.py")] + child_args, cwd=dst,
                           env=env)


# ------------------------------------------------------------------ main
def selected(checks, only):
    if not only:
        return checks
    globs = [g for g in only.split(",") if g]
    want = {c["name"] for c in checks if any(fnmatch.fnmatch(c["name"], g) for g in globs)}
    if not want:
        raise GradeError(f"--only {only} matches no check; the checks: "
                         + ", ".join(c["name"] for c in checks))
    for c in reversed(checks):           # what they require runs too (requires name earlier checks)
        if c["name"] in want:
            want |= set(c.get("requires", []))
    return [c for c in checks if c["name"] in want]


def print_check(res):
    mark = "OK" if res["ok"] else "FAIL"
    pts = f" [{res['points']} pt{'s' if res['points'] != 1 else ''}]" if res["points"] else " [not graded]"
    print(f"{res['name']}: {mark} ({res['seconds']:.1f}s){pts}", flush=True)
    if res["shown"]:
        print(f"    {res['shown']}")
    if not res["ok"]:
        hints = [w for w in res["reasons"] if w.startswith(HINT)]
        for w in [w for w in res["reasons"] if not w.startswith(HINT)][:6] + hints:
            # Wrapped, never cut: a reason is a sentence.
            print(textwrap.fill(w, 100, initial_indent="    ", subsequent_indent="      ",
                                break_long_words=False, break_on_hyphens=False))
        for line in res["evidence"]:
            print(f"    | {line}")
        if res["log"]:
            print(f"    log: {res['log']}")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("lab", nargs="?", help="the lab's number")
    ap.add_argument("--json", action="store_true", help="print one JSON object, not the lines")
    ap.add_argument("--only", default="", help="comma-separated globs: grade only these checks")
    ap.add_argument("--reference", action="store_true",
                    help="grade the instructor's reference (grade.toml [reference]) instead")
    ap.add_argument("--reference-answers", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--with", dest="with_files", action="append", default=[], metavar="DEST=SRC",
                    help="grade a copy of the tree with file SRC in place of DEST (repeatable)")
    ap.add_argument("--gradescope", metavar="PATH", default="",
                    help="also write Gradescope's results.json to PATH (labs/README.md)")
    ap.add_argument("--kvm", default=os.environ.get("KVM", "0"))
    ap.add_argument("--list", action="store_true", help="list the labs and their checks")
    a = ap.parse_args(argv)
    kvm = "0" if a.kvm == "auto" else a.kvm
    try:
        if a.list or a.lab is None:
            # Listing the labs is what `make grade` with no LAB is for: not an error.
            print("labs with a grader (make grade LAB=n):\n" + list_labs())
            return 0
        if not a.lab.isdigit():
            raise GradeError(f"LAB={a.lab} is not a lab number; the labs:\n{list_labs()}")
        spec = load(int(a.lab))
        ref = spec.get("reference", {})
        child = [a.lab, "--kvm", kvm] + (["--json"] if a.json else []) + \
            (["--only", a.only] if a.only else []) + \
            (["--gradescope", os.path.abspath(a.gradescope)] if a.gradescope else [])
        if a.with_files:
            files = dict(w.split("=", 1) for w in a.with_files)
            missing = [s for s in files.values() if not (REPO / s).is_file()]
            if missing or any(not d for d in files):
                raise GradeError(f"--with DEST=SRC: no such file {', '.join(missing)}")
            return grade_copy(spec, files, child + (["--reference-answers"] if a.reference else []),
                              "with")
        if a.reference and ref.get("files"):
            return grade_copy(spec, ref["files"], child + ["--reference-answers"], "ref")
        reference = a.reference or a.reference_answers
        config_map = ref.get("config", {}) if reference else {}
        answers_path = spec["dir"] / "answers.toml"
        if reference and ref.get("answers"):
            answers_path = REPO / ref["answers"]
        answers = tomllib.loads(answers_path.read_text()) if answers_path.exists() else {}
        checks = selected(spec.get("check", []), a.only)
    except (GradeError, tomllib.TOMLDecodeError) as e:
        print(f"grade: {e}", file=sys.stderr)
        return 2
    results, done, t0 = {}, [], time.time()
    if not a.json:
        print(f"== Lab {spec['lab']}: {spec.get('title', '')}"
              + (" (reference)" if reference else ""), flush=True)
    hints = [(h["rx"], h["say"]) for h in spec.get("hint", [])]
    for k, c in enumerate(checks, 1):
        def say(msg, k=k, c=c):
            # Progress on stderr: a build or a boot takes a while, and the
            # lines (or the JSON) on stdout stay what they were.
            print(f"check {k}/{len(checks)} {c['name']}: {msg}", file=sys.stderr, flush=True)
        res = run_check(c, spec["lab"], config_map, kvm, answers,
                        os.path.relpath(answers_path, REPO), results, say, hints)
        results[c["name"]] = res["ok"]
        done.append(res)
        if not a.json:
            print_check(res)
    score = sum(r["points"] for r in done if r["ok"])
    total = sum(r["points"] for r in done)
    graded = dict(lab=spec["lab"], title=spec.get("title", ""), reference=reference,
                  score=score, max=total, checks=done)
    if a.gradescope:
        grade_gradescope.write(a.gradescope, graded, time.time() - t0)
    if a.json:
        print(json.dumps(graded, indent=1))
    else:
        print(f"Score: {score}/{total}")
    return 0 if score == total else 1


if __name__ == "__main__":
    sys.exit(main())
