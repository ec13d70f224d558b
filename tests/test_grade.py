"""The lab graders (tools/grade.py, labs/*/grade.toml) are themselves
tested, both ways: the untouched handout scores 0 on the graded checks it
runs, and the instructor's reference scores full marks.

The QEMU half keeps to a small subset, about a minute of guest time in all
(the full graders are ten boots for Lab 4 alone):
  Lab 4  handout: rcu-api-smp1 (the skeleton's call_rcu() counts no grace
         period: the API tests fail). reference (rcu-poll in the student's
         place): rcu-api-smp1 and torture-rcu_break-smp2, which brings in
         torture-smp2 (rcutorture SUCCESS, then FAILURE with rcu_break=1);
         the same for the model answer that follows the handout
         (labs/instructor/lab4/rcu_student.c), in a scratch copy.
  Lab 3  stress-ltimer-smp4, which brings in stress-busted-smp4: the rwlock
         table is not caught on the busted variant (0, the passing run not
         even counted); the reference conversion is caught there and passes
         on rcu-ltimer (20/20), graded in a scratch copy of the tree.
  Labs 1, 2, 5  one boot each: the handout's empty answers score 0, the
         reference answers full marks.
  Lab 6  one traced boot (lab6.seed=8, about 2 s of guest time): the empty
         answers score 0, the reference answers 12/12, read off the
         grader's trace by labs/lab6-slow-grace-period/measure.py.
  Lab 7  on the rcu_tree_defconfig build Tree RCU's own cases build:
         handout: report-unit (the stub clears nothing: the unit tests
         fail, and the torture checks are not run). reference (the model
         answer, in a scratch copy): report-unit and torture-smp8, three
         levels (45/45).
  Catalogue  labs/instructor/lab{3,4,7}/mistakes.toml, the wrong solutions
         each lab must score and explain: each graded on the check that
         must catch it (its score there, its hint, none of the hints that
         do not fit it, the student's line it names); those marked
         make_test here (those that take 2 to 6 s with a warm build: five
         of Lab 7's six on report-unit, Lab 3's synchronize_rcu() in a
         reader and its missing rcu_read_lock() on stress-busted-smp4, and
         Lab 4's grace period ended by the first CPU on torture-smp2), the
         rest (a stall to wait out, a KCSAN build, a lock test's 10 s) and
         every mistake graded whole in make test-full.
  Stall  one short rcu-ltimer boot: a stall warning the check does not
         allow is quoted as the first line of the evidence.
The rest (parsing, listing, bad input, requires) needs no QEMU; nor does
how a student meets the grader (a stall ending a check early, a build
error shown once, wrapped reasons, Lab 3's hints, `make grade` with no
LAB) or Gradescope's results.json: there a shell script stands in for
QEMU and the grader's own watching and judging run on its output.
"""
import json
import re
import subprocess
import sys
import tomllib

import pytest

from qs import REPO
from qs.build import BuildError, build

sys.path.insert(0, str(REPO / "tools"))
import grade  # noqa: E402
from gradescope_format import check_gradescope_results  # noqa: E402

GRADE = [sys.executable, str(REPO / "tools" / "grade.py")]


def run_grade(*args):
    p = subprocess.run(GRADE + list(args), cwd=REPO, capture_output=True, text=True, timeout=900)
    return p.returncode, p.stdout, p.stderr


def graded(*args):
    code, out, err = run_grade(*args, "--json")
    assert out.strip(), f"no JSON from grade.py {' '.join(args)}: {err[-2000:]}"
    return code, json.loads(out)


# ---------------------------------------------------------------- no QEMU
def test_every_lab_loads_and_its_reference_exists():
    labs = grade.lab_dirs()
    assert sorted(labs) == [1, 2, 3, 4, 5, 6, 7, 8]
    for n in labs:
        spec = grade.load(n)
        assert spec["lab"] == n and spec.get("check"), n
        assert sum(c.get("points", 0) for c in spec["check"]) > 0, n
        for c in spec["check"]:
            if "config" in c:
                assert (REPO / "configs" / c["config"]).exists(), (n, c["name"])
        ref = spec.get("reference")
        assert ref, f"lab {n} has no reference"
        for cfg in ref.get("config", {}).values():
            assert (REPO / "configs" / cfg).exists(), (n, cfg)
        for src in ref.get("files", {}).values():
            assert (REPO / src).exists(), (n, src)
        if "answers" in ref:
            assert (REPO / ref["answers"]).exists(), n


def test_handout_answers_are_empty_and_reference_answers_complete():
    for n, d in grade.lab_dirs().items():
        spec = grade.load(n)
        keys = {k for c in spec["check"] for k in c.get("answers", {})}
        if not keys:
            continue
        handout = tomllib.loads((d / "answers.toml").read_text())
        ref = tomllib.loads((REPO / spec["reference"]["answers"]).read_text())
        assert set(handout) == keys == set(ref), n
        assert all(v == "" for v in handout.values()), n


def test_bad_lab_lists_the_labs():
    code, out, err = run_grade("9")
    assert code == 2 and "no lab 9" in err and "LAB=4" in err
    code, out, err = run_grade("x")
    assert code == 2 and "LAB=1" in err
    code, out, _ = run_grade("--list")
    assert code == 0 and all(f"LAB={n}" in out for n in (1, 2, 3, 4, 5, 6, 7))


def test_no_lab_lists_the_labs_and_succeeds():
    """`make grade` with no LAB is how a student finds the labs: a list,
    exit 0 (make must not add `Error 2`)."""
    code, out, _ = run_grade()
    assert code == 0 and all(f"LAB={n}" in out for n in (1, 2, 3, 4, 5, 6))
    p = subprocess.run(["make", "-s", "grade"], cwd=REPO, capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0 and "LAB=3" in p.stdout and "Error" not in p.stderr, p.stderr


def test_unknown_only_is_refused():
    code, _, err = run_grade("4", "--only", "nothing-*")
    assert code == 2 and "torture-smp2" in err


def test_with_a_missing_file_is_refused():
    code, _, err = run_grade("4", "--with", "kernel/rcu/rcu_student.c=no/such/file.c")
    assert code == 2 and "no/such/file.c" in err


def test_only_brings_in_what_a_check_requires():
    checks = grade.load(4)["check"]
    names = [c["name"] for c in grade.selected(checks, "torture-rcu_break-smp2")]
    assert names == ["torture-smp2", "torture-rcu_break-smp2"]


def test_a_check_whose_requirement_failed_is_not_run():
    c = dict(name="b", points=3, requires=["a"], config="no_such_defconfig")
    res = grade.run_check(c, 4, {}, "0", {}, "answers.toml", {"a": False})
    assert not res["ok"] and "needs a" in res["reasons"][0] and res["log"] is None


def test_close_answers_are_within_their_tolerance():
    c = dict(answers={"ms": {"rx": r"ms=([\d.]+)", "within": 0.4}})
    assert grade.check_answers(c, "ms=200.0", {"ms": 130}, "a.toml") == []
    why = grade.check_answers(c, "ms=200.0", {"ms": 110}, "a.toml")
    assert len(why) == 1 and "200" not in why[0]


def test_a_failed_measurement_is_a_reason_not_a_crash():
    out, why = grade.measure("python3 -c 'import sys; sys.exit(\"no trace\")'", "x.log")
    assert out == "" and "could not measure" in why[0] and "no trace" in why[0]
    out, why = grade.measure("echo got {log}", "some.log")
    assert out.strip() == "got some.log" and why == []


def test_lab6_measurement_reads_a_made_up_trace():
    """measure.py on a hand-made dump: cpu1 holds grace period 2 with ticks
    but no softirqs (bh); the other CPUs tick and run softirqs."""
    sys.path.insert(0, str(REPO / "labs" / "lab6-slow-grace-period"))
    import measure
    khz, lines = 1000000, ["TRACE-HEADER tsc_khz=1000000 cpus=3 entries=4096 mode=overwrite mask=f"]
    ev = []

    def at(ms, cpu, name, a=0, b=0):
        ev.append((int(ms * khz), cpu, name, a, b))
    for t in range(0, 300, 4):                       # ticks on every CPU
        for cpu in range(3):
            at(t + 0.1 * cpu, cpu, "tick", 1)
            if not (cpu == 1 and 20 <= t < 220):     # cpu1: softirqs off 20..220 ms
                at(t + 0.1 * cpu + 0.01, cpu, "softirq_entry", 4)
    at(1, 0, "gp_start", 1); at(5, 0, "qs", 1, 0); at(6, 1, "qs", 1, 1)
    at(7, 2, "qs", 1, 2); at(8, 0, "gp_end", 1, 1)
    at(10, 0, "gp_start", 2); at(12, 0, "qs", 2, 0); at(13, 2, "qs", 2, 2)
    at(19, 1, "switch", 1 << 32 | 9, 1); at(221, 1, "switch", 9 << 32 | 1, 1)
    at(224, 1, "qs", 2, 1); at(225, 0, "gp_end", 2, 2)
    for tsc, cpu, name, a, b in sorted(ev):
        lines.append("TRACE %d %x %s %x %x" % (cpu, tsc, name, a, b))
    lines += ["TRACE-CPU %d records=100 skipped=0 dropped=0" % c for c in range(3)]
    lines.append("TRACE-END records=300")
    seq, cpu, ms, cause = measure.measure(measure.Trace("\n".join(lines)))
    assert (seq, cpu, round(ms), cause) == (2, 1, 215, "bh")


def test_answers_are_compared_without_giving_them_away():
    c = dict(answers={"variant": r"rcu=(\S+)", "hz": r"HZ=(\d+)"})
    log = "config: HZ=250 CPUs=4 (max 16) preemption=none rcu=ltimer"
    assert grade.check_answers(c, log, {"variant": "LTimer", "hz": "250"}, "a.toml") == []
    why = grade.check_answers(c, log, {"variant": "poll", "hz": ""}, "a.toml")
    assert len(why) == 2 and not any("ltimer" in w or "250" in w for w in why)


# ---------------------------------------------------------------- both ways, under QEMU
@pytest.mark.qemu
def test_lab4_skeleton_scores_zero():
    code, r = graded("4", "--only", "rcu-api-smp1")
    assert code == 1 and r["score"] == 0 and r["max"] == 10, r
    assert any("grace period" in line for c in r["checks"] for line in c["reasons"] + c["evidence"])


@pytest.mark.qemu
def test_lab4_reference_scores_full_marks():
    code, r = graded("4", "--reference", "--only", "rcu-api-smp1,torture-rcu_break-smp2")
    assert [c["name"] for c in r["checks"]] == ["rcu-api-smp1", "torture-smp2", "torture-rcu_break-smp2"]
    assert code == 0 and r["score"] == r["max"] == 30, r


@pytest.mark.qemu
def test_lab4_model_answer_scores_full_marks():
    """labs/instructor/lab4/rcu_student.c, the design the handout guides to,
    in the student's place (a scratch copy, as --reference makes for
    Lab 3): the handout's steps lead to a passing RCU."""
    try:
        build("test-rcu_student_defconfig", "rcu_student_defconfig")   # seeds the copy
    except BuildError as e:
        pytest.fail(str(e), pytrace=False)
    code, r = graded("4", "--with", "kernel/rcu/rcu_student.c=labs/instructor/lab4/rcu_student.c",
                     "--only", "rcu-api-smp1,torture-rcu_break-smp2")
    assert code == 0 and r["score"] == r["max"] == 30, r


@pytest.fixture(scope="module")
def tree_build():
    """The build Lab 7's checks boot and its scratch copies are seeded with."""
    try:
        build("test-rcu_tree_defconfig", "rcu_tree_defconfig")
    except BuildError as e:
        pytest.fail(str(e), pytrace=False)


@pytest.mark.qemu
def test_lab7_stub_scores_zero(tree_build):
    """The handed-out report clears nothing: the unit tests fail, on the
    student's report (lab7=test), and the checks on the running tree are
    not run."""
    code, r = graded("7", "--only", "report-unit,torture-smp4")
    assert code == 1 and r["score"] == 0 and r["max"] == 45, r
    unit, torture = r["checks"]
    assert any("not ok" in w and "rcu_tree_report_leaf_keeps_waiting" in w
               for w in unit["reasons"]), unit
    assert "needs report-unit" in torture["reasons"][0], torture


@pytest.mark.qemu
def test_lab7_reference_scores_full_marks(tree_build):
    """The model answer (labs/instructor/lab7/lab7_report.c) in the
    student's place: the unit tests, then rcutorture on a three-level tree
    running on it (lab7=on)."""
    code, r = graded("7", "--reference", "--only", "report-unit,torture-smp8")
    assert [c["name"] for c in r["checks"]] == ["report-unit", "torture-smp8"]
    assert code == 0 and r["score"] == r["max"] == 45, r


def test_lab7_garbled_trace_dump_is_told_apart():
    """Lab 7's hint for a trace dump the console garbled (lines seen in a
    real failed trace-smp4 run) matches those and no well-formed line."""
    rx = next(h["rx"] for h in grade.load(7)["hint"] if "garbled" in h["say"])
    bad = ["TRACE 1 112e reader_enter 140f 1", "TRACE 3 106bc73e8 cb_invokeffffffff80217168",
           "TRACE 3 106e001d6 readerRACE 1 8d3 1"]
    good = ["TRACE 1 112331d42 reader_exit 140f 0", "TRACE 0 1f1f22f4a tick 1 0",
            "TRACE 2 10014cb84 cb_invoke ffffffff80217168 0", "TRACE-END records=35321"]
    assert all(re.search(rx, line) for line in bad)
    assert not any(re.search(rx, line) for line in good)


def test_hints_are_printed_past_the_first_reasons(capsys):
    """A failing test suite fills the first reasons (Lab 7's unit tests):
    a lab's hint is printed all the same."""
    reasons = [f"not ok {i} t{i}: x" for i in range(9)] + [grade.HINT + "take the lock"]
    grade.print_check(dict(name="u", points=5, ok=False, seconds=1.0, reasons=reasons,
                           evidence=[], log=None, shown=None))
    out = capsys.readouterr().out
    assert "hint: take the lock" in out and "not ok 5 t5" in out and "not ok 6 t6" not in out


def test_a_check_passes_its_timeline_to_the_scenario():
    c = dict(name="trace", config="rcu_tree_defconfig", cpus=4, timeline="pass")
    assert grade.scenario_of(c, 7, {}).timeline == "pass"
    del c["timeline"]
    assert grade.scenario_of(c, 7, {}).timeline == ""


@pytest.fixture(scope="module")
def lab3_builds():
    """The builds Lab 3's reference copy is seeded with (tools/grade.py)."""
    try:
        for cfg in ("rcu_busted_defconfig", "rcu_ltimer_defconfig"):
            build(f"test-{cfg}", cfg)
    except BuildError as e:
        pytest.fail(str(e), pytrace=False)


@pytest.mark.qemu
def test_lab3_handout_scores_zero(lab3_builds):
    code, r = graded("3", "--only", "stress-ltimer-smp4")
    assert code == 1 and r["score"] == 0 and r["max"] == 20, r
    busted, ltimer = r["checks"]
    assert not busted["ok"] and "ended as pass" in busted["reasons"][0]
    assert "needs stress-busted-smp4" in ltimer["reasons"][0]


@pytest.mark.qemu
def test_lab3_reference_scores_full_marks(lab3_builds):
    code, r = graded("3", "--reference", "--only", "stress-ltimer-smp4")
    assert code == 0 and r["score"] == r["max"] == 20, r


@pytest.fixture(scope="module")
def lab3_kcsan_builds(lab3_builds):
    """The KCSAN build races-kcsan-smp4 seeds its scratch copy with."""
    try:
        build("test-rcu_ltimer_defconfig+KCSAN-y", "rcu_ltimer_defconfig", ["CONFIG_KCSAN=y"])
    except BuildError as e:
        pytest.fail(str(e), pytrace=False)


@pytest.mark.qemu
@pytest.mark.full
def test_lab3_reference_has_no_data_race(lab3_kcsan_builds):
    code, r = graded("3", "--reference", "--only", "races-kcsan-smp4")
    assert code == 0 and r["score"] == r["max"] == 20, r


@pytest.mark.qemu
@pytest.mark.parametrize("lab,only", [("1", ""), ("2", "answer-poll_section"),
                                      ("5", "answer-defaults"), ("6", "")],
                         ids=["lab1", "lab2", "lab5", "lab6"])
def test_answer_labs_both_ways(lab, only, tmp_path):
    """The reference's grade also written as Gradescope's results.json,
    checked against the documented format."""
    args = [lab] + (["--only", only] if only else [])
    code, r = graded(*args)
    assert code == 1 and r["score"] == 0 < r["max"], r
    gs = tmp_path / "results.json"
    code, r = graded(*args, "--reference", "--gradescope", str(gs))
    assert code == 0 and r["score"] == r["max"] > 0, r
    doc = json.loads(gs.read_text())
    check_gradescope_results(doc)
    assert doc["score"] == r["max"] and all(t["status"] == "passed" for t in doc["tests"])


# ---------------------------------------------------------------- how a student meets the grader
def fake_qemu(monkeypatch, script):
    """Every boot and build the grader asks for, faked: QEMU is `sh -c
    script` (its output is the console), a build is a no-op. The grader's
    own code (qs.boot's console watching, qs.scenario's judging) runs."""
    import qs.boot
    import qs.scenario
    monkeypatch.setattr(qs.boot, "qemu_command",
                        lambda *a, **k: ["sh", "-c", script, "-cpu", "x"])
    monkeypatch.setattr(qs.boot, "build", lambda *a, **k: "/nonexistent.elf")
    monkeypatch.setattr(qs.boot, "facts", lambda elf: {})
    monkeypatch.setattr(qs.scenario, "build", lambda *a, **k: "/nonexistent.elf")
    monkeypatch.setattr(qs.scenario, "facts", lambda elf: {})
    monkeypatch.setattr(grade, "build", lambda *a, **k: "/nonexistent.elf")
    monkeypatch.setattr(grade, "_built", {})


STALL = "[   11.020] cpu0: INFO: rcu_ltimer detected stalls on CPUs: 2 (t=2500 jiffies)"


def test_a_stall_ends_the_check_and_is_quoted(monkeypatch):
    """A reader caught in a loop: the stall warning comes early, then the
    kernel prints register dumps until the timeout. The check must end a
    moment after the stall line (not wait out its 60 s) and quote it first."""
    fake_qemu(monkeypatch, f"echo 'config: booting'; echo '{STALL}'; echo 'cpu1: Call Trace:'; "
              "while :; do echo 'RIP: 0010:lab3_lookup+0x1c rax=6b6b6b6b'; sleep 0.2; done")
    said = []
    c = dict(name="stress", points=10, config="grade_fake_stall_defconfig", cpus=2,
             cmdline="ktest=lab3_table_stress", timeout=60)
    res = grade.run_check(c, 3, {}, "0", {}, "answers.toml", {}, said.append)
    assert not res["ok"] and res["seconds"] < 20, res
    assert res["evidence"][0] == STALL.strip(), res["evidence"]
    assert any("stopped after" in w for w in res["reasons"]), res["reasons"]
    assert not any("detected stalls" in w for w in res["reasons"]), "quoted twice"
    assert not any("Call Trace" in w for w in res["reasons"]), "the stall's own backtrace"
    assert any(m.startswith("building") for m in said) and any(m.startswith("booting") for m in said)


def test_a_symptoms_hint_gives_way_to_its_causes(monkeypatch):
    """Lab 7's hints on a faked report-unit console: a wrong return value
    alone gets the return value's hint; beside a leaf that kept its bits
    (the mistake the wrong return follows from), only the leaf's hint."""
    spec = grade.load(7)
    hints = spec["hint"]
    unit = next(c for c in spec["check"] if c["name"] == "report-unit")
    ret = "    # t: rcu_tree_report_test.c:159: reporting CPU 0 did not say the root emptied"
    kept = "    # leaf node 3 still has bits 0x1 that were reported at it"

    def said(*lines):
        body = "; ".join(f"echo '{ln}'" for ln in lines)
        fake_qemu(monkeypatch, f"echo 'config: booting'; {body}; echo 'not ok 1 t'")
        # a configuration per console: qs.boot shares boots of one command
        res = grade.run_check(dict(unit, config=f"grade_fake_hints{len(lines)}_defconfig"),
                              7, {}, "0", {},
                              "answers.toml", {}, hints=hints)
        assert not res["ok"], res
        return [w for w in hints_of(res["reasons"])]

    alone = said(ret)
    assert len(alone) == 1 and "the return value" in alone[0], alone
    both = said(ret, kept)
    assert len(both) == 1 and "the bits being reported were not cleared" in both[0], both


def test_a_warning_a_check_allows_does_not_end_it(monkeypatch):
    """expect_console's lines are not fatal: such a run goes on to its end."""
    fake_qemu(monkeypatch, f"echo '{STALL}'; sleep 3; echo 'after the stall'")
    c = dict(name="api", points=10, config="grade_fake_allowed_defconfig", cpus=2, timeout=60,
             expect_console=[r"INFO: \S+ detected stalls on CPUs:"])
    res = grade.run_check(c, 4, {}, "0", {}, "answers.toml", {})
    assert res["seconds"] >= 3 and "after the stall" in open(REPO / res["log"]).read()


def test_a_scratch_copys_logs_outlive_it(monkeypatch, tmp_path):
    """A grading in a scratch copy (--with, --mistake, --reference): the
    grader runs in the copy (here this tree stands in for it) on behalf of
    the tree it was started in (QS_GRADE_ROOT, here tmp_path). The log and
    the symbolized log a failed check names must be files in that tree,
    named from it, which stay when the copy's own are gone."""
    fake_qemu(monkeypatch, f"echo 'config: booting'; echo '{STALL}'; "
              "echo 'RIP: 0010:lab3_lookup+0x1c'; sleep 30")
    monkeypatch.setenv("QS_GRADE_ROOT", str(tmp_path))
    c = dict(name="stress", points=10, config="grade_fake_copy_defconfig", cpus=2,
             cmdline="ktest=lab3_table_stress", timeout=60)
    res = grade.run_check(c, 3, {}, "0", {}, "answers.toml", {})
    assert not res["ok"], res
    sym = [w.split(": ", 1)[1] for w in res["reasons"] if w.startswith("symbolized log: ")]
    assert len(sym) == 1, res["reasons"]
    for name in (sym[0], res["log"]):
        assert not name.startswith(("/", "..")), f"{name}: not named from the student's tree"
        assert (tmp_path / name).is_file(), f"{name}: no such file in the student's tree"
    # The copy's own files go (the next grading, or rm -rf build/grade):
    # what the student was pointed to stays, with the boot's console.
    for f in (REPO / "build" / "test-grade_fake_copy_defconfig" / "logs").glob("*"):
        f.unlink()
    for name in (sym[0], res["log"]):
        assert STALL in (tmp_path / name).read_text(), name


def test_two_gradings_of_one_copy_take_turns(monkeypatch, tmp_path):
    """Two gradings that need the same scratch copy at once (two `make
    grade LAB=3 GRADE_ARGS=--reference` in one tree, or two --mistake):
    the second must wait for the first to be done with the copy, or its
    sync (which rebuilds a copy it finds half-made: no .synced yet), its
    seeding (seed_build() skips a build folder that exists, even half
    copied) and its make would run in the first's files while it builds
    and boots them."""
    import threading
    import time
    events = []

    def step(what):
        def run(*a, **k):
            me = threading.current_thread().name
            events.append((me, what, "begin"))
            time.sleep(0.3)
            events.append((me, what, "end"))
            return 0
        return run
    monkeypatch.setattr(grade, "REPO", tmp_path)
    monkeypatch.setattr(grade, "sync_tree", step("sync"))
    monkeypatch.setattr(grade.subprocess, "call", step("grade"))
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    spec = dict(lab=3, check=[])
    gradings = [threading.Thread(target=grade.grade_copy, args=(spec, {}, ["3"], "ref"), name=n)
                for n in ("first", "second")]
    for g in gradings:
        g.start()
    for g in gradings:
        g.join(30)
    whose = [me for me, what, edge in events]
    assert len(events) == 8, events
    assert whose[:4] == [whose[0]] * 4 and whose[4:] == [whose[4]] * 4, \
        f"the two gradings used the copy at once: {events}"


GCC_OUT = """\
  CC      kernel/labs/lab3_table.o
kernel/labs/lab3_table.c: In function 'lab3_insert':
kernel/labs/lab3_table.c:41:9: error: implicit declaration of function 'spin_lock' [-Werror]
   41 |         spin_lock(&table_lock);
      |         ^~~~~~~~~
kernel/labs/lab3_table.c:47:9: error: 'table_lock' undeclared (first use in this function)
   47 |         spin_unlock(&table_lock);
cc1: all warnings being treated as errors
make: *** [Makefile:300: build/x/kernel/labs/lab3_table.o] Error 1"""


def test_a_build_error_shows_its_first_error_and_log_once(monkeypatch, capsys):
    """Checks sharing one broken build: the first shows the compiler's first
    error and the build log's path; the others point at it, no tail repeated."""
    fake_qemu(monkeypatch, "exit 1")
    calls = []

    def broken(name, *a, **k):
        calls.append(name)
        e = BuildError(f"build of build/{name} failed (log: build/{name}/build.log):\n{GCC_OUT}")
        e.log_path = REPO / "build" / name / "build.log"
        raise e
    monkeypatch.setattr(grade, "build", broken)
    checks = [dict(name=f"stress-{i}", points=5, config="grade_fake_broken_defconfig", cpus=2)
              for i in range(3)]
    checks.append(dict(name="other", points=5, config="grade_fake_broken2_defconfig", cpus=2))
    for c in checks:
        grade.print_check(grade.run_check(c, 3, {}, "0", {}, "answers.toml", {}))
    out = capsys.readouterr().out
    assert len(calls) == 2, "the broken build was tried again"
    assert out.count("41:9: error: implicit declaration of function 'spin_lock'") == 1, out
    assert "47:9" not in out and "Error 1" not in out, out
    assert out.count("build/test-grade_fake_broken_defconfig/build.log") == 3, out
    assert out.count("the error is under stress-0") == 2, out
    assert "broken2_defconfig does not build: the same error as under stress-0" in out, out


def test_a_failed_ktap_test_is_reported_once():
    """KTAP's `not ok 4 name` and the group check's `not ok name` are one
    test: one reason; its diagnostic lines are not repeated as evidence."""
    why = ["expected pass, the run ended as fail (exit 35)",
           "not ok 4 rcu_polled_api: rcu_polled_api: test_rcu.c:79: expected x: no grace period",
           "not ok rcu_polled_api: rcu_polled_api: test_rcu.c:79: expected x: no grace period",
           "not ok rcu_other: rcu_other: y"]
    assert grade.one_not_ok_each(why) == [why[0], why[1], why[3]]
    assert grade.quoted("# rcu_polled_api: test_rcu.c:79: expected x: no grace period", why)
    assert grade.quoted("not ok 4 rcu_polled_api", why)
    assert not grade.quoted("not ok 5 rcu_polled", why)
    assert not grade.quoted("rcu-torture: FAILURE", why)


def test_reasons_are_wrapped_not_cut_and_not_ok_is_shown_once(capsys):
    long = ("not ok torture_rcu: " + "a reader saw a freed element after its grace period; " * 6)
    res = dict(name="t", points=5, ok=False, seconds=1.0, reasons=[long],
               evidence=[e for e in ["not ok 1 torture_rcu", "rcu-torture: FAILURE"]
                         if not grade.quoted(e, [long])],
               log=None, shown=None)
    grade.print_check(res)
    out = capsys.readouterr().out
    assert " ".join(out.split()).count("grace period;") == 6, out
    assert "not ok 1 torture_rcu" not in out and "rcu-torture: FAILURE" in out


# ---------------------------------------------------------------- Gradescope
def test_gradescope_results_of_a_graded_lab(monkeypatch, tmp_path):
    """grade.py --gradescope end to end (QEMU faked): Lab 3's busted-variant
    check, the kernel stalling instead of panicking, then the check that
    requires it, not run. The results.json is in Gradescope's format, the
    stall line in the failed test's output, the ungraded check left out."""
    fake_qemu(monkeypatch, f"echo '{STALL}'; sleep 30")
    path = tmp_path / "results.json"
    code = grade.main(["3", "--only", "stress-ltimer-smp4", "--gradescope", str(path)])
    doc = json.loads(path.read_text())
    check_gradescope_results(doc)
    assert code == 1 and doc["score"] == 0 and doc["execution_time"] < 25, doc
    busted, ltimer = doc["tests"]
    assert busted["name"] == "stress-busted-smp4" and busted["max_score"] == 10
    assert "detected stalls" in busted["output"] and busted["status"] == "failed"
    assert "needs stress-busted-smp4" in ltimer["output"]
    # what the prerequisite saw, not only that it failed
    assert re.search(r"stress-busted-smp4 saw: INFO: \S+ detected stalls", ltimer["output"]), \
        ltimer["output"]


@pytest.mark.parametrize("where,hint,not_hint", [
    (", inside rcu_read_lock()", "freed while a reader still held it", "after rcu_read_unlock()"),
    ("", "freed while a reader still held it", "after rcu_read_unlock()"),
    (", outside any RCU read-side critical section", "after rcu_read_unlock()",
     "freed while a reader still held it"),
], ids=["inside", "unknown", "outside"])
def test_lab3_freed_entry_panic_is_explained(monkeypatch, where, hint, not_hint):
    """Lab 3's hints: a reader that found a freed entry on a real variant
    inside its read-side section means a kfree() that did not wait for a
    grace period; outside it, an entry used after rcu_read_unlock(). The
    check says which, and not the other (the stress test's panic says
    where the reader was when PROVE_RCU keeps the count)."""
    fake_qemu(monkeypatch, "echo '[    2.5] cpu1: Kernel panic on CPU 1: lab3-stress: a reader "
              f"on cpu1 found a freed or torn entry at once{where}: asked key 7'; exit 1")
    spec = grade.load(3)
    hints = spec["hint"]
    c = next(c for c in spec["check"] if c["name"] == "stress-ltimer-smp4")
    # A config of its own per case: qs.boot caches a boot by its build.
    c = dict(c, config=f"grade_fake_freed{len(where)}_defconfig", requires=[])
    res = grade.run_check(c, 3, {}, "0", {}, "answers.toml", {}, hints=hints)
    assert not res["ok"]
    assert any(hint in w for w in hints_of(res["reasons"])), res["reasons"]
    assert not any(not_hint in w for w in hints_of(res["reasons"])), res["reasons"]
    assert any("lab3-stress:" in e for e in res["evidence"]), res["evidence"]


def test_a_warning_before_an_expected_panic_still_fails(monkeypatch):
    """The run stops at the WARNING, QEMU ends with the expected panic
    within the grace: the status is as expected, and the WARNING (quoted
    as the evidence, not in the reasons) must still fail the check."""
    import qs.qemu
    code = next(k for k, v in qs.qemu.STATUS_BY_CODE.items() if v == "panic")
    fake_qemu(monkeypatch, "echo 'config: HZ=250 CPUs=2 (max 16) preemption=none rcu=busted'; "
              "echo 'WARNING: at kernel/test/lab3.c:12'; sleep 0.5; "
              f"echo 'Kernel panic on CPU 0: lab3-stress: x'; exit {code}")
    c = dict(name="busted", points=10, config="grade_fake_warnpanic_defconfig", cpus=2,
             timeout=60, expect="panic")
    res = grade.run_check(c, 3, {}, "0", {}, "answers.toml", {})
    assert not res["ok"] and res["evidence"][0].startswith("WARNING: at"), res



@pytest.mark.qemu
def test_a_real_stall_is_quoted_first():
    """One short boot (about 3 s): rcu-ltimer's provoked stall warning, not
    allowed by this check, is the first line of the evidence."""
    c = dict(name="stall", points=5, config="rcu_ltimer_defconfig", cpus=2, timeout=120,
             cmdline="ktest=rcu_stall_warning rcu_stall_timeout=500")
    res = grade.run_check(c, 4, {}, "0", {}, "answers.toml", {})
    assert not res["ok"] and res["seconds"] < 60, res
    assert re.search(r"INFO: \S+ detected stalls on CPUs:", res["evidence"][0]), res["evidence"]


def test_lab3_prove_rcu_report_is_shown_with_its_place(monkeypatch):
    """A conversion that walks the table without rcu_read_lock(): the
    PROVE_RCU report ends the boot, and the check shows its file:line and
    the locks held, with Lab 3's hint about what to fix."""
    fake_qemu(monkeypatch,
              "echo '[    0.5] cpu1: WARNING: suspicious rcu_dereference_check() usage'; "
              "echo '[    0.5] cpu1:   kernel/labs/lab3_table.c:58: rcu_dereference_check() "
              "outside an RCU read-side section and without its condition'; "
              "echo '[    0.5] cpu1:   task lab3-r1/9 on cpu1: rcu_read_lock nesting 0, "
              "preempt_count 00000000, irqs on'; "
              "echo '[    0.5] cpu1: lockdep: no locks held by lab3-r1/9'; "
              "echo '[    0.5] cpu1: Call Trace:'; sleep 0.5; exit 0")
    spec = grade.load(3)
    hints = spec["hint"]
    c = next(c for c in spec["check"] if c["name"] == "stress-ltimer-smp4")
    c = dict(c, config="grade_fake_prove_defconfig", requires=[])
    res = grade.run_check(c, 3, {}, "0", {}, "answers.toml", {}, hints=hints)
    assert not res["ok"]
    assert "WARNING: suspicious rcu_dereference_check()" in res["evidence"][0], res["evidence"]
    assert any("lab3_table.c:58:" in e and "outside an RCU read-side section" in e
               for e in res["evidence"]), res["evidence"]
    assert any("no locks held" in e for e in res["evidence"]), res["evidence"]
    assert any("rcu_read_lock() around the walk" in w for w in res["reasons"]), res["reasons"]


def test_an_answer_hint_fits_the_misreading_and_only_it():
    """[[answer_hint]]: a wrong answer equal to the decoy value (group 1 of
    its rx in the log, or a fixed value) gets the hint, a right answer or
    another wrong one does not, and the decoy is never printed."""
    c = dict(answers={"cpus": r"CPUs=(\d+)"})
    log = "config: HZ=250 CPUs=4 (max 16) preemption=none rcu=ltimer"
    hints = [dict(answer="cpus", rx=r"\(max (\d+)\)", say="16 is CONFIG_NR_CPUS"),
             dict(answer="cpus", value=[250], say="250 is HZ")]
    assert grade.check_answers(c, log, {"cpus": 4}, "a.toml", hints) == []
    why = grade.check_answers(c, log, {"cpus": 16}, "a.toml", hints)
    assert why[-1] == grade.HINT + "16 is CONFIG_NR_CPUS" and len(why) == 2, why
    why = grade.check_answers(c, log, {"cpus": "250"}, "a.toml", hints)
    assert why[-1] == grade.HINT + "250 is HZ", why
    why = grade.check_answers(c, log, {"cpus": 3}, "a.toml", hints)
    assert len(why) == 1 and not any("4" in w for w in why), why
    near = [dict(answer="cpus", value=[10], within=0.5, say="near ten")]
    assert grade.check_answers(c, log, {"cpus": 14}, "a.toml", near)[-1] == grade.HINT + "near ten"
    assert len(grade.check_answers(c, log, {"cpus": 16}, "a.toml", near)) == 1


# ---------------------------------------------------------------- the catalogue of mistakes
def catalogue(whole=False):
    """Every mistake of Labs 3, 4 and 7 (labs/instructor/labN/mistakes.toml)
    as a pytest param: graded on its own check, those marked make_test in
    make test and the rest in make test-full; graded whole, all in full."""
    out = []
    for n in (3, 4, 7):
        for name, m in grade.mistakes_of(n).items():
            fast = m.get("make_test") and not whole
            out.append(pytest.param(n, name, id=f"lab{n}-{name}",
                                    marks=() if fast else pytest.mark.full))
    return out


def seed_builds(lab, only=""):
    """The builds of the checks a grading runs, in this tree: the scratch
    copy is seeded with them, so that only the mistake's file compiles."""
    spec = grade.load(lab)
    for c in grade.selected(spec["check"], only):
        if "config" in c:
            sc = grade.scenario_of(c, lab, {})
            try:
                build(sc.build_name, sc.config, sc.options)
            except BuildError as e:
                pytest.fail(str(e), pytrace=False)


def hints_of(reasons):
    return [w for w in reasons if w.startswith(grade.HINT)]


def test_the_catalogue_is_complete_and_applies():
    """At least six mistakes a lab, each with what the test below holds it
    to; every edit applies to the reference once, and every line it must
    name is in its text: a reference that moved under a mistake fails
    here, not as a mistake that silently became the reference."""
    for n in (3, 4, 7):
        ms = grade.mistakes_of(n)
        checks = {c["name"]: c for c in grade.load(n)["check"]}
        assert len(ms) >= 6, n
        for name, m in ms.items():
            assert m["check"] in checks and m.get("what") and m.get("hint"), (n, name)
            assert isinstance(m.get("score"), int) and isinstance(m.get("full"), int), (n, name)
            text = grade.mistake_text(m)
            base = (REPO / m["base"]).read_text() if "base" in m else None
            assert text != base, (n, name)
            if m.get("line"):
                assert grade.mistake_line(m), (n, name)
            says = [h["say"] for h in grade.load(n).get("hint", [])]
            assert any(m["hint"] in h for h in says), (n, name, m["hint"])
            for wrong in m.get("not_hints", []):
                # a hint the lab has, or the test of its absence proves nothing
                assert wrong not in m["hint"] and any(wrong in h for h in says), (n, name, wrong)
    with pytest.raises(grade.GradeError, match="not once"):
        grade.mistake_text(dict(name="x", base="labs/instructor/lab3/lab3_table.c",
                                replace=[["no such text", "y"]]))


@pytest.mark.qemu
@pytest.mark.parametrize("lab,name", catalogue())
def test_a_mistake_fails_its_check_with_its_hint(lab, name):
    """A wrong solution graded on the check that must catch it: it loses
    that check's points (the score its entry says), the check shows the
    hint that fits it and none of those that do not, and names the
    student's line where the entry says the evidence allows."""
    m = grade.mistakes_of(lab)[name]
    seed_builds(lab, m["check"])
    for _ in range(m.get("tries", 1)):      # a sampling detector (KCSAN): its entry says
        code, r = graded(str(lab), "--mistake", name, "--only", m["check"])
        c = {c["name"]: c for c in r["checks"]}[m["check"]]
        if not c["ok"]:
            break
    assert code == 1 and not c["ok"] and r["score"] == m["score"], (name, r)
    hints = hints_of(c["reasons"])
    assert any(m["hint"] in h for h in hints), (name, c["reasons"], c["evidence"])
    for wrong in m.get("not_hints", []):
        assert not any(wrong in h for h in hints), (name, wrong, hints)
    if m.get("line"):
        want = f"{m['file']}:{grade.mistake_line(m)}"
        assert any(w.startswith("your line: " + want) for w in c["reasons"]), (name, want, c)


@pytest.mark.qemu
@pytest.mark.full
@pytest.mark.parametrize("lab,name", catalogue(whole=True))
def test_a_mistake_graded_whole_loses_points(lab, name):
    """The whole grading of a mistake: at most its entry's score (less
    than full marks), the fitting hint under some failed check, no unfit
    one anywhere, and the line full_line names (the kfree() a KASAN
    report's free stack names) where the entry gives one."""
    m = grade.mistakes_of(lab)[name]
    seed_builds(lab)
    for _ in range(m.get("tries", 1)):
        code, r = graded(str(lab), "--mistake", name)
        if r["score"] <= m["full"]:
            break
    assert code == 1 and r["score"] <= m["full"] < r["max"], (name, r["score"], r)
    failed = [c for c in r["checks"] if not c["ok"]]
    hints = [h for c in failed for h in hints_of(c["reasons"])]
    assert any(m["hint"] in h for h in hints), (name, hints)
    for wrong in m.get("not_hints", []):
        assert not any(wrong in h for h in hints), (name, wrong, hints)
    if m.get("full_line"):
        want = f"{m['file']}:{grade.mistake_line(dict(m, line=m['full_line']))}"
        assert any(w.startswith("your line: " + want) for c in failed for w in c["reasons"]), \
            (name, want)


def test_lab4_harder_track_is_graded_by_the_same_checks(monkeypatch, capsys):
    """--track harder (QEMU faked): the same checks and points as Lab 4's
    own grading, with the track and its handout in the output; the
    handout withholds the steps; an unknown track is refused."""
    spec = grade.load(4)
    handout = REPO / spec["tracks"]["harder"]
    assert handout.exists() and "## Steps" not in handout.read_text()
    assert "## Steps" in (spec["dir"] / "README.md").read_text()
    fake_qemu(monkeypatch, "echo 'config: booting'; exit 1")
    code = grade.main(["4", "--track", "harder", "--only", "rcu-api-smp1", "--json"])
    r = json.loads(capsys.readouterr().out)
    assert code == 1 and r["track"] == "harder" and r["handout"].endswith("HARDER.md"), r
    assert [c["name"] for c in r["checks"]] == ["rcu-api-smp1"] and r["max"] == 10, r
    code, _, err = run_grade("4", "--track", "nosuch")
    assert code == 2 and "harder" in err


def test_a_report_is_its_cpus_lines_and_names_the_students_line():
    """Four CPUs warning at once interleave their reports: the failing
    report is the stop line's CPU's lines (another CPU's WARNING does not
    end it), and the student's first place in it, then where their code
    was entered, is named; KASAN's free stack names the free."""
    log = ["[ 1.0] cpu1: WARNING: sleeping function called from invalid context at x.c:48",
           "[ 1.0] cpu0: WARNING: sleeping function called from invalid context at y.c:9",
           "[ 1.0] cpu1:   inside an RCU read-side critical section: preempt_count 00000000",
           "[ 1.0] cpu1: Call Trace:",
           "[ 1.0] cpu1:   [<ff>] synchronize_kernel+0x18/0x40  kernel/rcu/update.c:48",
           "[ 1.0] cpu1:   [<ff>] lab3_lookup+0x35/0x70  include/rcupdate.h:60 (inlined into "
           "lab3_lookup at kernel/labs/lab3_table.c:54)",
           "[ 1.0] cpu0:   [<ff>] lab3_delete+0x35/0x70  kernel/labs/lab3_table.c:99",
           "[ 1.0] cpu1:   [<ff>] lab3_reader_fn+0x4b/0x90  kernel/labs/lab3_table_test.c:96",
           "[ 1.1] cpu1: WARNING: the next report"]
    rep = grade.report_of(log, log[0])
    assert len(rep) == 6 and "inside an RCU" in rep[1] and "lab3_delete" not in "".join(rep), rep
    assert grade.student_lines(rep, ["kernel/labs/lab3_table.c"]) == \
        [("the report", "kernel/labs/lab3_table.c:54", "lab3_lookup")]
    # The symbolizer adds file:line to the stop line: still the report's start.
    sym = ["[ 1.3] cpu0: x", "[ 1.3] cpu0: BUG: KASAN: use-after-free in lab3_find+0x37/0x100  "
           "kernel/labs/lab3_table.c:27", "[ 1.3] cpu0: Read of size 8 at addr ffff8000"]
    stop = "[ 1.3] cpu0: BUG: KASAN: use-after-free in lab3_find+0x37/0x100"
    assert grade.report_of(sym, stop)[1:] == ["Read of size 8 at addr ffff8000"]
    kasan = ["BUG: KASAN: use-after-free in lab3_lookup+0x9f/0x160  kernel/labs/lab3_table.c:27 "
             "(inlined into lab3_lookup at kernel/labs/lab3_table.c:51)",
             "Freed by task 17 on CPU 3:", "  [<ff>] kfree+0x1d/0xb0  kernel/mm/kmalloc.c:576",
             "  [<ff>] lab3_delete+0x44/0x160  kernel/labs/lab3_table.c:104",
             # an RCU callback's free, in a softirq on top of the student's code:
             # what it interrupted is not where it was freed
             "Freed by task 17 on CPU 3 after grace period 8, by an RCU callback:",
             "  [<ff>] rcu_invoke_one+0xac/0xf0  kernel/rcu/invoke.c:66",
             "  [<ff>] __do_softirq+0xd1/0x260  kernel/sched/softirq.c:101",
             "  [<ff>] lab3_insert+0x5a/0x370  kernel/labs/lab3_table.c:35",
             "RCU: the access is outside any read-side critical section"]
    assert grade.student_lines(kasan, ["kernel/labs/lab3_table.c"]) == [
        ("the report", "kernel/labs/lab3_table.c:27", ""),
        ("called from", "kernel/labs/lab3_table.c:51", "lab3_lookup"),
        ("freed", "kernel/labs/lab3_table.c:104", "lab3_delete")]
    assert not grade.FRAME.match(kasan[-1]) and grade.FRAME.match("RAX: 6b6b6b6b6b6b6b6b")


def test_a_kcsan_report_names_both_accesses():
    """KCSAN's report (a real one's shape): its first line names the
    student's place, then each access's stack its own; no 'called from'
    joins the two accesses' stacks into one."""
    rep = ["BUG: KCSAN: data-race in lab3_insert+0x19a/0x360 / lab3_find+0x4f/0x140  "
           "include/list.h:29 (inlined into list_add at include/list.h:37) (inlined into "
           "lab3_insert at kernel/labs/lab3_table.c:70)",
           "read (marked) to 0xffff80001ff26c00 of 8 bytes by task 15 (lab3read/2) on cpu 2:",
           "  [<ff>] lab3_find+0x4f/0x140  kernel/labs/lab3_table.c:27",
           "  [<ff>] lab3_lookup+0x47/0xc0  kernel/labs/lab3_table.c:51",
           "write to 0xffff80001ff56c00 of 8 bytes by task 17 (lab3update) on cpu 3:",
           "  [<ff>] lab3_insert+0x24a/0x380  include/list.h:29 (inlined into lab3_insert at "
           "kernel/labs/lab3_table.c:70)"]
    assert grade.student_lines(rep, ["kernel/labs/lab3_table.c"]) == [
        ("the report", "kernel/labs/lab3_table.c:70", "lab3_insert"),
        ("access 1: read (marked)", "kernel/labs/lab3_table.c:27", "lab3_find"),
        ("access 2: write", "kernel/labs/lab3_table.c:70", "lab3_insert")]
