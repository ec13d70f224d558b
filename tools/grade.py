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
import argparse
import fnmatch
import json
import os
import re
import subprocess
import sys
import textwrap
import time
import tomllib

from qs import REPO
from qs import grade_gradescope, grade_logs
from qs.build import BuildError, build
from qs.log import user_view
from qs.scenario import Scenario, default_label, run_scenario
from qs.judge import CONSOLE_PROBLEM
from qs.symbolize import symbolize
from qs.sync_tree import sync_tree
from qs.sync_tree import copy_lock, seed_build

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


# A console line's time stamp and CPU ("[    1.26] cpu0: "), which a
# report's lines all carry.
STAMP = re.compile(r"^\[\s*\d+\.\d+\] cpu\d+: ")
# The lines of a report that are its backtrace, or a register dump: what
# its first lines shown as evidence leave out.
FRAME = re.compile(r"^\s*(\[<[0-9a-f]+>\]|Call Trace:|RIP:|RSP:|R[A-D]X:|R[SD]I:|RBP:|R\d\d:|"
                   r"CR[0-4]:|preempt_count:|\.\.\.$)")
# Where a KASAN report's later stacks begin: each names the student's line
# of its own (the free, the allocation, the call_rcu() that queued it).
SECTION = re.compile(r"^(Allocated by|Freed by|call_rcu\(\) queued it)")
KCSAN_ACCESS = re.compile(r"^(read|write)\b.* by task .* on cpu \d+:$")
REPORT_LINES = 80


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


def mistakes_of(n):
    """{name: entry} of Lab n's catalogue of wrong solutions
    (labs/instructor/labN/mistakes.toml), in its order; {} without one."""
    path = LABS / "instructor" / f"lab{n}" / "mistakes.toml"
    if not path.exists():
        return {}
    out = {}
    for m in tomllib.loads(path.read_text()).get("mistake", []):
        where = f"{path.relative_to(REPO)} mistake {m.get('name', '?')}"
        if not m.get("name") or not m.get("file") or not m.get("check"):
            raise GradeError(f"{where}: needs name, file and check")
        if ("source" in m) == ("base" in m):
            raise GradeError(f"{where}: give source (a whole file) or base and replace")
        out[m["name"]] = m
    return out


def mistake_text(m):
    """The text of a catalogue mistake: its source file, or its base (the
    reference) with each [find, replace] applied once; a find that is not
    in the base (the reference moved under it) is an error, not a silent
    copy of the reference."""
    if "source" in m:
        return (REPO / m["source"]).read_text()
    text = (REPO / m["base"]).read_text()
    for find, repl in m.get("replace", []):
        if text.count(find) != 1:
            raise GradeError(f"mistake {m['name']}: {find!r} is in {m['base']} "
                             f"{text.count(find)} times, not once")
        text = text.replace(find, repl)
    return text


def mistake_line(m):
    """The line number, in the mistake's text, of the student's line its
    failed check must name (m["line"]: text on that line), or None."""
    if not m.get("line"):
        return None
    for n, line in enumerate(mistake_text(m).split("\n"), 1):
        if m["line"] in line:
            return n
    raise GradeError(f"mistake {m['name']}: no line holds {m['line']!r}")


def mistake_file(n, name):
    """A catalogue mistake written out (build/grade/mistakes/labN/NAME/),
    as --with's SRC."""
    ms = mistakes_of(n)
    if name not in ms:
        raise GradeError(f"lab {n} has no mistake {name!r}; its catalogue: "
                         + (", ".join(ms) or "none"))
    m = ms[name]
    out = REPO / "build" / "grade" / "mistakes" / f"lab{n}" / name / os.path.basename(m["file"])
    out.parent.mkdir(parents=True, exist_ok=True)
    text = mistake_text(m)
    if not out.exists() or out.read_text() != text:
        out.write_text(text)
    return m["file"], out


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


def answer_hint(key, answer, text, within, answer_hints):
    """The first [[answer_hint]] about key that fits the student's wrong
    answer: the same (same_answer, the hint's within, else the check's) as
    group 1 of its rx in the boot's log and measure output, or as one of
    its values; None if none fits. The value it matched is never printed: it could be the answer."""
    for h in answer_hints:
        if h.get("answer") != key:
            continue
        decoys = h.get("value", [])
        decoys = list(decoys) if isinstance(decoys, list) else [decoys]
        if h.get("rx"):
            m = re.search(h["rx"], text, re.M)
            if m:
                decoys.append(m.group(1))
        # A hint's own tolerance, where the decoy moves with the host (Lab
        # 6's median grace period), else the check's for that key.
        if any(same_answer(answer, d, h.get("within", within)) for d in decoys):
            return HINT + h["say"]
    return None


def check_answers(c, log_text, answers, answers_path, answer_hints=()):
    """The reasons a check's answers are wrong; for a wrong answer, the
    lab's [[answer_hint]] that explains the misreading, if one fits."""
    why, hinted = [], []
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
            h = answer_hint(key, answers[key], log_text, within, answer_hints)
            if h:
                hinted.append(h)
    return why + hinted


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


def report_of(lines, stop):
    """The failing report: the lines from the one that ended the boot
    (stop) to its CPU's next report's first line, at most REPORT_LINES,
    without their time stamps; [] when stop is not among them. Only that
    CPU's lines: CPUs warning at once interleave their reports."""
    cpu = re.match(r"^\[\s*\d+\.\d+\] (cpu\d+): ", stop)
    want = STAMP.sub("", stop).strip()
    for i, ln in enumerate(lines):
        # The symbolizer may have added the line's file:line after it.
        if not STAMP.sub("", ln).strip().startswith(want):
            continue
        out = [STAMP.sub("", ln)]
        for ln2 in lines[i + 1:i + REPORT_LINES]:
            other = re.match(r"^\[\s*\d+\.\d+\] (cpu\d+): ", ln2)
            if cpu and other and other.group(1) != cpu.group(1):
                continue
            ln2 = STAMP.sub("", ln2)
            if CONSOLE_PROBLEM.search(ln2) and not FRAME.match(ln2) and \
                    not re.match(r"\s*(inside|outside) ", ln2):
                break
            out.append(ln2)
        return out
    return []


def student_lines(report, files):
    """[(what, "file:line", function)] for a report: in its first stack,
    the first place in one of the student's files and, when it is another,
    the outermost (where the student's code was entered: the walk a
    PROVE_RCU report names is in lab3_find(), the missing rcu_read_lock()
    in its caller); in each later section (KASAN's free, allocation and
    call_rcu() stacks) the first. A symbolized frame names its places
    innermost first (`lab3_lookup+0x17/0x40  kernel/labs/lab3_table.c:27
    (inlined into lab3_lookup at kernel/labs/lab3_table.c:51)`): each is
    a place of the stack."""
    if not files:
        return []
    where = re.compile(r"(?:^|[\s/(])(" + "|".join(re.escape(f) for f in files) + r"):(\d+)")
    found, section, accesses, interrupted = [], "the report", 0, None
    for ln in report:
        m = SECTION.match(ln.strip())
        if m:
            section = {"Allocated by": "allocated", "Freed by": "freed",
                       "call_rcu() queued it": "queued by call_rcu()"}[m.group(1)]
        elif KCSAN_ACCESS.match(ln.strip()):
            # KCSAN's two accesses, each with its stack, after a first
            # line that names both places.
            accesses += 1
            section = f"access {accesses}: {ln.strip().split(' to ')[0]}"
        f = re.search(r"\b([A-Za-z_]\w*)\+0x[0-9a-f]+/0x", ln)
        if f and re.match(r"(isr_common|irq_exit|__do_softirq)", f.group(1)):
            # What an interrupt interrupted is below its entry: not the
            # code that made the report's section (an RCU callback's free
            # in a softirq on top of lab3_insert()'s kmalloc()).
            interrupted = section
        if interrupted == section:
            continue
        inl = re.findall(r"inlined into (\w+) at", ln)
        locs = re.findall(r"(?:^|[\s(])(\S+:\d+)", ln[f.end():] if f else ln)
        for i, loc in enumerate(locs):
            mine = where.search(" " + loc)
            if not mine:
                continue
            # Place i of an inlined chain is in the function it was inlined
            # into; the innermost is in the frame's function unless inlined.
            fn = inl[i - 1] if 0 < i <= len(inl) else (f.group(1) if f and not inl else "")
            place = (section, f"{mine.group(1)}:{mine.group(2)}", fn)
            if place not in found:
                found.append(place)
    out = []
    for what in dict.fromkeys(w for w, _, _ in found):
        mine = [p for p in found if p[0] == what]
        out.append(mine[0])
        if what == "the report" and not accesses and len(mine) > 1 and \
                mine[-1][1] != mine[0][1]:
            out.append(("called from", mine[-1][1], mine[-1][2]))
    return out


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
            rx, say_what, scope = h if len(h) == 3 else (h[0], h[1], "console")
            if re.search(rx, "\n".join(report) if scope == "report" and report else text, re.M):
                why.append(HINT + say_what)
    elif "measure" in c:         # the grader's own reading of the boot, for the answers
        measured, why = measure(c["measure"], r.log_path)
        if not why and "answers" in c:
            why = check_answers(c, text + "\n" + measured, answers, answers_path, answer_hints)
    elif "answers" in c:         # the boot is as expected: only the answers can be wrong
        why = check_answers(c, text, answers, answers_path, answer_hints)
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


def saw(res):
    """What a failed check saw, in a line, for the checks that needed it
    to pass: its first evidence, else its first reason."""
    first = [w for w in res["reasons"] if not w.startswith(HINT)][:1]
    if res["evidence"] and res["evidence"][0] != "last console lines:":
        first = res["evidence"][:1]
    return STAMP.sub("", first[0]).strip()[:200] if first else "nothing"


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
        print(f"== Lab {spec['lab']}: {spec.get('title', '')}"
              + (" (reference)" if reference else "")
              + (f" ({a.track} track: {track})" if track else ""), flush=True)
    hints = [(h["rx"], h["say"], h.get("in", "console")) for h in spec.get("hint", [])]
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
    score = sum(r["points"] for r in done if r["ok"])
    total = sum(r["points"] for r in done)
    graded = dict(lab=spec["lab"], title=spec.get("title", ""), reference=reference,
                  score=score, max=total, checks=done)
    if track:
        graded.update(track=a.track, handout=track)
    if a.gradescope:
        grade_gradescope.write(a.gradescope, graded, time.time() - t0)
    if a.json:
        print(json.dumps(graded, indent=1))
    else:
        print(f"Score: {score}/{total}")
    return 0 if score == total else 1


if __name__ == "__main__":
    sys.exit(main())
