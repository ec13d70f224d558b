"""A graded lab as Gradescope's results.json (tools/grade.py --gradescope).

Gradescope's autograder runs the course's run_autograder, which must leave
its results in /autograder/results/results.json, in the format its
"Autograder Specifications" page documents: a top-level score (or one on
each test), execution_time in seconds, an output shown with the whole
submission, visibility and stdout_visibility (each one of hidden,
after_due_date, after_published, visible), and tests, each with a name,
score, max_score, status (passed or failed), output and visibility.

A check that is not graded (0 points) is left out: Gradescope would show
it as a 0/0 test. The evidence goes into each test's output, as `make
grade` prints it; the grader never prints a measured answer, so neither
does this.
"""
import json

VISIBILITY = ("hidden", "after_due_date", "after_published", "visible")


def check_output(res):
    """The lines make grade prints under a check, as one text."""
    out = [res.get("description", "")] if res.get("description") else []
    if res.get("shown"):
        out.append(f"shown: {res['shown']}")
    if res["ok"]:
        out.append(f"OK ({res['seconds']:.1f}s)")
    else:
        out.append(f"FAIL ({res['seconds']:.1f}s)")
        out += res.get("reasons", [])
        out += [f"| {line}" for line in res.get("evidence", [])]
        if res.get("log"):
            out.append(f"log: {res['log']} (in the grader's copy of your tree)")
    return "\n".join(out)


def results(graded, seconds, visibility="visible", stdout_visibility="hidden"):
    """results.json's object for a graded lab: graded is what grade.py
    --json prints (lab, title, score, max, checks)."""
    if visibility not in VISIBILITY or stdout_visibility not in VISIBILITY:
        raise ValueError(f"visibility is one of {', '.join(VISIBILITY)}")
    tests = []
    for n, res in enumerate(c for c in graded["checks"] if c["points"]):
        tests.append(dict(
            name=res["name"], number=str(n + 1),
            score=float(res["points"] if res["ok"] else 0), max_score=float(res["points"]),
            status="passed" if res["ok"] else "failed",
            output=check_output(res), output_format="text", visibility=visibility))
    return dict(
        score=float(graded["score"]),
        execution_time=int(round(seconds)),
        output=f"Lab {graded['lab']}: {graded.get('title', '')}\n"
               f"Score: {graded['score']}/{graded['max']}"
               + ("" if graded["score"] == graded["max"] else
                  "\nEach failed test below gives its reasons and the console lines that show them."),
        output_format="text",
        visibility=visibility,
        stdout_visibility=stdout_visibility,
        tests=tests)


def write(path, graded, seconds, **kw):
    doc = results(graded, seconds, **kw)
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    return doc
