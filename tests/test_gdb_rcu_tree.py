"""gdb's qs-rcu for Tree RCU (tools/gdb/rcu_tree.py) on a two-level tree:
rcu_tree_defconfig (fanout 2, leaf fanout 2) at -smp 4 has a root and two
leaves. Stop where a grace period begins (every CPU owes, at every node),
then where a leaf that has just emptied reports up to the root while the
other leaf still waits: the view must show, node by node, which CPUs still
owe the grace period a quiescent state (docs/rcu/tree.md)."""
import re

import pytest

from qs import REPO
from qs.build import BuildError, build
from qs.gdb import gdb_session

pytestmark = pytest.mark.qemu


def _report_up_line():
    """The line in rcu_node_report_qs() where a node that has emptied moves
    up to its parent (rnp = rnp->parent): the parent still has the child's
    bit set. That line, not the one after the parent's lock, because the
    lines after the lock may hold no code of their own."""
    src = (REPO / "kernel/rcu/rcu_tree.c").read_text().splitlines()
    start = next(i for i, l in enumerate(src) if l.startswith("bool rcu_node_report_qs("))
    i = next(i for i in range(start, len(src)) if src[i].strip() == "rnp = rnp->parent;")
    return i + 1            # 1-based


@pytest.fixture(scope="module")
def tree_out():
    try:
        elf = build("test-rcu_tree_defconfig", "rcu_tree_defconfig")
    except BuildError as e:
        pytest.fail(str(e), pytrace=False)
    # Globals only in the condition: the line is inlined into several callers.
    half = ("rcu_node[0].qsmask == 3 && "
            "(rcu_node[1].qsmask == 0) != (rcu_node[2].qsmask == 0)")
    cmds = ["hbreak ktest_fn_rcu_synchronize_waits_for_grace_period", "continue", "delete",
            "hbreak rcu_gp_begin", "continue", "delete",
            "print $pc == &rcu_gp_begin", "qs-rcu",
            f"break kernel/rcu/rcu_tree.c:{_report_up_line()} if {half}", "continue", "delete",
            "print rcu_node[0].qsmask", "qs-rcu"]
    out, _ = gdb_session(elf, cpus=4, cmdline="ktest=rcu_synchronize_waits_for_grace_period",
                         batch_cmds=cmds, timeout=180)
    return out


def test_two_levels_at_gp_begin(tree_out):
    assert "$1 = 1" in tree_out, f"did not stop in rcu_gp_begin:\n{tree_out}"
    assert "Python Exception" not in tree_out and "Error occurred" not in tree_out, tree_out
    begin = tree_out.split("$1 = 1")[1].split("$2 = ")[0]
    assert "tree: 2 levels, 3 rcu_nodes" in begin, begin
    assert re.search(r"root 0 \(level 0, cpus 0-3\): qsmask 0x3 of qsmaskinit 0x3.*"
                     r"CPUs that still owe: 0 1 2 3", begin), begin
    assert re.search(r"leaf 1 \(level 1, cpus 0-1\): qsmask 0x3 .*CPUs that still owe: 0 1", begin), begin
    assert re.search(r"leaf 2 \(level 1, cpus 2-3\): qsmask 0x3 .*CPUs that still owe: 2 3", begin), begin


def test_one_leaf_reported_up(tree_out):
    assert "$2 = 3" in tree_out, f"did not stop where a leaf reports to the root:\n{tree_out}"
    half = tree_out.split("$2 = 3")[1]
    # One leaf is empty (owes nothing); the other still has CPUs owing; the
    # root still has both bits (the empty leaf's is being cleared now), and
    # the CPUs it says still owe are exactly the other leaf's.
    leaves = re.findall(r"leaf (\d) \(level 1, cpus (\d)-(\d)\): qsmask (0x[0-9a-f]+) .*"
                        r"CPUs that still owe: ([\d ]+|none)", half)
    assert len(leaves) == 2, half
    empty = [lf for lf in leaves if lf[3] == "0x0"]
    owing = [lf for lf in leaves if lf[3] != "0x0"]
    assert len(empty) == 1 and len(owing) == 1, half
    assert empty[0][4] == "none", half
    cpus = owing[0][4].split()
    lo = int(owing[0][1])
    mask = int(owing[0][3], 16)
    assert cpus == [str(lo + b) for b in range(2) if mask >> b & 1], half
    root = re.search(r"root 0 \(level 0, cpus 0-3\): qsmask 0x3 .*CPUs that still owe: ([\d ]+)",
                     half)
    assert root and root.group(1).split() == cpus, half
