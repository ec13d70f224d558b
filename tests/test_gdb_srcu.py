"""gdb's qs-srcu (tools/gdb/srcu.py) against a running kernel: stop in
synchronize_srcu(&dom_a) of ktest=srcu_domains after the flip, while a
reader of domain a sleeps inside its section (docs/rcu/srcu.md), and check
that the view shows both domains, the grace period in its third step, one
reader inside the rank it drains, the CPU counters that say so and, under
PROVE_RCU, the task that holds the read lock."""
import re

import pytest

from qs.build import BuildError, build
from qs.gdb import gdb_session

pytestmark = pytest.mark.qemu


@pytest.fixture(scope="module")
def srcu_out():
    try:
        elf = build("test-rcu_tree_defconfig", "rcu_tree_defconfig")
    except BuildError as e:
        pytest.fail(str(e), pytrace=False)
    # The condition reads the first argument's register: at the entry
    # breakpoint gdb may not yet have a frame in which `ss` is in scope.
    cond = "$rdi == &dom_a && ((struct srcu_struct *)$rdi)->srcu_gp_phase == 2"
    cmds = [f"break srcu_wait_rank if {cond}", "continue", "delete",
            "print $rdi == &dom_a", "qs-srcu", "qs-srcu b"]
    out, _ = gdb_session(elf, cpus=2, cmdline="ktest=srcu_domains", batch_cmds=cmds,
                         timeout=180)
    return out


def test_stopped_after_the_flip(srcu_out):
    assert "$1 = 1" in srcu_out, f"did not stop in synchronize_srcu(&dom_a):\n{srcu_out}"
    assert "Python Exception" not in srcu_out and "Error occurred" not in srcu_out, srcu_out


def test_domains_and_phase(srcu_out):
    assert re.search(r"^srcu: 2 domains$", srcu_out, re.M), srcu_out
    m = re.search(r"srcu domain a \(0x[0-9a-f]+\): readers use rank (\d) \(srcu_idx \d+\); "
                  r"srcu_gp_seq \d*[13579] \(grace period \d+ running, step 3: flipped to rank "
                  r"(\d); draining rank (\d) \(where the readers were\)\).*kthread srcu:a",
                  srcu_out)
    assert m, srcu_out
    new, flipped_to, old = (int(g) for g in m.groups())
    assert new == flipped_to and old == 1 - new, srcu_out
    # Domain b: idle, no reader (its grace period did not wait for a's).
    assert re.search(r"srcu domain b \(0x[0-9a-f]+\): .*no grace period running", srcu_out), srcu_out
    assert re.search(r"^srcu: 1 domain named b$", srcu_out, re.M), srcu_out


def test_reader_inside_the_drained_rank(srcu_out):
    a = srcu_out.split("srcu domain a ")[1].split("srcu domain b ")[0]
    m = re.search(r"readers use rank (\d)", a)
    old = 1 - int(m.group(1))
    assert re.search(rf"rank {old} \(inactive\): locks (\d+) unlocks \d+: 1 reader inside", a), a
    assert re.search(rf"rank {1 - old} \(in use\): .*: 0 readers inside", a), a
    # The reader's lock is on some CPU's counter of that rank.
    assert re.search(r"cpu\d: rank 0 lock \d+ unlock \d+ \| rank 1 lock \d+ unlock \d+", a), a
    assert re.search(r"tasks holding its read lock \(PROVE_RCU\): srcu_dom_reader/\d+", a), a
    assert "call_srcu() callbacks not yet taken: 0 callbacks" in a, a
