"""Wrong answers students give to the question labs (1, 2, 5 and 6),
graded: labs/instructor/lab<n>/mistakes/*.toml, each an answers.toml that
misreads something real (which CPU, which paper, a period read as a rate,
a median read as a maximum, the one-CPU boot for the two-CPU one), with a
[mistake] table saying what it misreads, the score it must get, the checks
that must catch it and the hint that must be shown. Every other hint of the
lab's grade.toml ([[answer_hint]]) must not be.

No QEMU: each lab has six mistakes or more; each is the reference answers
with only the keys of its failing checks changed, so that the checks it
names are the only ones that can catch it and its score follows from their
points; each hint it names is one of the lab's, about a key it got wrong;
and every hint of the lab is named by some mistake.

Under QEMU (make test for Labs 1, 5 and 6, make test-full for Lab 2's
five boots): the grader itself, run in this process on the
checks each mistake must fail (--only), with the mistake in the place of
the reference answers; qs.boot's per-process cache gives a lab one boot
per check (Lab 1 one, Lab 5 two, Lab 6 one traced boot, Lab 2 five one-CPU
boots). Each must score 0 there, fail exactly its checks, and get its hint
and no other;
the hint must also be justified by the boot: its `value` is the answer, or
its `rx` finds the answer in the grader's log (or measure.py's output).
make test-full grades each mistake on every check, the way an instructor
grades a handed-in file, `grade.py N --with labs/labN-*/answers.toml=MISTAKE`
(a scratch copy, its own boots): the score it says, exactly its checks
failed, its hint and no other.
"""
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from qs import REPO

sys.path.insert(0, str(REPO / "tools"))
import grade  # noqa: E402

LABS = (1, 2, 5, 6)


def mistakes(n):
    return sorted((REPO / "labs" / "instructor" / f"lab{n}" / "mistakes").glob("*.toml"))


def read_mistake(path):
    answers = tomllib.loads(path.read_text())
    return answers, answers.pop("mistake")


def hints_of(meta):
    h = meta["hint"]
    return [h] if isinstance(h, str) else list(h)


def answer_hints(n):
    return grade.load(n).get("answer_hint", [])


def reference(n):
    return tomllib.loads((REPO / grade.load(n)["reference"]["answers"]).read_text())


def wrong_keys(n, answers):
    ref = reference(n)
    return {k for k in ref if not grade.same_answer(answers.get(k), ref[k])}


ALL = [(n, p) for n in LABS for p in mistakes(n)]


# ---------------------------------------------------------------- no QEMU
@pytest.mark.parametrize("n", LABS)
def test_six_mistakes_or_more_each_lab(n):
    assert len(mistakes(n)) >= 6, f"lab {n}: {len(mistakes(n))} mistakes"


@pytest.mark.parametrize("n,path", ALL, ids=[f"lab{n}-{p.stem}" for n, p in ALL])
def test_mistake_says_what_catches_it(n, path):
    answers, meta = read_mistake(path)
    spec = grade.load(n)
    checks = {c["name"]: c for c in spec["check"]}
    assert meta["misreads"].strip() and set(meta) == {"misreads", "score", "fails", "hint"}, path
    assert set(answers) == set(reference(n)), f"{path.name}: answers every question"
    wrong = wrong_keys(n, answers)
    assert wrong, f"{path.name} is the reference"
    for f in meta["fails"]:
        assert checks[f].get("points"), f"{path.name}: {f} is not a graded check"
    fail_keys = {k for f in meta["fails"] for k in checks[f].get("answers", {})}
    # Only the failing checks' questions are wrong, and each failing check has one.
    assert wrong <= fail_keys, f"{path.name}: {wrong - fail_keys} wrong outside {meta['fails']}"
    for f in meta["fails"]:
        assert wrong & set(checks[f]["answers"]), f"{path.name}: {f} has no wrong answer"
    full = sum(c.get("points", 0) for c in spec["check"])
    assert meta["score"] == full - sum(checks[f]["points"] for f in meta["fails"]) < full
    says = [h for h in answer_hints(n) if any(w in h["say"] for w in hints_of(meta))]
    assert len(says) == len(hints_of(meta)), f"{path.name}: each hint names one [[answer_hint]]"
    assert {h["answer"] for h in says} <= wrong, f"{path.name}: a hint about a right answer"


@pytest.mark.parametrize("n", LABS)
def test_every_answer_hint_is_some_mistakes(n):
    keys = {k for c in grade.load(n)["check"] for k in c.get("answers", {})}
    named = [w for p in mistakes(n) for w in hints_of(read_mistake(p)[1])]
    for h in answer_hints(n):
        assert h["answer"] in keys and ("rx" in h or "value" in h), h
        assert set(h) <= {"answer", "rx", "value", "within", "say"}, h
        assert any(w in h["say"] for w in named), f"lab {n}: no mistake tests the hint {h['say']!r}"


# ---------------------------------------------------------------- the grader, under QEMU
def grade_in_process(n, path, monkeypatch, capsys, only=""):
    """grade.main() with the mistake in the reference answers' place (one
    process, so the lab's boots are shared): the JSON it prints."""
    real = grade.load

    def load(m):
        spec = real(m)
        spec["reference"] = dict(spec.get("reference", {}), answers=str(path.relative_to(REPO)))
        return spec
    monkeypatch.setattr(grade, "load", load)
    kvm = os.environ.get("KVM", "0")
    capsys.readouterr()
    code = grade.main([str(n), "--reference", "--json", "--kvm", "0" if kvm == "auto" else kvm]
                      + (["--only", only] if only else []))
    out = capsys.readouterr().out
    monkeypatch.setattr(grade, "load", real)
    assert out.strip(), f"no JSON grading {path.name}"
    return code, json.loads(out)


def fires(h, answer, text, within):
    """Whether the evidence justifies hint h for this answer: its value is
    the answer, or its rx finds the answer in the grader's boot."""
    values = h.get("value", [])
    values = values if isinstance(values, list) else [values]
    if any(grade.same_answer(answer, v) for v in values):
        return True
    m = re.search(h["rx"], text, re.M) if "rx" in h else None
    return bool(m) and grade.same_answer(answer, m.group(1), h.get("within", within))


_measured = {}


def boot_text(check, log):
    """The grader's boot log, and measure.py's output on it (once a log)."""
    if (log, check.get("measure")) not in _measured:
        text = (REPO / log).read_text(errors="replace")
        if "measure" in check:
            out, why = grade.measure(check["measure"], REPO / log)
            assert not why, why
            text += "\n" + out
        _measured[log, check.get("measure")] = text
    return _measured[log, check.get("measure")]


def judge(n, path, r, only=False):
    """The reasons a graded mistake is wrong, or []. only: graded on its
    failing checks alone (--only), which must give it 0."""
    answers, meta = read_mistake(path)
    checks = {c["name"]: c for c in grade.load(n)["check"]}
    why = []
    failed = [c["name"] for c in r["checks"] if not c["ok"] and c["points"]]
    score = 0 if only else meta["score"]
    if r["score"] != score or failed != meta["fails"]:
        why.append(f"scored {r['score']}/{r['max']} failing {failed}; "
                   f"wants {score} failing {meta['fails']}")
    want = hints_of(meta)
    said = [w for c in r["checks"] for w in c["reasons"] if w.startswith(grade.HINT)]
    others = [h["say"] for h in answer_hints(n) if not any(w in h["say"] for w in want)]
    if hasattr(grade, "answer_hint"):        # the grader shows answer hints
        for w in want:
            if not any(w in s for s in said):
                why.append(f"no hint {w!r} among {said}")
        why += [f"a hint that does not fit: {s}" for s in said if any(o in s for o in others)]
    # The hint must be justified by the grader's own boot.
    for c in r["checks"]:
        if c["ok"] or not c["log"]:
            continue
        text = boot_text(checks[c["name"]], c["log"])
        for key, rx in checks[c["name"]].get("answers", {}).items():
            if key not in wrong_keys(n, answers):
                continue
            within = rx.get("within", 0.0) if isinstance(rx, dict) else 0.0
            hits = [h["say"] for h in answer_hints(n)
                    if h["answer"] == key and fires(h, answers[key], text, within)]
            if not any(w in s for s in hits for w in want):
                why.append(f"{key} = {answers[key]!r}: the boot does not justify the hint {want}")
            why += [f"{key}: the boot also fits {s!r}" for s in hits if any(o in s for o in others)]
    return why


# Labs 1, 5 and 6 need one or two short boots for their whole catalogue
# (1 to 3 s); Lab 2's five one-CPU boots take about 17 s, which make
# test's 15 minutes on a fresh two-core machine do not have: make
# test-full grades it.
@pytest.mark.qemu
@pytest.mark.parametrize("n", [pytest.param(n, marks=pytest.mark.full) if n == 2 else n
                               for n in LABS])
def test_mistakes_lose_points_with_their_hint(n, monkeypatch, capsys):
    """Each mistake graded on the checks that must catch it (--only)."""
    bad = {}
    for path in mistakes(n):
        fails = read_mistake(path)[1]["fails"]
        code, r = grade_in_process(n, path, monkeypatch, capsys, only=",".join(fails))
        assert code == 1, f"{path.name} scored full marks"
        why = judge(n, path, r, only=True)
        if why:
            bad[path.name] = why
    assert not bad, json.dumps(bad, indent=1)


@pytest.mark.qemu
@pytest.mark.full
@pytest.mark.parametrize("n,path", ALL, ids=[f"lab{n}-{p.stem}" for n, p in ALL])
def test_mistake_graded_as_handed_in(n, path):
    """The instructor's way: the file in the student's answers.toml's place,
    in a scratch copy of the tree."""
    dest = grade.lab_dirs()[n].relative_to(REPO) / "answers.toml"
    p = subprocess.run([sys.executable, str(REPO / "tools" / "grade.py"), str(n), "--json",
                        "--with", f"{dest}={path.relative_to(REPO)}"],
                       cwd=REPO, capture_output=True, text=True, timeout=900)
    assert p.stdout.strip(), p.stderr[-2000:]
    r = json.loads(p.stdout)
    why = judge(n, path, r)      # its logs are named from this tree (QS_GRADE_ROOT)
    assert p.returncode == 1 and not why, why
