"""Gradescope's results.json format, checked (tests/test_grade.py,
tests/test_gradescope.py): the Autograder Specifications page's keys,
their types and the visibility values."""


def check_gradescope_results(doc):
    """results.json against Gradescope's documented format (the Autograder
    Specifications page): the keys, their types, the visibility values, and
    a score that is the tests' sum."""
    vis = {"hidden", "after_due_date", "after_published", "visible"}
    top = {"score": (int, float), "execution_time": int, "output": str, "output_format": str,
           "visibility": str, "stdout_visibility": str, "extra_data": dict, "tests": list,
           "leaderboard": list}
    assert set(doc) <= set(top), set(doc) - set(top)
    for k, v in doc.items():
        assert isinstance(v, top[k]) and not isinstance(v, bool), (k, v)
    assert doc["visibility"] in vis and doc["stdout_visibility"] in vis
    assert doc["output_format"] in ("text", "html", "simple_format", "md", "ansi")
    test = {"score": (int, float), "max_score": (int, float), "status": str, "name": str,
            "name_format": str, "number": str, "output": str, "output_format": str,
            "tags": list, "visibility": str, "extra_data": dict}
    assert doc["tests"], "no tests"
    for t in doc["tests"]:
        assert set(t) <= set(test) and {"name", "score", "max_score", "output"} <= set(t), t
        for k, v in t.items():
            assert isinstance(v, test[k]) and not isinstance(v, bool), (k, v)
        assert t["status"] in ("passed", "failed") and t["visibility"] in vis
        assert 0 <= t["score"] <= t["max_score"]
        assert (t["status"] == "passed") == (t["score"] == t["max_score"]), t
    assert doc["score"] == sum(t["score"] for t in doc["tests"])
