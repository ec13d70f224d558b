"""make check: sparse sees the __rcu address space (docs/rcu/checking.md).

The tree is checked clean under three configurations whose RCU users and
variants differ, and the planted mistakes in tests/sparse/ are each
reported with their line: without the __rcu annotations and the
accessors' casts, sparse would pass them all silently.
"""
import shutil
import subprocess

import pytest

from qs import REPO
from qs.build import build

pytestmark = [pytest.mark.build,
              pytest.mark.skipif(shutil.which("sparse") is None,
                                 reason="sparse is not installed (make deps installs it)")]


def make_check(config, *args):
    """make check in the build directory the scenarios use for config (so
    no extra build: the objects are theirs, only sparse runs here)."""
    name = "test-" + config
    build(name, config)
    return subprocess.run(["make", "-s", "-j2", f"O=build/{name}", "check", *args], cwd=REPO,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


@pytest.mark.parametrize("config", ["rcu_ltimer_defconfig", "rcu_tree_defconfig",
                                    "rcu_preempt_defconfig"])
def test_tree_is_sparse_clean(config):
    p = make_check(config)
    assert p.returncode == 0, p.stdout[-4000:]
    assert "sparse found nothing" in p.stdout


def test_planted_rcu_mistakes_are_reported():
    p = make_check("rcu_ltimer_defconfig", "CHECK_FILES=tests/sparse/rcu_plain_load.c")
    assert p.returncode != 0, "sparse passed a plain load of an __rcu pointer:\n" + p.stdout
    src = (REPO / "tests/sparse/rcu_plain_load.c").read_text().splitlines()
    bug_lines = [i + 1 for i, line in enumerate(src) if "BUG:" in line]
    assert len(bug_lines) == 4
    for n in bug_lines:
        assert f"rcu_plain_load.c:{n}:" in p.stdout, f"line {n} ({src[n - 1].strip()}) not reported:\n{p.stdout}"
    assert "different address spaces" in p.stdout
    assert "dereference of noderef expression" in p.stdout


def test_planted_srcu_mistakes_are_reported():
    """SRCU-protected pointers are __rcu too, so srcu_dereference() is the
    only way to load them (and it refuses a pointer that is not __rcu)."""
    p = make_check("rcu_tree_defconfig", "CHECK_FILES=tests/sparse/srcu_plain_load.c")
    assert p.returncode != 0, "sparse passed plain loads of SRCU pointers:\n" + p.stdout
    src = (REPO / "tests/sparse/srcu_plain_load.c").read_text().splitlines()
    bug_lines = [i + 1 for i, line in enumerate(src) if "BUG:" in line]
    assert len(bug_lines) == 3
    for n in bug_lines:
        assert f"srcu_plain_load.c:{n}:" in p.stdout, f"line {n} ({src[n - 1].strip()}) not reported:\n{p.stdout}"
