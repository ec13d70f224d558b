"""What the grader prints (qs.grade): the lab's heading, each check's
line (`name: OK (1.2s) [10 pts]`, with its reasons and evidence under a
failure), the line a failed check's dependants quote, and the score."""
import textwrap

from qs.grade_evidence import STAMP
from qs.grade_labs import HINT


def heading(spec, reference, track, handout):
    """The run's first line, before any check's."""
    return (f"== Lab {spec['lab']}: {spec.get('title', '')}"
            + (" (reference)" if reference else "")
            + (f" ({track} track: {handout})" if handout else ""))


def saw(res):
    """What a failed check saw, in a line, for the checks that needed it
    to pass: its first evidence, else its first reason."""
    first = [w for w in res["reasons"] if not w.startswith(HINT)][:1]
    if res["evidence"] and res["evidence"][0] != "last console lines:":
        first = res["evidence"][:1]
    return STAMP.sub("", first[0]).strip()[:200] if first else "nothing"


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


def scored(spec, done, reference, track, handout):
    """The graded lab as one object: what --json prints and Gradescope's
    results.json is made from (qs.grade_gradescope)."""
    score = sum(r["points"] for r in done if r["ok"])
    total = sum(r["points"] for r in done)
    graded = dict(lab=spec["lab"], title=spec.get("title", ""), reference=reference,
                  score=score, max=total, checks=done)
    if handout:
        graded.update(track=track, handout=handout)
    return graded
