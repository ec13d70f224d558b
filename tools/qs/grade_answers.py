"""A check's answers (the lab's answers.toml) against what the grader
measured in its boot's log, and the lab's [[answer_hint]] that explains a
misreading. The measured value is never in a reason: it is the answer."""
import re
import subprocess

from qs import REPO
from qs.grade_labs import HINT


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


def measure(cmd, log_path):
    """(output, reasons): cmd run on the boot's log. The output holds the
    measured values, so only a failure's last error line is shown."""
    p = subprocess.run(cmd.replace("{log}", str(log_path)), shell=True, cwd=REPO,
                       capture_output=True, text=True)
    if p.returncode == 0:
        return p.stdout, []
    err = (p.stderr.strip().split("\n") or [""])[-1]
    return "", [f"the grader could not measure its boot (`{cmd}`: status {p.returncode}): {err}"]
