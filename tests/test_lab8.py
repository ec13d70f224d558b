"""Lab 8 (labs/lab8-find-the-bug/): the planted bugs, the planting, the
evidence checks and the grader.

make test (no QEMU, about a second): every bug file loads in
tools/mutants.py's format and its text is in the tree exactly once (a
stale bug cannot be planted); the six classes the lab promises are there;
a student id always hashes to the same bug and a class of forty ids meets
every bug; planting changes the one file, keeps the pristine copy and does
not name the bug; the workload does not name it either; the written-answer
checks fail a wrong, a missing and a far-off answer (and never print what
was measured), and pass the right one, against measured values put in
place of the grader's boot; the reference answers cover every bug.

make test-full (boots): each bug is reported by its tool in 10 of 10 runs
of its workload (lab8.py rate, under MTTCG as a student runs it); the
grader on the reference scores full marks for every bug; the grader on
every bug left unfixed loses the fix's 30 points and keeps the evidence's.
"""
import json
import re
import subprocess
import sys
import tomllib

import pytest

from qs import REPO

sys.path.insert(0, str(REPO / "labs" / "lab8-find-the-bug"))
import lab8  # noqa: E402

CLASSES = {"a free before its grace period", "a pointer kept past rcu_read_unlock()",
           "a publication before initialisation",
           "a missing re-check under the lock after a lock-free lookup",
           "a missing retry after a concurrent rename", "an update-side walk without its lock"}
BUGS = lab8.bugs()
NAMES = [m["name"] for m in BUGS]


# ---------------------------------------------------------------- no QEMU
def test_bugs_load_and_plant_cleanly():
    assert len(BUGS) >= 6
    assert CLASSES <= {m["lab"]["class"] for m in BUGS}
    for m in BUGS:
        text = (REPO / m["file"]).read_text()
        assert text.count(m["find"]) == 1, f"{m['name']}: stale, its text is not in {m['file']} once"
        assert m["replace"] != m["find"]
        lab = m["lab"]
        for key in ("user", "class", "tool", "held", "stress"):
            assert key in lab, (m["name"], key)
        # each answer measured from the grader's boot, or named where no
        # console can show it (a KCSAN line, a test's parked reader)
        assert ("report_rx" in lab) + ("report_text" in lab) + ("report" in lab) == 1, m["name"]
        assert ("reader_rx" in lab) + ("reader" in lab) == 1, m["name"]
        assert m["site"], f"{m['name']}: CAUGHT must mean its tool's report was seen"
        assert lab["held"] in ("task", "process", "file", "fdtable", "dentry", "ipc object", "rtable")
        assert (REPO / "configs" / m["config"]).exists() and \
            (REPO / "configs" / lab["stress"]["config"]).exists(), m["name"]


def test_student_ids_spread_and_repeat():
    seen = {lab8.chosen({"student": f"s{i:04d}"})[0]["name"] for i in range(40)}
    assert seen == set(NAMES)
    assert lab8.chosen({"student": "alice"})[0] is not None
    assert lab8.chosen({"student": "alice"})[0]["name"] == lab8.chosen({"student": " alice "})[0]["name"]
    assert lab8.pick_of("alice") == 0x2bd806c97f0e00af  # sha256: the same on every machine
    for i, m in enumerate(BUGS):
        assert lab8.chosen({"pick": i})[0]["name"] == m["name"]


def test_plant_changes_one_file_and_names_no_bug(tmp_path, monkeypatch, capsys):
    m = lab8.chosen({"student": "s0001"})[0]
    (tmp_path / m["file"]).parent.mkdir(parents=True)
    (tmp_path / m["file"]).write_text((REPO / m["file"]).read_text())
    (tmp_path / "lab").mkdir()
    monkeypatch.setattr(lab8, "REPO", tmp_path)
    monkeypatch.setattr(lab8, "PLANTED", tmp_path / "lab" / "planted.toml")
    monkeypatch.setattr(lab8, "PRISTINE", tmp_path / "pristine")
    assert lab8.plant(student="s0001") == 0
    out = capsys.readouterr().out
    planted = (tmp_path / m["file"]).read_text()
    assert planted.count(m["replace"]) == 1 and m["find"] not in planted
    assert (tmp_path / "pristine" / m["file"]).read_text() == (REPO / m["file"]).read_text()
    note = (tmp_path / "lab" / "planted.toml").read_text()
    assert tomllib.loads(note) == {"student": "s0001"}
    for name in NAMES:
        assert name not in out and name not in note
    assert m["cmdline"] in out and "make replay" in out
    # the planted file is what the grader's "before" boot rebuilds
    assert lab8.planted_text(m) == planted
    with pytest.raises(lab8.LabError, match="planted here already"):
        lab8.plant(student="s0002")


MEASURED = {"failed": True, "first_failure_s": 0.412873, "held": "dentry",
            "report": "kernel/fs/dcache.c:140", "reader": "d_lookup_rcu"}


@pytest.fixture
def answered(tmp_path, monkeypatch):
    """check_evidence against measured values put in place of the boot."""
    m = next(b for b in BUGS if b["lab"]["held"] == "dentry")
    monkeypatch.setattr(lab8, "measure", lambda bug: dict(MEASURED))
    monkeypatch.setattr(lab8, "ANSWERS", tmp_path / "answers.toml")

    def check(keys, **answers):
        (tmp_path / "answers.toml").write_text("".join(f"{k} = {json.dumps(v)}\n"
                                                       for k, v in answers.items()))
        return lab8.check_evidence(m, keys)
    return check


def test_written_answers_right_pass(answered):
    assert answered(["report"], report="kernel/fs/dcache.c:140") == []
    assert answered(["report"], report="./kernel/fs/dcache.c:140") == []
    assert answered(["first_failure_s"], first_failure_s=0.4130) == []
    assert answered(["reader", "held"], reader="d_lookup_rcu()", held="Dentry") == []


def test_written_answers_wrong_fail_and_give_nothing_away(answered):
    cases = [(["report"], {"report": "kernel/fs/dcache.c:141"}, "report: "),
             (["report"], {"report": "kernel/fs/namei.c:140"}, "report: "),
             (["first_failure_s"], {"first_failure_s": 0.4140}, "first_failure_s: "),
             (["first_failure_s"], {"first_failure_s": "soon"}, "first_failure_s: "),
             (["reader", "held"], {"reader": "d_lookup_rcu", "held": "file"}, "held: "),
             (["reader", "held"], {"reader": "d_lookup", "held": "dentry"}, "reader: ")]
    for keys, answers, said in cases:
        why = answered(keys, **answers)
        assert len(why) == 1 and why[0].startswith(said) and "not what the grader measured" in why[0], \
            (answers, why)
        for v in MEASURED.values():
            assert str(v) not in why[0].split("is not")[1], why
    why = answered(["reader", "held"], reader="", held="dentry")
    assert why == ["reader: no answer in answers.toml"]


def test_evidence_needs_a_boot_that_failed(answered, monkeypatch):
    monkeypatch.setattr(lab8, "measure", lambda bug: dict(MEASURED, failed=False))
    assert "did not fail" in answered(["report"], report="kernel/fs/dcache.c:140")[0]


def test_reference_answers_cover_every_bug():
    ref = tomllib.loads((REPO / "labs/instructor/lab8/answers.toml").read_text())
    handout = tomllib.loads((REPO / "labs/lab8-find-the-bug/answers.toml").read_text())
    assert ref.get("reference") is True
    assert set(handout) == {"report", "first_failure_s", "reader", "held"}
    assert not any(handout.values())
    for m in BUGS:
        assert set(ref[m["name"]]) == set(handout) and all(ref[m["name"]].values()), m["name"]
        assert ref[m["name"]]["held"] == m["lab"]["held"]


def test_reference_answers_measured_on_this_tree():
    """A change to the kernel moves the first failure by microseconds:
    answers measured before it would fail a student who is right."""
    ref = tomllib.loads((REPO / "labs/instructor/lab8/answers.toml").read_text())
    assert ref.get("tree") == lab8.tree_fingerprint(), (
        "the kernel changed since Lab 8's reference answers were measured: "
        "python3 labs/lab8-find-the-bug/lab8.py measure --write (a minute with warm builds)")


def test_grade_toml_weighs_evidence_as_much_as_the_fix():
    sys.path.insert(0, str(REPO / "tools"))
    import grade
    spec = grade.load(8)
    pts = {c["name"]: c["points"] for c in spec["check"]}
    assert sum(v for k, v in pts.items() if k.startswith("evidence-")) == \
        sum(v for k, v in pts.items() if k.startswith("fix-")) > 0
    for c in spec["check"]:
        assert c["host"].split()[-1] in lab8.CHECKS


# ---------------------------------------------------------------- QEMU (make test-full)
@pytest.mark.full
@pytest.mark.parametrize("name", NAMES)
def test_each_bug_reported_ten_of_ten(name):
    p = subprocess.run([sys.executable, str(REPO / "labs/lab8-find-the-bug/lab8.py"), "rate",
                        name, "--repeat", "10", "--kvm", "0"], cwd=REPO, capture_output=True,
                       text=True, timeout=3600)
    assert p.returncode == 0 and "| 10/10 |" in p.stdout, p.stdout[-3000:] + p.stderr[-2000:]


def grade_planted(tmp_path, name, answers, planted_source):
    """tools/grade.py 8 in a scratch copy: planted.toml picking bug `name`,
    the answers given, and (planted_source) the bug planted in its file."""
    i = NAMES.index(name)
    m = BUGS[i]
    (tmp_path / "planted.toml").write_text(f"pick = {i}\n")
    args = ["--with", f"labs/lab8-find-the-bug/planted.toml={tmp_path / 'planted.toml'}",
            "--with", f"labs/lab8-find-the-bug/answers.toml={answers}"]
    if planted_source:
        (tmp_path / "bug.c").write_text(lab8.planted_text(m))
        args += ["--with", f"{m['file']}={tmp_path / 'bug.c'}"]
    p = subprocess.run([sys.executable, str(REPO / "tools/grade.py"), "8", "--json",
                        "--kvm", "0"] + args, cwd=REPO, capture_output=True, text=True,
                       timeout=3600)
    assert p.stdout.strip(), p.stderr[-3000:]
    return json.loads(p.stdout)


@pytest.mark.full
@pytest.mark.parametrize("name", NAMES)
def test_reference_full_marks(tmp_path, name):
    g = grade_planted(tmp_path, name, REPO / "labs/instructor/lab8/answers.toml", True)
    assert g["score"] == g["max"] == 60, json.dumps(g, indent=1)[-4000:]


@pytest.mark.full
@pytest.mark.parametrize("name", NAMES)
def test_unfixed_bug_loses_the_fix(tmp_path, name):
    ref = tomllib.loads((REPO / "labs/instructor/lab8/answers.toml").read_text())[name]
    (tmp_path / "answers.toml").write_text("".join(f"{k} = {json.dumps(v)}\n"
                                                   for k, v in ref.items()))
    g = grade_planted(tmp_path, name, tmp_path / "answers.toml", True)
    ok = {c["name"]: c["ok"] for c in g["checks"]}
    assert not ok["fix-own-test"] and not ok["fix-stress"] and not ok["fix-torture"], ok
    assert ok["evidence-report"] and ok["evidence-replay"] and ok["evidence-reader"], ok
    assert g["score"] == 30, json.dumps(g, indent=1)[-4000:]


@pytest.mark.full
def test_timeline_step_on_a_planted_bug(tmp_path):
    """The handout's step 6 on a planted kernel, as a student types it: the
    bug's workload booted deterministically with the trace on and dumped
    at its end, then tools/timeline.py's png, json and check on that log.
    The bug is one whose run goes on after its report (PROVE_RCU's), so
    the dump is printed; the variant is a real one, so every callback
    passes the check, which has no reader section to judge: the bug is
    the student's reader, not RCU's."""
    m = dict(BUGS[NAMES.index("ipc-reader-unlocked")])
    dst = REPO / "build" / "lab8-timeline" / "src"
    dst.mkdir(parents=True, exist_ok=True)
    lab8.copy_tree(dst)
    (dst / m["file"]).write_text(lab8.planted_text(m))
    m["cmdline"] = "trace=rcu,sched trace.dump_at_end=1 " + m["cmdline"]
    _, log, last = lab8.boot(dst, "lab8-timeline", m, deterministic=True)
    assert log and log.exists(), last
    text = log.read_text(errors="replace")
    assert "suspicious rcu_dereference_check() usage" in text and "TRACE-END" in text, text[-2000:]
    tool = [sys.executable, str(REPO / "tools" / "timeline.py")]
    for sub, extra in (("png", ["--span-us", "20000"]), ("json", [])):
        out = tmp_path / f"t.{sub}"
        p = subprocess.run(tool + [sub, str(log), "-o", str(out)] + extra, cwd=REPO,
                           capture_output=True, text=True, timeout=300)
        assert p.returncode == 0 and out.stat().st_size > 0, p.stdout + p.stderr
    events = json.loads((tmp_path / "t.json").read_text())["traceEvents"]
    # What the handout says the rows hold: grace periods (and no reader
    # sections: only rcutorture traces those).
    assert any(str(e.get("name", "")).startswith("GP ") for e in events), events[:20]
    assert not any(str(e.get("name", "")).startswith("reader ") for e in events)
    p = subprocess.run(tool + ["check", str(log)], cwd=REPO, capture_output=True, text=True,
                       timeout=300)
    # As the handout says: the callbacks judged and passed, the readers
    # inconclusive (exit 2), since the stress test traces none.
    assert p.returncode == 2 and "INCONCLUSIVE: no reader section" in p.stdout, p.stdout + p.stderr
    assert re.search(r"\b[1-9]\d* callbacks judged", p.stdout), p.stdout


def test_printed_replay_command_replays_the_workload():
    """The replay line lab8.py prints, as make runs it (make -n): the
    workload's own boot, not a scenario. make torture's SCEN default once
    leaked into it, and make replay said `no scenario named torture-*`."""
    line = lab8.workload_text(BUGS[0]).split("\n")[-1].strip()
    assert line.startswith("make replay "), line
    p = subprocess.run(["bash", "-c", line.replace("make replay ", "make -n replay ", 1)],
                       cwd=REPO, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and "tools/replay.py" in p.stdout, p.stdout + p.stderr
    assert "--scenario" not in p.stdout, p.stdout
