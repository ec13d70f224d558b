"""The runner's own parsers (tools/ktap.py, qs.log) on sample text."""
from qs import ktap
from qs.boot import BootResult
from qs.log import parse_console, user_view
from qs.qemu import STATUS_BY_CODE
from qs.scenario import check_online

SAMPLE = """\
[    0.061950] cpu0: config: HZ=250 CPUs=4 (max 16) preemption=none rcu=(none)
KTAP version 1
1..4
[    0.300000] cpu0: ktest: running smp_ipi_reaches_all
    # smp_ipi_reaches_all: 4 CPUs answered
ok 1 smp_ipi_reaches_all
[    0.400000] cpu2: some interleaved printk line
    # lock_spin_exclusion: test_lock.c:42: expected count == 4000: count 3999
not ok 2 lock_spin_exclusion
ok 3 needs_two_cpus # SKIP only one CPU
BENCH {"name": "kmalloc_pair", "cpus": 4, "ops_per_s": 1234567, "cycles": 812, "ns": 312}
ok 4 kmalloc_stress
# ktest summary: 4 tests, 2 passed, 1 failed, 1 skipped
"""


def test_results_and_diagnostics():
    rep = ktap.parse(SAMPLE)
    assert rep.version == 1 and rep.planned == 4 and rep.complete
    assert [r.name for r in rep.results] == ["smp_ipi_reaches_all", "lock_spin_exclusion",
                                             "needs_two_cpus", "kmalloc_stress"]
    assert [r.status for r in rep.results] == ["pass", "fail", "skip", "pass"]
    assert rep.results[0].diagnostics == ["smp_ipi_reaches_all: 4 CPUs answered"]
    assert "count 3999" in rep.results[1].diagnostics[0]
    assert rep.results[2].directive == "SKIP only one CPU"
    assert rep.summary == dict(tests=4, passed=2, failed=1, skipped=1)
    assert not rep.all_ok
    assert any("lock_spin_exclusion" in p for p in rep.problems())
    assert rep.line() == "ktap 3/4 ok (1 failed, 1 skipped)"


def test_clean_pass():
    rep = ktap.parse("KTAP version 1\n1..2\nok 1 a\nok 2 b\n"
                     "# ktest summary: 2 tests, 2 passed, 0 failed, 0 skipped\n")
    assert rep.all_ok and rep.problems() == []


def test_truncated_run_is_not_ok():
    """A run cut short (panic, timeout) has fewer results than its plan."""
    rep = ktap.parse("KTAP version 1\n1..3\nok 1 a\n")
    assert not rep.complete and not rep.all_ok
    assert any("plan said 3" in p for p in rep.problems())


def test_no_ktap_at_all():
    rep = ktap.parse("[    0.0] cpu0: hello\n")
    assert rep.version is None and not rep.all_ok
    assert rep.line() == "ktap: none"


def test_crlf_and_escapes():
    """GRUB leaves ANSI escapes; serial lines may end in CR LF."""
    rep = ktap.parse("\x1b[H\x1b[JKTAP version 1\r\n1..1\r\nok 1 x\r\n")
    assert rep.all_ok and rep.results[0].name == "x"


def test_summary_disagreeing_with_results_is_a_problem():
    rep = ktap.parse("KTAP version 1\n1..1\nok 1 a\n"
                     "# ktest summary: 1 tests, 0 passed, 1 failed, 0 skipped\n")
    assert any("disagrees" in p for p in rep.problems())


def test_console_milestones_bench_and_panic():
    log = SAMPLE + """\
[    0.061780] cpu0: smp: all 4 CPUs online in 31.201 ms (61.743 ms since boot)
[    0.262199] cpu0: ticks: cpu0=57 cpu1=55 cpu2=52 cpu3=0
[    0.3] cpu0: cmdline: unknown option 'frob' (ignored)
[    1.000000] cpu1: Kernel panic on CPU 1: page fault at 0xdead (not present, write)
[    1.000000] cpu1: RIP: 0010:ffffffff80101234
[    1.000000] cpu1: Call Trace:
[    1.000000] cpu1:   [<ffffffff80101234>] ktest_fn_fault_page_fault+0x12/0x40
[    1.000000] cpu1:   [<ffffffff80105678>] ktest_run_selected+0x9a/0x1c0
[    1.000000] cpu1: ---[ end Kernel panic on CPU 1 ]---
"""
    c = parse_console(log)
    assert c.banner == dict(hz=250, cpus=4, max_cpus=16, preemption="none", rcu="(none)")
    assert (c.online, c.online_ms) == (4, 31.201)
    assert c.ticks == {0: 57, 1: 55, 2: 52, 3: 0}
    assert c.unknown_options == ["frob"]
    assert c.bench[0]["name"] == "kmalloc_pair" and c.bench[0]["ns"] == 312
    assert c.panic.cpu == 1 and c.panic.reason.startswith("page fault")
    assert c.panic.trace == ["ktest_fn_fault_page_fault", "ktest_run_selected"]
    assert c.panic.complete


def test_check_online_catches_a_cpu_without_ticks():
    c = parse_console("[ 0.1] cpu0: config: HZ=250 CPUs=2 (max 16) preemption=none rcu=(none)\n"
                           "[ 0.1] cpu0: smp: all 2 CPUs online in 1.0 ms\n"
                           "[ 0.3] cpu0: ticks: cpu0=50 cpu1=0\n")
    r = BootResult(cmd=[], boot="kernel", cpus=2, cmdline="", accel="tcg", exit_code=0,
                        status="poweroff", elapsed=1.0, log_path="", log="", console=c)
    assert check_online(r) == ["CPUs without a tick: [1]"]
    r.cpus = 3
    assert any("2 CPUs online, QEMU has 3" in w for w in check_online(r))


def test_exit_status_mapping():
    assert STATUS_BY_CODE[33] == "pass"
    assert STATUS_BY_CODE[35] == "fail"
    assert STATUS_BY_CODE[37] == "panic"
    c = parse_console("")
    r = BootResult(cmd=[], boot="kernel", cpus=1, cmdline="", accel="tcg", exit_code=37,
                        status="panic", elapsed=1.0, log_path="", log="", console=c)
    ok, why = r.verdict("pass")
    assert not ok and "panic" in why[0]
    assert r.verdict("panic")[0]



def test_banner_must_match_the_build():
    c = parse_console("[ 0.1] cpu0: config: HZ=250 CPUs=2 (max 16) preemption=none rcu=poll\n")
    r = BootResult(cmd=[], boot="kernel", cpus=2, cmdline="", accel="tcg", exit_code=0,
                   status="poweroff", elapsed=1.0, log_path="", log="", console=c,
                   built=dict(variant="poll", preemption="none", hz=250))
    assert r.banner_problems() == []
    r.built = dict(variant="ltimer", preemption="kpreempt", hz=1000)
    why = r.banner_problems()
    assert len(why) == 3 and "rcu=poll" in why[0], why
    r.built, r.cpus = None, 4
    assert r.banner_problems() == ["the banner says CPUs=2, expected 4 (QEMU has 4)"]
    assert r.banner_problems(cpus=2) == []
    r.console = parse_console("")
    assert r.banner_problems() == ["no boot banner ('config: HZ=...')"]
    assert r.banner_problems(required=False) == []


def test_user_view_moves_a_spliced_printk_out_of_the_line():
    raw = ("Quiescent shell ready (pid 14); 'help' lists the commands\r\n"
           "$ [    0.275577] cpu0: user: /bin/init started\r\n"
           "ps\r\n  PID  PPID\r\n"
           "$ rc[    0.3] cpu1: a[    0.4] cpu2: b\nu\n")
    text = user_view(raw)
    assert "\n$ ps\n" in text, text
    assert "[    0.275577] cpu0: user: /bin/init started\n" in text
    assert "\n$ rcu\n" in text, text
    assert "[    0.3] cpu1: a" in text and "[    0.4] cpu2: b" in text
    # whole printk lines stay where they are
    assert user_view("[ 1.0] cpu0: x\n[ 1.1] cpu1: y\n") == "[ 1.0] cpu0: x\n[ 1.1] cpu1: y\n"
