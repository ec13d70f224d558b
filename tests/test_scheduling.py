"""make test's scheduler (tests/conftest.py) keeps the ISO cases of one
build on one worker, since each rewrites that build's quiescent.iso, and
spreads every other case. It is checked on the real scenario list and
under a real two-worker run, because xdist's own `xdist_group` marks were
found to group nothing with pytest 9."""
import os
import subprocess
import sys
import textwrap

import pytest

from scheduling import case_group
from qs.scenario import scenarios


def _iso_builds():
    return {sc.name: sc.build_name for sc in scenarios() if sc.boot == "iso"}


def test_iso_cases_of_one_build_share_a_group():
    iso = _iso_builds()
    assert len(iso) >= 2, "no two ISO scenarios to group"
    groups = {case_group(f"tests/test_scenarios.py::test_scenario[{n}]", iso) for n in iso
              if iso[n] == "test-defconfig"}
    assert groups == {"iso:test-defconfig"}, groups


def test_other_cases_are_their_own_group():
    iso = _iso_builds()
    kernel = next(sc.name for sc in scenarios() if sc.boot == "kernel")
    for nodeid in (f"tests/test_scenarios.py::test_scenario[{kernel}]",
                   "tests/test_ktap.py::test_clean_pass",
                   "test_grade.py::test_lab7_mistake[no_root_lock]"):
        assert case_group(nodeid, iso) == nodeid


def test_two_workers_keep_a_group_together(tmp_path):
    """make_scheduler is what xdist uses: a group of three cases (b, c, f: not what round-robin would give one worker) runs on
    one worker while the rest spread (this fails with xdist's marks)."""
    pytest.importorskip("xdist")
    (tmp_path / "conftest.py").write_text(textwrap.dedent("""
        import sys
        sys.path.insert(0, %r)
        from scheduling import make_scheduler
        GROUP = {"test_g.py::test_case[" + n + "]": "g" for n in "bcf"}
        def pytest_xdist_make_scheduler(config, log):
            return make_scheduler(config, log, lambda nodeid: GROUP.get(nodeid, nodeid))
    """ % os.path.dirname(os.path.abspath(__file__))))
    (tmp_path / "test_g.py").write_text(textwrap.dedent("""
        import os, pytest
        @pytest.mark.parametrize("n", list("abcdef"))
        def test_case(n):
            with open(os.path.join(os.path.dirname(__file__), "ran." + n), "w") as f:
                f.write(os.environ["PYTEST_XDIST_WORKER"])
    """))
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "2", "-p", "no:cacheprovider",
                        "--rootdir", str(tmp_path), "-c", os.devnull, str(tmp_path)],
                       cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stdout
    worker = {n: (tmp_path / f"ran.{n}").read_text() for n in "abcdef"}
    assert worker["b"] == worker["c"] == worker["f"], worker
