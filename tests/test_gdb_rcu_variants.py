"""The gdb RCU view of every variant: stop where a grace period
begins (rcu_gp_begin) while synchronize_kernel() waits, run qs-rcu, and
check that the view shows that variant's own state (the ring counters for
rcu-sched, the polling mask and snapshots for rcu-poll, ...) and names the
waiting callback, wakeme_after_rcu, by its function. rcu-ltimer has its own,
more detailed test (test_gdb_rcu.py)."""
import re

import pytest

from qs.build import BuildError, build
from qs.gdb import gdb_session

pytestmark = pytest.mark.qemu

# variant config -> patterns qs-rcu must print at rcu_gp_begin (-smp 2)
VIEWS = {
    "rcu_xrcu_defconfig": [r"x-rcu: rcu_currbatch \d+ rcu_maxbatch \d+ \(in progress\)",
                           r"still owe batch \d+ a quiescent state \(rcu_cpumask\): 0 1",
                           r"cpu1: qsctr \d+ last_qsctr", r"currlist \(waits for batch \d+\)"],
    "rcu_krcud_defconfig": [r"rcu \(krcud\): rcu_currbatch \d+ rcu_maxbatch \d+ \(in progress\)",
                            r"rcu_active_cpumask", r"rcu_timer: ",
                            r"cpu0: qsctr \d+ last_qsctr .*krcud: krcud_CPU0"],
    "rcu_poll_defconfig": [r"rcu-poll: grace period \d+ \(polling\)",
                           r"rcu_qsmask \(CPUs that still owe grace period \d+ a quiescent state\): 0 1",
                           r"cpu1: RCU_quiescent \d+ checkpoint \d+"],
    "rcu_poll_percpu_defconfig": [r"rcu \(poll-percpu\): grace period \d+ \(polling\)",
                                  r"rcu_qsmask \(CPUs that still owe grace period \d+ a quiescent state\): 0 1",
                                  r"cpu1: RCU_quiescent \d+ checkpoint \d+"],
    "rcu_taskq_defconfig": [r"rcu-taskq: grace period \d+ \(in progress, wait_for_rcu\(\) on cpu\d\)",
                            r"CPUs whose krcud still owes grace period \d+ an answer: \d",
                            r"rcu_current_list \(waits for grace period \d+\): 1 callback"],
    "rcu_preempt_defconfig": [r"rcu \(krcud\): rcu_currbatch \d+ rcu_maxbatch \d+ \(in progress\)",
                              r"cpu0: qsctr \d+ last_qsctr .*krcud: krcud_CPU0",
                              r"cpu1: rcu_preempt_cntr\[\d\] \(curr\) \d+, \[\d\] \(next\) \d+",
                              r"orphans \(tasks moved off offline CPUs\): \[\d\] \(curr\) 0, \[\d\] \(next\) 0",
                              r"(no preempted task holds a counter|preempted tasks holding a counter)"],
    "rcu_tree_defconfig": [r"rcu \(tree\): gpnum \d+ completed \d+ \(in progress\)",
                           r"tree: 1 level, 1 rcu_node",
                           r"root 0 \(level 0, cpus 0-1\): qsmask 0x3 of qsmaskinit 0x3.*CPUs that still owe: 0 1",
                           r"cpu1: gpnum \d+ completed \d+ qs_pending"],
    "rcu_sched_defconfig": [r"rcu-sched: rcu_pending [1-9]\d*; ring of 2 CPUs, leader cpu0; round \d+ open",
                            r"cpu0: ring_count -?\d+ \(prev cpu1: -?\d+\) finished_count -?\d+",
                            r"cpu1: ring_count -?\d+ \(prev cpu0: -?\d+\)",
                            r"CPUs that can advance now"],
}


@pytest.fixture(scope="module", params=sorted(VIEWS))
def view(request):
    config = request.param
    try:
        elf = build("test-" + config, config)
    except BuildError as e:
        pytest.fail(str(e), pytrace=False)
    cmds = ["hbreak ktest_fn_rcu_synchronize_waits_for_grace_period", "continue", "delete",
            "hbreak rcu_gp_begin", "continue", "delete",
            "print $pc == &rcu_gp_begin", "qs-rcu"]
    out, _ = gdb_session(elf, cpus=2, cmdline="ktest=rcu_synchronize_waits_for_grace_period",
                              batch_cmds=cmds, timeout=180)
    return config, out


def test_view_shows_variant_state(view):
    config, out = view
    assert "$1 = 1" in out, f"{config}: did not stop in rcu_gp_begin:\n{out}"
    assert "Python Exception" not in out and "Error occurred" not in out, out
    for pat in VIEWS[config]:
        assert re.search(pat, out), f"{config}: qs-rcu lacks /{pat}/:\n{out}"


def test_view_names_waiting_callback(view):
    config, out = view
    assert "wakeme_after_rcu" in out, f"{config}: the waiting callback is not named:\n{out}"
