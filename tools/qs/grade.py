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
    tools/grade.py 3 --mistake kfree_in_delete
                                      # a wrong solution from the lab's catalogue
                                      # (labs/instructor/labN/mistakes.toml) in the
                                      # student's place, for instructors and tests
    tools/grade.py 4 --track harder   # Lab 4's harder track: the same checks,
                                      # its handout named in the output
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
    # in = "report": rx must match in the failing report itself (the line
    # that ended the boot and its CPU's lines after it, up to that CPU's
    # next report), not anywhere in the console (a register dump, a panic
    # the check expected, another CPU's report)
    # unless = 'rx': not said where this matches too: the evidence of the
    # mistake that rx's symptom follows from, which has its own hint

    student = ["kernel/labs/lab3_table.c"]   # the student's files: a failed check
                                      # names the first line of theirs in its report
    [tracks]                          # other handouts graded by the same checks
    harder = "labs/lab4-rcu-implementation/HARDER.md"

A lab's catalogue of wrong solutions, labs/instructor/labN/mistakes.toml
(what --mistake grades; tests/test_grade.py holds each to its entry):

    [[mistake]]
    name = "kfree_in_delete"
    what = "lab3_delete() frees the entry at once: kfree(e), not kfree_rcu()"
    file = "kernel/labs/lab3_table.c"           # the student's file it stands in for
    base = "labs/instructor/lab3/lab3_table.c"  # the reference, patched by
    replace = [["kfree_rcu(e, rcu);\n\treturn 0;", "kfree(e);\n\treturn 0;"]]
    # or source = "labs/instructor/lab7/mistakes/no_propagate.c" (a whole file)
    check = "stress-ltimer-smp4"                # the check that must catch it
    score = 10                                  # its score with --only check
    full = 10                                   # its score graded whole
    hint = "an entry was freed while"           # a hint that must be shown there
    not_hints = ["a CPU stayed in one"]         # hints that must not be
    line = "kfree(e);"                          # the student's line it must name
                                                # (the patched file's first line
                                                # holding this text)
    full_line = "..."                           # a line the whole grading must name
    make_test = true                            # graded on its check in make test
    tries = 3                                   # a sampling detector's (KCSAN): the
                                                # tests grade it up to this often

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
# The grader in parts, one idea a module; this one runs the checks (each
# configuration built once a run, the boots, the host commands, the
# scratch copies) and is the command line, tools/grade.py's main():
#   qs.grade_labs        grade.toml loaded and checked, --only, a check's boot
#   qs.grade_mistakes    the catalogues of wrong solutions (--mistake)
#   qs.grade_evidence    what a failed build or boot shows: its lines, its report
#   qs.grade_answers     answers.toml against what a boot measured
#   qs.grade_report      the printed lines and the score
#   qs.grade_gradescope  Gradescope's results.json
import argparse
import json
import os
import re
import subprocess
import sys
import time
import tomllib

from qs import REPO
from qs import grade_gradescope, grade_logs
from qs.build import BuildError, build
from qs.grade_answers import check_answers, measure
from qs.grade_evidence import (EVIDENCE, FRAME, first_build_error, one_not_ok_each, quoted,
                               report_of, student_lines)
from qs.grade_labs import HINT, GradeError, list_labs, load, scenario_of, selected
from qs.grade_mistakes import mistake_file
from qs.grade_report import heading, print_check, saw, scored
from qs.log import user_view
from qs.scenario import run_scenario
from qs.symbolize import symbolize
from qs.sync_tree import sync_tree
from qs.sync_tree import copy_lock, seed_build

# The rest of what `import grade` has always offered (tools/grade.py makes
# that name this module): the tests and an instructor's scripts use them.
from qs.grade_answers import answer_hint, same_answer  # noqa: F401
from qs.grade_evidence import (BUILD_ERROR, KCSAN_ACCESS, REPORT_LINES, SECTION,  # noqa: F401
                               STAMP)
from qs.grade_labs import BOOT_KEYS, CHECK_KEYS, LABS, lab_dirs  # noqa: F401
from qs.grade_mistakes import mistake_line, mistake_text, mistakes_of  # noqa: F401

_built = {}           # build name -> None (built) or (first check, reasons, evidence, log)


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


def boot_check(c, lab, config_map, kvm, answers, answers_path, say=lambda msg: None, hints=(),
               student=(), answer_hints=()):
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
        sym = symbolize(text, REPO / "build" / sc.build_name / "quiescent.elf")
        report = report_of(sym.split("\n"), r.stop_line) if r.stop_line else []
        if report:
            # The report's own first lines (what it says, not its
            # backtrace) after the line that ended the boot.
            said = [ln.strip() for ln in report[1:] if ln.strip() and not FRAME.match(ln)]
            # Its first lines, and where it says what happened: KASAN's RCU
            # verdict, KCSAN's fix in words.
            head = said[:2] + [ln for ln in said[2:] if re.match(r"(RCU|hint): ", ln)][:2]
            have = {STAMP.sub("", e).strip() for e in evidence}
            evidence = evidence[:1] + [h for h in head if h not in have] + evidence[1:]
        mine = [f"your line: {place}" + (f" ({fn})" if fn else "") +
                (", the first place of yours in the report below" if what == "the report"
                 else ", where your code was entered" if what == "called from"
                 else f", the {what.split(': ')[1]} in the race" if what.startswith("access ")
                 else f", where the report says it was {what}")
                for what, place, fn in student_lines(report or sym.split("\n"), student)]
        why = why[:1] + mine + why[1:]
        for h in hints:
            seen_in = "\n".join(report) if h.get("in") == "report" and report else text
            # unless: evidence of the mistake this symptom follows from,
            # whose own hint is the one that fits
            if re.search(h["rx"], seen_in, re.M) and \
                    not ("unless" in h and re.search(h["unless"], seen_in, re.M)):
                why.append(HINT + h["say"])
    elif "measure" in c:         # the grader's own reading of the boot, for the answers
        measured, why = measure(c["measure"], r.log_path)
        if not why and "answers" in c:
            why = check_answers(c, text + "\n" + measured, answers, answers_path, answer_hints)
    elif "answers" in c:         # the boot is as expected: only the answers can be wrong
        why = check_answers(c, text, answers, answers_path, answer_hints)
    return why, evidence, r.log_path, shown


def host_check(c):
    p = subprocess.run(c["host"], shell=True, cwd=REPO, capture_output=True, text=True)
    if p.returncode == 0:
        return [], [], None, None
    out = (p.stdout + p.stderr).strip().split("\n")[-10:]
    return [f"`{c['host']}` exited with status {p.returncode}"], out, None, None


def run_check(c, lab, config_map, kvm, answers, answers_path, results, say=lambda msg: None,
              hints=(), student=(), seen=None, answer_hints=()):
    t0 = time.time()
    missing = [r for r in c.get("requires", []) if not results.get(r)]
    if missing:
        why, evidence, log, shown = [f"not run: needs {', '.join(missing)} to pass first"], [], None, None
        for r in missing:
            if seen and r in seen:
                why.append(f"{r} saw: {seen[r]}")
    elif "config" in c:
        why, evidence, log, shown = boot_check(c, lab, config_map, kvm, answers, answers_path,
                                               say, hints, student, answer_hints)
    else:
        why, evidence, log, shown = host_check(c)
    log, why = student_logs(c["name"], log, why)
    return dict(name=c["name"], points=c.get("points", 0), ok=not why,
                seconds=round(time.time() - t0, 1), reasons=why, evidence=evidence,
                log=log, shown=shown, description=c.get("description", ""))


def student_logs(name, log, why):
    """A scratch copy's grader (grade_copy) keeps the check's log and its
    symbolized log in the tree the grader was started in, where the person
    reading them is, and names them from there (qs.grade_logs)."""
    return grade_logs.keep(name, log, why)


# ------------------------------------------------------------------ the reference
def grade_copy(spec, files, child_args, label):
    """Grade a copy of the tree (build/grade/labN-<label>/src) with files
    ({path in the tree: file to put there}) in place."""
    # Under make test's workers, one copy each: two graders in one copy
    # would each build the other's files.
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    dst = REPO / "build" / "grade" / f"lab{spec['lab']}-{label}{'-' + worker if worker else ''}" / "src"
    # Two gradings at once outside make test (two shells) take turns.
    with copy_lock(dst):
        return _grade_in_copy(spec, files, child_args, dst)


def _grade_in_copy(spec, files, child_args, dst):
    sync_tree(dst)
    for target, src in files.items():
        data = (REPO / src).read_bytes()
        out = dst / target
        if not out.exists() or out.read_bytes() != data:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(data)
    for c in spec.get("check", []):
        if "config" in c:
            name = scenario_of(c, spec["lab"], {}).build_name
            seed_build(REPO / "build" / name, dst / "build" / name)
    env = dict(os.environ, QS_GRADE_ROOT=os.environ.get("QS_GRADE_ROOT", str(REPO)))
    return subprocess.call([sys.executable, str(dst / "tools" / "grade.py")] + child_args, cwd=dst,
                           env=env)


# ------------------------------------------------------------------ main
def parser():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("lab", nargs="?", help="the lab's number")
    ap.add_argument("--json", action="store_true", help="print one JSON object, not the lines")
    ap.add_argument("--only", default="", help="comma-separated globs: grade only these checks")
    ap.add_argument("--reference", action="store_true",
                    help="grade the instructor's reference (grade.toml [reference]) instead")
    ap.add_argument("--reference-answers", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--with", dest="with_files", action="append", default=[], metavar="DEST=SRC",
                    help="grade a copy of the tree with file SRC in place of DEST (repeatable)")
    ap.add_argument("--mistake", default="", metavar="NAME",
                    help="grade a wrong solution from labs/instructor/labN/mistakes.toml "
                         "in the student's place (a scratch copy)")
    ap.add_argument("--answers", default="", metavar="PATH",
                    help="grade this answers file instead of the lab's answers.toml (no copy)")
    ap.add_argument("--track", default="",
                    help="grade for another track of the lab (grade.toml [tracks]): the same "
                         "checks, its handout named")
    ap.add_argument("--gradescope", metavar="PATH", default="",
                    help="also write Gradescope's results.json to PATH (labs/README.md)")
    ap.add_argument("--kvm", default=os.environ.get("KVM", "0"))
    ap.add_argument("--list", action="store_true", help="list the labs and their checks")
    return ap


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    a = parser().parse_args(argv)
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
            (["--answers", os.path.abspath(a.answers)] if a.answers else []) + \
            (["--gradescope", os.path.abspath(a.gradescope)] if a.gradescope else [])
        tracks = spec.get("tracks", {})
        if a.track and a.track not in tracks:
            raise GradeError(f"lab {a.lab} has no track {a.track!r}"
                             + (f"; its tracks: {', '.join(tracks)}" if tracks else ""))
        if a.track:
            child += ["--track", a.track]
        if a.mistake:
            dest, src = mistake_file(int(a.lab), a.mistake)
            a.with_files.append(f"{dest}={src}")
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
        if a.answers:
            answers_path = REPO / a.answers
            if not answers_path.is_file():
                raise GradeError(f"--answers {a.answers}: no such file")
        answers = tomllib.loads(answers_path.read_text()) if answers_path.exists() else {}
        checks = selected(spec.get("check", []), a.only)
    except (GradeError, tomllib.TOMLDecodeError) as e:
        print(f"grade: {e}", file=sys.stderr)
        return 2
    results, done, t0 = {}, [], time.time()
    track = spec.get("tracks", {}).get(a.track) if a.track else None
    if not a.json:
        print(heading(spec, reference, a.track, track), flush=True)
    hints = spec.get("hint", [])
    seen = {}
    for k, c in enumerate(checks, 1):
        def say(msg, k=k, c=c):
            # Progress on stderr: a build or a boot takes a while, and the
            # lines (or the JSON) on stdout stay what they were.
            print(f"check {k}/{len(checks)} {c['name']}: {msg}", file=sys.stderr, flush=True)
        res = run_check(c, spec["lab"], config_map, kvm, answers,
                        os.path.relpath(answers_path, REPO), results, say, hints,
                        spec.get("student", ()), seen, spec.get("answer_hint", []))
        results[c["name"]] = res["ok"]
        if not res["ok"]:
            seen[c["name"]] = saw(res)
        done.append(res)
        if not a.json:
            print_check(res)
    graded = scored(spec, done, reference, a.track, track)
    score, total = graded["score"], graded["max"]
    if a.gradescope:
        grade_gradescope.write(a.gradescope, graded, time.time() - t0)
    if a.json:
        print(json.dumps(graded, indent=1))
    else:
        print(f"Score: {score}/{total}")
    return 0 if score == total else 1
