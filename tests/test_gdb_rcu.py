"""The gdb view of a grace period: stop where a grace period ends
(rcu_gp_end) with gdb in batch mode against QEMU, and check what qs-rcu
prints for rcu-ltimer: the batch numbers, the CPUs that still owe a
quiescent state, each CPU's counters, and the pending callbacks named by
their functions."""
import re

import pytest

from qs.build import BuildError, build
from qs.gdb import gdb_session

pytestmark = pytest.mark.qemu


@pytest.fixture(scope="module")
def ltimer_elf():
    try:
        return build("test-rcu_ltimer_defconfig", "rcu_ltimer_defconfig")
    except BuildError as e:
        pytest.fail(str(e), pytrace=False)


@pytest.fixture(scope="module")
def gp_out(ltimer_elf):
    # synchronize_kernel() queues wakeme_after_rcu; the first grace period
    # ends with it still on a curlist (rcu-ltimer needs two batches from idle).
    cmds = ["hbreak ktest_fn_rcu_synchronize_waits_for_grace_period", "continue", "delete",
            "qs-rcu-gp", "continue",                       # rcu_gp_begin
            "print $pc == &rcu_gp_begin", "qs-rcu",
            "continue",                                    # rcu_gp_end
            "print $pc == &rcu_gp_end", "print gpnum", "qs-rcu"]
    out, serial = gdb_session(ltimer_elf, cpus=2,
                                   cmdline="ktest=rcu_synchronize_waits_for_grace_period",
                                   batch_cmds=cmds, timeout=180)
    return out


def test_stops_at_begin_and_end(gp_out):
    assert "$1 = 1" in gp_out, f"did not stop in rcu_gp_begin:\n{gp_out}"
    assert "$2 = 1" in gp_out, f"did not stop in rcu_gp_end:\n{gp_out}"


def test_shows_batches_and_owing_cpus(gp_out):
    assert re.search(r"rcu-ltimer: curbatch \d+ maxbatch \d+ \(in progress\)", gp_out), gp_out
    # At rcu_gp_begin every online CPU still owes the new batch a quiescent state.
    assert re.search(r"still owe batch \d+ a quiescent state: 0 1", gp_out), gp_out
    assert re.search(r"cpu1: qsctr \d+ last_qsctr -?\d+", gp_out), gp_out


def test_shows_callbacks_by_function(gp_out):
    assert "wakeme_after_rcu" in gp_out, f"the pending callback is not named:\n{gp_out}"
    assert "Python Exception" not in gp_out and "Error occurred" not in gp_out, gp_out
