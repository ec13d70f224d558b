"""The console judge (tools/qs/judge.py) and how scenarios use it: a
WARNING, BUG, Call Trace, panic or stall line fails a case unless the case
names it (expect_console) or its kind allows it (expect = "panic"). No QEMU."""
import pytest

from qs.boot import BootResult
from qs.judge import CONSOLE_PROBLEM, kind_expected, unexpected_lines
from qs.log import parse_console
from qs.scenario import Scenario, judge_scenario, load_scenarios

BANNER = "[    0.010000] cpu0: config: HZ=250 CPUs=1 (max 16) preemption=none rcu=poll spinlocks=ticket\n"
KTAP_OK = "KTAP version 1\n1..1\nok 1 torture_rcu\n# ktest summary: 1 tests, 1 passed, 0 failed, 0 skipped\n"
SOFTIRQ_WARNING = (
    "[    1.000000] cpu2: WARNING: CPU 2 at kernel/sched/softirq.c:146: in_irq()\n"
    "[    1.000100] cpu2: Call Trace:\n"
    "[    1.000200] cpu2:   [<ffffffff80101234>] local_bh_enable+0x40/0x60\n")


def test_a_warning_is_reported_with_its_line_number():
    log = BANNER + SOFTIRQ_WARNING + KTAP_OK
    assert unexpected_lines(log) == [
        (2, "[    1.000000] cpu2: WARNING: CPU 2 at kernel/sched/softirq.c:146: in_irq()"),
        (3, "[    1.000100] cpu2: Call Trace:")]


def test_named_lines_pass_and_only_those():
    log = BANNER + SOFTIRQ_WARNING + "[    2.0] cpu0: rcu-poll: BUG: call_rcu(...) from hard-IRQ\n"
    left = unexpected_lines(log, [r"WARNING: .*softirq\.c", "Call Trace:"])
    assert [n for n, _ in left] == [5]                      # the BUG line is not named
    assert unexpected_lines(log, [r"WARNING: .*softirq\.c", "Call Trace:", r"rcu-poll: BUG:"]) == []


@pytest.mark.parametrize("line", [
    "[ 1.0] cpu0: WARNING: sleeping function called from invalid context at x.c:3",
    "[ 1.0] cpu0: BUG: scheduling while atomic: init/1, preempt_count 00000001",
    "[ 1.0] cpu1: Kernel panic on CPU 1: BUG_ON(x) at y.c:9",
    "[ 1.0] cpu3: CPU 3 stopping: panic on CPU 0: oops (was at idle+0x4)",
    "[ 1.0] cpu0: INFO: poll detected stalls on CPUs: 1",
])
def test_every_kind_of_problem_line_is_caught(line):
    assert CONSOLE_PROBLEM.search(line)
    assert unexpected_lines(line + "\n") == [(1, line)]


@pytest.mark.parametrize("line", [
    "ok 7 panic_stops_other_cpus", "[ 1.0] cpu0: rcu-torture: SUCCESS",
    "[ 1.0] cpu0: rcu: poll (rcu-poll, seed 000 section 5.3) (BROKEN on purpose: rcu_break=1)",
    "[ 1.0] cpu0: rcu-torture: errors: pipe=0 gp=0 stall=0",
    "[ 1.0] cpu0:   [<ffffffff80101234>] panic+0x40/0x90",
    "    # kmalloc_double_free_detects: freeing 0x1 a second time; this must panic"])
def test_ordinary_lines_are_not_problems(line):
    assert unexpected_lines(line + "\n") == []


def test_a_panic_case_need_not_name_its_panic_but_still_its_warnings():
    panic = ("[ 1.0] cpu0: Kernel panic on CPU 0: kfree(0x1): double free\n"
             "[ 1.0] cpu0: Call Trace:\n"
             "[ 1.1] cpu1: CPU 1 stopping: panic on CPU 0: kfree(0x1): double free (was at x)\n"
             "[ 1.2] cpu0: ---[ end Kernel panic on CPU 0: kfree(0x1): double free ]---\n")
    assert len(unexpected_lines(panic)) == 4
    assert unexpected_lines(panic, kind_expected("panic")) == []
    assert [n for n, _ in unexpected_lines(SOFTIRQ_WARNING + panic, kind_expected("panic"))] == [1]
    assert kind_expected("pass") == []


def result(log, status="pass"):
    return BootResult(cmd=[], boot="kernel", cpus=1, cmdline="", accel="tcg", exit_code=33,
                      status=status, elapsed=1.0, log_path=None, log=log,
                      console=parse_console(log))


def test_a_scenario_fails_on_an_unnamed_warning_and_passes_when_named():
    r = result(BANNER + SOFTIRQ_WARNING + KTAP_OK)
    why = judge_scenario(Scenario(name="x", cpus=1), r)
    assert why and "console line 2: unexpected" in why[0] and "softirq.c:146" in why[0]
    named = Scenario(name="x", cpus=1, expect_console=[r"WARNING: .*softirq\.c:\d+", "Call Trace:"])
    assert judge_scenario(named, r) == []
    assert judge_scenario(Scenario(name="x", cpus=1), result(BANNER + KTAP_OK)) == []


def test_expect_console_in_a_file(tmp_path):
    p = tmp_path / "x.toml"
    p.write_text("description = 'd'\ncpus = 1\nexpect_console = ['rcu-poll: BUG: call_rcu', "
                 "'WARNING: CPU \\d+ at kernel/rcu/${variant}']\n")
    sc, = load_scenarios(p)
    assert sc.expect_console[0] == "rcu-poll: BUG: call_rcu"
    assert sc.regexes("expect_console", dict(variant="poll"))[1] == r"WARNING: CPU \d+ at kernel/rcu/poll"
    p.write_text("description = 'd'\nexpect_console = ['WARNING: (']\n")
    with pytest.raises(ValueError, match="bad regex"):
        load_scenarios(p)
