"""tests/mutants/*.toml (tools/mutants.py, make mutants) without booting:
each file loads, names a configuration that exists, and its `find` text
occurs exactly once in the file it plants its bug in. A mutant whose text
no longer matches is STALE: make mutants would skip it and the planted
bug it stands for would no longer be looked for."""
import pytest

from qs import REPO
import mutants

FILES = sorted((REPO / "tests" / "mutants").glob("*.toml"))


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_mutant_applies_exactly_once(path):
    m = mutants.load(path)
    assert (REPO / "configs" / m["config"]).exists(), f"{path.name}: no configs/{m['config']}"
    src = (REPO / m["file"]).read_text()
    n = src.count(m["find"])
    assert n == 1, f"{path.name}: `find` occurs {n} times in {m['file']}"
    assert m["replace"] != m["find"], f"{path.name}: replace is find"
