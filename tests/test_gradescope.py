"""Grading on Gradescope (labs/README.md, "Grading on Gradescope"): the
format check of results.json can fail, and labs/instructor/gradescope/
run_autograder takes Lab 8's files, its planted.toml checked against the
student Gradescope names, in a trial root (AUTOGRADER=dir), stopped
before the boots (LAB8_STOP). No QEMU; tests/test_grade.py checks the
results.json of real gradings."""
import importlib.util
import json
import os
import subprocess
import sys
import tomllib

import pytest

from qs import REPO
from qs.sync_tree import sync_tree

sys.path.insert(0, str(REPO / "tools"))
import grade  # noqa: E402
from gradescope_format import check_gradescope_results  # noqa: E402


def lab8_tool():
    """labs/lab8-find-the-bug/lab8.py as a module: its choice of bug."""
    spec = importlib.util.spec_from_file_location("lab8", REPO / "labs/lab8-find-the-bug/lab8.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_gradescope_format_check_can_fail():
    good = grade.grade_gradescope.results(
        dict(lab=1, title="t", score=2, max=3, checks=[
            dict(name="a", points=2, ok=True, seconds=1.0, reasons=[], evidence=[], shown=None),
            dict(name="b", points=1, ok=False, seconds=1.0, reasons=["no"], evidence=[],
                 shown=None),
            dict(name="c", points=0, ok=True, seconds=1.0, reasons=[], evidence=[], shown=None)]),
        3.2)
    check_gradescope_results(good)
    assert [t["name"] for t in good["tests"]] == ["a", "b"]
    for bad in (dict(good, visibility="students"), dict(good, score=3.0),
                dict(good, tests=[dict(good["tests"][0], status="ok")])):
        with pytest.raises(AssertionError):
            check_gradescope_results(bad)



def lab8_autograder(tmp_path, planted, users, with_fix=True):
    """Gradescope's run_autograder for Lab 8 in a trial root: a copy of
    the tree as source/quiescent, a submission (a repository) holding
    planted.toml, answers.toml and, if with_fix, the bug's file; LAB8_STOP
    makes it stop before grading. (results.json or None, its output)"""
    ag = tmp_path / "ag"
    src = ag / "source" / "quiescent"
    sync_tree(src)
    sub = ag / "submission" / "repo"
    lab = sub / "labs" / "lab8-find-the-bug"
    lab.mkdir(parents=True)
    (sub / "labs" / "lab1-gp-timeline").mkdir(parents=True)
    (sub / "labs" / "lab1-gp-timeline" / "answers.toml").write_text("# another lab's\n")
    (lab / "planted.toml").write_text(planted)
    (lab / "answers.toml").write_text("report = \"x.c:1\"\n")
    bug, _ = lab8_tool().chosen(tomllib.loads(planted))     # the bug lab8.py plants for it
    if with_fix:
        (sub / bug["file"]).parent.mkdir(parents=True, exist_ok=True)
        (sub / bug["file"]).write_text((REPO / bug["file"]).read_text() + "\n/* fixed */\n")
    (ag / "submission_metadata.json").write_text(json.dumps({"users": users}))
    env = dict(os.environ, AUTOGRADER=str(ag), LAB="8", LAB8_STOP="1")
    r = subprocess.run(["bash", str(REPO / "labs/instructor/gradescope/run_autograder")],
                       env=env, capture_output=True, text=True, timeout=300)
    out = ag / "results" / "results.json"
    doc = json.loads(out.read_text()) if out.exists() else None
    return doc, r.stdout + r.stderr, src, bug


def test_gradescope_lab8_takes_the_bug_file(tmp_path):
    """Lab 8 on Gradescope: the submitter's own planted.toml, their
    answers (not another lab's answers.toml) and the file their bug is in
    reach the course tree; the grader would run next."""
    doc, out, src, bug = lab8_autograder(tmp_path, 'student = "ada@example.edu"\n',
                                         [{"email": "Ada@example.edu", "sid": "1"}])
    assert doc is None and "LAB8_STOP" in out, out
    assert (src / "labs/lab8-find-the-bug/answers.toml").read_text() == "report = \"x.c:1\"\n"
    assert (src / bug["file"]).read_text().endswith("/* fixed */\n"), bug["file"]


@pytest.mark.parametrize("planted,users,with_fix,why", [
    ('student = "bob@example.edu"\n', [{"email": "ada@example.edu"}], True, "which is not you"),
    ('pick = 0\n', [{"email": "ada@example.edu"}], True, "did not give you"),
    ('student = "ada@example.edu"\n', [{"email": "ada@example.edu"}], False, "No "),
])
def test_gradescope_lab8_refuses(tmp_path, planted, users, with_fix, why):
    """Another student's bug, a pick the course did not give, or no fix
    handed in: a results.json of 0 that says so, no grading."""
    doc, out, src, bug = lab8_autograder(tmp_path, planted, users, with_fix)
    assert doc is not None and doc["score"] == 0.0 and why in doc["output"], (doc, out)
