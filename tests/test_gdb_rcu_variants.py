"""The gdb RCU view of every variant: stop where a grace period
begins (rcu_gp_begin) while synchronize_kernel() waits, run qs-rcu, and
check that the view shows that variant's own state (the ring counters for
rcu-sched, the polling mask and snapshots for rcu-poll, ...) and names the
waiting callback, wakeme_after_rcu, by its function. rcu-ltimer has its own,
more detailed test (test_gdb_rcu.py)."""
import re

import pytest

from qs import variants
from qs.build import BuildError, build
from qs.gdb import gdb_session

pytestmark = pytest.mark.qemu

# The variants this test leaves out, and why; every other one must have its
# patterns in VIEWS (tests/test_variant_list.py checks that without QEMU).
NOT_HERE = {
    "ltimer": "tests/test_gdb_rcu.py checks its view in more detail",
    "tiny": "one CPU: this test stops at -smp 2 while cpu1 still owes a quiescent state",
    "busted": "callbacks run inside call_rcu(): no callback waits to be named",
    "student": "lab 4's skeleton runs callbacks at once too",
}
# The variants this test boots: Kconfig's choice less NOT_HERE.
CASES = [v.name for v in variants.read() if v.name not in NOT_HERE]

# variant -> patterns qs-rcu must print at rcu_gp_begin (-smp 2)
VIEWS = {
    "xrcu": [r"x-rcu: rcu_currbatch \d+ rcu_maxbatch \d+ \(in progress\)",
             r"still owe batch \d+ a quiescent state \(rcu_cpumask\): 0 1",
             r"cpu1: qsctr \d+ last_qsctr", r"currlist \(waits for batch \d+\)"],
    "krcud": [r"rcu \(krcud\): rcu_currbatch \d+ rcu_maxbatch \d+ \(in progress\)",
              r"rcu_active_cpumask", r"rcu_timer: ",
              r"cpu0: qsctr \d+ last_qsctr .*krcud: krcud_CPU0"],
    "poll": [r"rcu-poll: grace period \d+ \(polling\)",
             r"rcu_qsmask \(CPUs that still owe grace period \d+ a quiescent state\): 0 1",
             r"cpu1: RCU_quiescent \d+ checkpoint \d+"],
    "poll-percpu": [r"rcu \(poll-percpu\): grace period \d+ \(polling\)",
                    r"rcu_qsmask \(CPUs that still owe grace period \d+ a quiescent state\): 0 1",
                    r"cpu1: RCU_quiescent \d+ checkpoint \d+"],
    "taskq": [r"rcu-taskq: grace period \d+ \(in progress, wait_for_rcu\(\) on cpu\d\)",
              r"CPUs whose krcud still owes grace period \d+ an answer: \d",
              r"rcu_current_list \(waits for grace period \d+\): 1 callback"],
    "preempt": [r"rcu \(krcud\): rcu_currbatch \d+ rcu_maxbatch \d+ \(in progress\)",
                r"cpu0: qsctr \d+ last_qsctr .*krcud: krcud_CPU0",
                r"cpu1: rcu_preempt_cntr\[\d\] \(curr\) \d+, \[\d\] \(next\) \d+",
                r"orphans \(tasks moved off offline CPUs\): \[\d\] \(curr\) 0, \[\d\] \(next\) 0",
                r"(no preempted task holds a counter|preempted tasks holding a counter)"],
    "tree": [r"rcu \(tree\): gpnum \d+ completed \d+ \(in progress\)",
             r"tree: 1 level, 1 rcu_node",
             r"root 0 \(level 0, cpus 0-1\): qsmask 0x3 of qsmaskinit 0x3.*CPUs that still owe: 0 1",
             r"cpu1: gpnum \d+ completed \d+ qs_pending"],
    "sched": [r"rcu-sched: rcu_pending [1-9]\d*; ring of 2 CPUs, leader cpu0; round \d+ open",
              r"cpu0: ring_count -?\d+ \(prev cpu1: -?\d+\) finished_count -?\d+",
              r"cpu1: ring_count -?\d+ \(prev cpu0: -?\d+\)",
              r"CPUs that can advance now"],
}


@pytest.fixture(scope="module", params=CASES)
def view(request):
    if request.param not in VIEWS:
        pytest.fail(f"{request.param}: no patterns in VIEWS for its qs-rcu view (or a reason "
                    "in NOT_HERE)", pytrace=False)
    config = variants.find(request.param).defconfig()
    try:
        elf = build("test-" + config, config)
    except BuildError as e:
        pytest.fail(str(e), pytrace=False)
    cmds = ["hbreak ktest_fn_rcu_synchronize_waits_for_grace_period", "continue", "delete",
            "hbreak rcu_gp_begin", "continue", "delete",
            "print $pc == &rcu_gp_begin", "qs-rcu"]
    out, _ = gdb_session(elf, cpus=2, cmdline="ktest=rcu_synchronize_waits_for_grace_period",
                              batch_cmds=cmds, timeout=180)
    return request.param, out


def test_view_shows_variant_state(view):
    name, out = view
    assert "$1 = 1" in out, f"{name}: did not stop in rcu_gp_begin:\n{out}"
    assert "Python Exception" not in out and "Error occurred" not in out, out
    for pat in VIEWS[name]:
        assert re.search(pat, out), f"{name}: qs-rcu lacks /{pat}/:\n{out}"


def test_view_names_waiting_callback(view):
    name, out = view
    assert "wakeme_after_rcu" in out, f"{name}: the waiting callback is not named:\n{out}"
