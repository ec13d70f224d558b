"""make replay and the seed sweep (docs/replay.md, tools/replay.py,
tools/torture.py --seeds).

Without QEMU (make test): the replay and sweep commands a failure
prints, the mode's refusals, and the sweep's output format, on rows
made up here. With QEMU (make test-full, marker full): the busted
variant's torture failure replayed three times at the same virtual time
with the same console; `STOP=-N` under a gdb batch script landing before
the failure and inside the failing reader's section, with the console up
to the stop the first run's own; a
two-seed sweep listing both failures with their replay commands.
"""
import json
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from qs import REPO, replay
from qs.qemu import qemu_command
from qs.net import Nic
from qs.scenario import Scenario, scenarios

sys.path.insert(0, str(REPO / "tools"))
import torture  # noqa: E402

FAILS = REPO / "tests" / "replay" / "torture-busted-fails.toml"
ELF = REPO / "build" / "test-defconfig" / "quiescent.elf"


@pytest.fixture
def deterministic(monkeypatch):
    monkeypatch.setenv(replay.ENV, "1")
    monkeypatch.delenv(replay.SHIFT_ENV, raising=False)


def test_command_line_in_the_mode(deterministic):
    cmd = qemu_command(ELF, cpus=4, cmdline="ktest=torture_rcu -- ps", accel="kvm")
    line = " ".join(cmd)
    assert "-accel tcg,thread=single" in line and "thread=multi" not in line
    assert f"-icount shift={replay.DEFAULT_SHIFT},sleep=off,align=off" in line
    assert "-cpu max,-rdrand,-rdseed" in line and "clock=vm" in line
    # The key goes among the kernel's options, not init's.
    append = cmd[cmd.index("-append") + 1]
    assert append == (f"ktest=torture_rcu rtcache.secret={replay.RTCACHE_SECRET} "
                      f"replay.stop={0:020d} -- ps")


@pytest.mark.parametrize("opt,file", [("-initrd", "initrd.cpio"), ("-kernel", "quiescent.elf")])
def test_boot_file_names_are_one_length_wherever_the_tree_is(deterministic, tmp_path, opt, file):
    """The guest sees the -initrd path (the Multiboot module's name) and
    the -kernel path (QEMU puts it before the command line), and copies
    both to their end: were they the build directory's, a checkout at
    another path would boot another run (more instructions, another
    interleaving: a racy stress failed 38 ms later at a path 4
    characters longer, and the route cache's KASAN bug 467 ms earlier
    in the grader's scratch copy). Outside the mode they are left as
    they are."""
    names = []
    for d in (tmp_path / "a" / "build" / "x", tmp_path / "a-much-longer-checkout" / "build" / "y"):
        d.mkdir(parents=True)
        (d / "quiescent.elf").write_bytes(b"elf " + str(d).encode())
        (d / "initrd.cpio").write_bytes(b"cpio " + str(d).encode())
        cmd = qemu_command(d / "quiescent.elf", cpus=2, cmdline="ktest=x")
        name = cmd[cmd.index(opt) + 1]
        assert Path(name).read_bytes() == (d / file).read_bytes(), name
        assert name.endswith(Path(file).suffix), name     # the kernel drops a first word in .elf
        names.append(name)
    assert len(names[0]) == len(names[1]) and names[0] != names[1], names
    replay.enable(False)
    cmd = qemu_command(d / "quiescent.elf", cpus=2, cmdline="ktest=x")
    assert cmd[cmd.index(opt) + 1] == str(d / file)


def test_refusals(deterministic, tmp_path):
    with pytest.raises(replay.DeterminismError, match="answer on host time"):
        qemu_command(ELF, nics=[Nic("user")])
    elf = tmp_path / "quiescent.elf"
    elf.write_bytes(b"")
    (tmp_path / ".config").write_text("CONFIG_KCSAN=y\n")
    with pytest.raises(replay.DeterminismError, match="KCSAN"):
        qemu_command(elf)


def test_failure_lines(deterministic, monkeypatch):
    sc = scenarios([str(FAILS)])[0]
    r = SimpleNamespace(log="[    0.289757] cpu0: rcu-torture: ERROR: thread reader ...\n")
    (line,) = replay.failure_lines(sc, r, ["expected pass"])
    assert line.startswith("replay (first failure at 0.289757 s): make replay "
                           "CONFIG=rcu_busted_defconfig CPUS=4 SHIFT=3 ")
    assert "ARGS='ktest=torture_rcu torture.duration=1'" in line
    assert replay.failure_lines(sc, r, []) == []
    monkeypatch.delenv(replay.ENV)
    (line,) = replay.failure_lines(sc, r, ["expected pass"])
    assert line.startswith("sweep: make torture DETERMINISTIC=1 SCEN=torture-busted-fails SEEDS=")
    assert "may not reproduce" in line
    other = Scenario(name="boot", config="defconfig", cmdline="-- ps")
    (line,) = replay.failure_lines(other, r, ["x"])
    assert line.startswith("try: make replay CONFIG=defconfig") and "may not reproduce" in line


def test_seed_numbers_and_cmdline():
    assert torture.numbers("1-3,7") == [1, 2, 3, 7]
    sc = Scenario(name="x", cmdline="ktest=torture_rcu torture.seed=9 -- ps")
    assert torture.with_seed(sc, 4).cmdline == "ktest=torture_rcu torture.seed=4 -- ps"


def test_sweep_output_format(deterministic, monkeypatch, capsys):
    """The sweep's report, on made-up runs: seed 2 fails, and its replay
    command is printed under the list of failed runs."""
    sc = scenarios([str(FAILS)])[0]

    def fake_one(case, run, kvm):
        seed = int(re.search(r"torture\.seed=(\d+)", case.cmdline).group(1))
        ok = seed != 2
        cmd = replay.replay_command(case.config, case.cpus, case.cmdline)
        return dict(case=case.name, run=run, verdict="PASS" if ok else "FAIL",
                    why="" if ok else "expected pass", f={"errors": "0" if ok else "5"},
                    log="", replay="" if ok else f"replay (first failure at 0.1 s): {cmd}")
    monkeypatch.setattr(torture, "one", fake_one)
    monkeypatch.setattr(torture, "plan", lambda pat: [(sc, 1)])
    a = SimpleNamespace(scen="x", duration=None, kvm="0", untestable_skips=False,
                        seeds=[1, 2, 3], shifts=None)
    assert torture.cmd_run(a) == 1
    out = capsys.readouterr().out
    assert "torture: 2 of 3 runs passed" in out
    assert "torture: failed: torture-busted-fails seed=2\n" in out
    assert re.search(r"^  torture-busted-fails seed=2: replay \(first failure at 0\.1 s\): "
                     r"make replay CONFIG=rcu_busted_defconfig CPUS=4 SHIFT=3 "
                     r"ARGS='ktest=torture_rcu torture\.duration=1 torture\.seed=2'$", out, re.M)


BANNER = ("[    0.010000] cpu0: config: HZ=250 CPUs=2 (max 16) preemption=none rcu=tree "
          "spinlocks=ticket\n")
STRAY_WARNING = "[    0.120000] cpu1: WARNING: CPU 1 at kernel/sched/softirq.c:146: in_irq()\n"


def a_result(log, status="poweroff"):
    from qs.boot import BootResult
    from qs.log import parse_console
    r = BootResult(cmd=[], boot="kernel", cpus=2, cmdline="-- ps; poweroff", accel="tcg",
                   exit_code=33, status=status, elapsed=1.0, log_path=None, log=log,
                   console=parse_console(log))
    r.label = "replay"
    return r


@pytest.mark.parametrize("runs", [1, 2])
def test_replay_fails_a_console_with_a_stray_warning(monkeypatch, capsys, runs):
    """The verdict make replay prints is the one a scenario would get
    (qs.scenario.judge_scenario): a console with an unexpected WARNING line
    is a failed run, whatever the exit status, in its summary line (once
    PASS), its `replay:` line and its exit status. Without the WARNING the
    same run passes."""
    import replay as replay_cli
    log = BANNER + "[    0.100000] cpu0: ps\n" + STRAY_WARNING + "[    0.200000] cpu0: bye\n"
    for text, good in ((log, False), (log.replace(STRAY_WARNING, ""), True)):
        monkeypatch.setattr(replay_cli, "one_run", lambda a, i=None, t=text: a_result(t))
        a = SimpleNamespace(
            config="defconfig", options=[], cpus=2, args="-- ps; poweroff", boot="kernel",
            expect="poweroff", timeout=60, runs=runs, elf=None)
        rc = replay_cli.cmd_runs(a)
        out = capsys.readouterr().out
        lines = [ln for ln in out.splitlines() if ln.startswith(("PASS", "FAIL"))]
        assert len(lines) == runs, out
        if good:
            assert all(ln.startswith("PASS ") for ln in lines), out
            assert out.count("replay: passed; no failure line") == runs, out
            assert rc == 0, out
        else:
            assert all(ln.startswith("FAIL ") for ln in lines), out
            assert "unexpected '[    0.120000] cpu1: WARNING: CPU 1 at" in out, out
            assert out.count("replay: failed; first failure at 0.120000 s") == runs, out
            # Two identical consoles are a replay that reproduced: it is the
            # runs' verdict, not their sameness, that a single run reports.
            assert rc == (1 if runs == 1 else 0), out


GP_ERROR = ("[    0.292979] cpu0: rcu-torture: ERROR: thread reader on CPU 0: grace period 39 "
            "began after the reader and ended before it (started 38 at the reader's start, "
            "completed 82 at its end); element 0xffff80001ff87f00 version 3, pipe 1, current "
            "version 5\n")


def test_the_failing_readers_record():
    """STOP=-N's check reads the failing reader's grace-period counts from
    the first failure's report; a first failure of another kind has no
    such record (the grace-period report after it is not the failure)."""
    log = BANNER + "[    0.277829] cpu0: rcu-torture: start: variant=busted\n" + GP_ERROR
    assert replay.reader_record(log) == dict(time=0.292979, ctx="thread", cpu=0, gp=39,
                                             started=38, completed=82,
                                             element="0xffff80001ff87f00")
    assert replay.reader_record(BANNER + STRAY_WARNING + GP_ERROR) is None
    assert replay.reader_record(BANNER) is None


def test_batch_takes_several_commands_and_files(tmp_path):
    """--batch repeats, --batch-file adds a file of gdb commands (gdb's
    `source`, which takes what one -ex cannot: blocks over several
    lines), and both keep the order they were given in. Without a stop
    there is nothing to run them at: refused, as is a missing file."""
    import replay as replay_cli
    script = tmp_path / "check.gdb"
    script.write_text("set $n = 2\nif $n > 1\n  echo several lines ran\\n\nend\n")
    a = replay_cli.parse(["--stop=-2", "--batch", "p 1", "--batch-file", str(script),
                          "--batch", "qs-cpus"])
    assert a.batch == ["p 1", f"source {script}", "qs-cpus"]
    assert replay_cli.parse(["--rr", "--batch-file", str(script)]).batch == [f"source {script}"]
    for argv in (["--batch", "p 1"], ["--stop=-2", "--batch-file", str(tmp_path / "none.gdb")]):
        with pytest.raises(SystemExit):
            replay_cli.parse(argv)
    # The file's block runs as one, which it would not as separate -ex lines.
    out = subprocess.run(["gdb", "-q", "-nx", "-batch", "-ex", a.batch[1]],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
    assert out.strip() == "several lines ran", out


def test_a_waiting_qemu_is_told_from_an_executing_one():
    """When gdb's commands run out of time (a reverse-continue in QEMU 7.2
    never returns) the tool says whether QEMU still uses CPU: a process
    that sleeps is waiting, one that spins is executing."""
    import replay as replay_cli
    idle = subprocess.Popen(["sleep", "60"])
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        assert "it is waiting, not executing" in replay_cli.qemu_busy(idle, 1.0)
        assert "it is executing" in replay_cli.qemu_busy(busy, 1.0)
    finally:
        for proc in (idle, busy):
            proc.kill()
            proc.wait()
    assert replay_cli.qemu_busy(idle, 0.1) == "replay: QEMU has exited"


ABBA_REPORT = ("[    0.300000] cpu0: WARNING: possible circular locking dependency detected\n"
               "[    0.300100] cpu0: lockdep: chain 1 (now): lockdep_b -> lockdep_a\n"
               "[    0.300200] cpu0: lockdep: chain 2 (seen before): lockdep_a -> lockdep_b\n"
               "[    0.300300] cpu0: lockdep: turning off the locking correctness validator.\n")


def test_replay_of_a_scenario_judges_by_its_lines(monkeypatch, capsys):
    """A scenario whose report is expected (lockdep-abba allows its
    WARNING and requires its lines) replays with SCEN=: make replay then
    judges the run by that scenario's expect_console and log, as the
    scenario runner did, instead of failing the WARNING the case exists
    to print. The printed replay command carries SCEN= for a case that
    is a scenario file, and not for one that is not."""
    import replay as replay_cli
    log = (BANNER + "KTAP version 1\n1..1\n" + ABBA_REPORT + "ok 1 lockdep_misuse_abba\n"
           "# ktest summary: 1 tests, 1 passed, 0 failed, 0 skipped\n")
    monkeypatch.setattr(replay_cli, "one_run", lambda a, i=None: a_result(log))
    base = dict(config="rcu_ltimer_defconfig", options=[], cpus=2, boot="kernel",
                args="ktest=lockdep_misuse_abba", expect="poweroff", timeout=90, runs=1,
                elf=None)
    assert replay_cli.cmd_runs(SimpleNamespace(**base, scenario=None)) == 1
    assert "unexpected '[    0.300000] cpu0: WARNING: possible circular" in capsys.readouterr().out
    assert replay_cli.cmd_runs(SimpleNamespace(**base, scenario="lockdep-abba")) == 0, \
        capsys.readouterr().out
    # Its required lines still count: without the report it fails.
    monkeypatch.setattr(replay_cli, "one_run", lambda a, i=None: a_result(BANNER))
    assert replay_cli.cmd_runs(SimpleNamespace(**base, scenario="lockdep-abba")) == 1
    assert "console log lacks" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="no scenario named lockdep-nonesuch"):
        replay_cli.cmd_runs(SimpleNamespace(**base, scenario="lockdep-nonesuch"))

    sc = next(iter(scenarios(("lockdep-abba",))))
    r = a_result(BANNER)
    monkeypatch.setenv(replay.ENV, "1")
    line = replay.failure_lines(sc, r, ["console log lacks x"])[0]
    assert " SCEN=lockdep-abba" in line, line
    other = Scenario(name="lab3-stress", config="defconfig", cmdline="-- ps")
    assert "SCEN=" not in replay.failure_lines(other, r, ["x"])[0]


def replay_tool(*args, timeout=1800):
    p = subprocess.run([sys.executable, str(REPO / "tools" / "replay.py"), *args], cwd=REPO,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout


BUSTED = ["--config", "rcu_busted_defconfig", "--cpus", "4",
          "--args", "ktest=torture_rcu torture.duration=1"]


@pytest.mark.full
def test_busted_failure_replays_three_times():
    rc, out = replay_tool(*BUSTED, "--runs", "3")
    assert rc == 0, out
    times = re.findall(r"first failure at (\d+\.\d+) s", out)
    assert len(times) == 3 and len(set(times)) == 1, out
    assert "3 of 3 consoles identical" in out, out


# Every thread read a long one (torture.long_every=1) of 10 to 20 ms
# (torture.long_delay=20000), and no IRQ reads, whose sections are a few
# microseconds: the failing reader's section then spans several ticks, so
# a stop, made at a tick or a printk, can land inside it.
LONG_READS = ["--config", "rcu_busted_defconfig", "--cpus", "4", "--args",
              "ktest=torture_rcu torture.duration=1 torture.irqreader=0 torture.long_every=1 "
              "torture.long_delay=20000"]
IN_READER = "tests/replay/stop-in-reader.gdb"


@pytest.mark.full
def test_stop_lands_before_the_failure_inside_the_readers_section():
    """STOP=-9 under the batch script tests/replay/stop-in-reader.gdb: the
    stop is before the failure and inside the failing reader's section,
    as the kernel's grace-period counts at the stop and the reader's
    record in the console decide (docs/replay.md); the console up to the
    stop is the first run's own. 25 ms before (longer than the reader's
    section can be), the same script says no:
    the reader had not been shown to begin."""
    at_stop = REPO / "build" / "replay" / "at-stop.log"
    at_stop.unlink(missing_ok=True)
    rc, out = replay_tool(*LONG_READS, "--stop=-9", "--batch",
                          f"shell cp build/replay/stop-serial.log {at_stop.relative_to(REPO)}",
                          "--batch-file", IN_READER)
    assert re.search(r"replay: stopped at \d+ ns by CPU \d", out), out
    failed = float(re.search(r"before the failure at (\d+\.\d+) s", out).group(1))
    stopped = int(re.search(r"replay: stopped at (\d+) ns", out).group(1))
    assert failed * 1e9 - 9e6 <= stopped < failed * 1e9, out
    assert "check: before the failure: yes" in out, out
    assert re.search(r"^check: inside the failing reader's section: yes, grace period \d+ has "
                     r"begun under it", out, re.M), out
    first_log = REPO / re.search(r"log=(\S+)", out).group(1)
    first = first_log.read_text(errors="replace")
    seen = at_stop.read_text(errors="replace")
    # The kernel's own line at the stop is the replay's alone.
    stop_line = seen.rfind("replay: stopped at ")
    assert stop_line > 0, seen[-500:]
    seen = seen[:seen.rfind("\n", 0, stop_line) + 1]
    # The two command lines differ in replay.stop='s digits alone, echoed at boot.
    asked = re.search(r"replay\.stop=(\d{20})", seen)
    assert asked and 0 < int(asked.group(1)) - 1 <= stopped, seen[:600]
    assert f"replay.stop={0:020d}" in first
    first, seen = (re.sub(r"replay\.stop=\d{20}", "replay.stop=N", t) for t in (first, seen))
    assert "rcu-torture: ERROR" not in seen, seen[-2000:]
    assert "rcu-torture: ERROR" in first
    # Up to the stop the run is the first run: what it printed is a prefix.
    assert first.startswith(seen) and len(seen) > 1000, (len(seen), seen[-500:])

    rc, out = replay_tool(*LONG_READS, "--stop=-25", "--log", str(first_log),
                          "--batch-file", IN_READER)
    assert "check: before the failure: yes" in out, out
    assert "check: inside the failing reader's section: no, too early" in out, out


def stop_state(out):
    """What a stop found, from replay.py's output with --batch qs-cpus: the
    stop's time and CPU, each parked CPU's interrupted frame, each CPU's
    current task, preempt count and ticks."""
    lines = [ln for ln in out.splitlines()
             if re.match(r"(replay: stopped at \d+ ns by CPU|cpu\d+: (interrupted|reached|the stopping)"
                         r"|\s+\d+\s+\d+ 0x)", ln)]
    return lines


@pytest.mark.full
def test_stop_finds_every_cpu_where_it_found_it_before():
    """Two replays of one STOP: the same stop, on the same CPU, at the
    same virtual nanosecond, and every other CPU parked at the same
    instruction with the same task, preempt count and tick count. (With
    gdb attached from the first instruction, as the stop was made before
    the kernel parked its CPUs itself, two such stops differed: 280718550
    against 280719302 ns, and three of four CPUs' pcs.)"""
    runs = []
    for _ in range(2):
        rc, out = replay_tool(*BUSTED, "--stop=0.2805", "--timeout=300", "--batch", "qs-cpus")
        assert rc == 0, out
        state = stop_state(out)
        assert sum("interrupted by the NMI" in ln or "reached the stop" in ln for ln in state) == 3, out
        assert len([ln for ln in state if re.match(r"\s+\d+\s+\d+ 0x", ln)]) == 4, out
        # Each parked CPU's callers, walked by frame pointer (bt stops at
        # the interrupt's entry), and what each CPU's counts say.
        assert re.search(r"^cpu\d+: interrupted by the NMI at .*\n        called from \w+", out,
                         re.M), out
        assert "read side (preempt_count decoded)" in out, out
        runs.append(state)
    assert runs[0] == runs[1], "\n".join(runs[0] + ["-- against --"] + runs[1])


@pytest.mark.full
def test_seed_sweep_finds_and_lists(deterministic):
    p = subprocess.run([sys.executable, str(REPO / "tools" / "torture.py"), "run", str(FAILS),
                        "--seeds", "1-2"], cwd=REPO, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=1800)
    assert p.returncode == 1, p.stdout
    assert "torture: failed: torture-busted-fails seed=1, torture-busted-fails seed=2" in p.stdout
    for seed in (1, 2):
        assert re.search(rf"^  torture-busted-fails seed={seed}: replay \(first failure at "
                         rf"[\d.]+ s\): make replay CONFIG=rcu_busted_defconfig CPUS=4 SHIFT=3 "
                         rf"ARGS='ktest=torture_rcu torture\.duration=1 torture\.seed={seed}'",
                         p.stdout, re.M), p.stdout


def test_bundle_and_its_qemu_check(defconfig_elf, tmp_path):
    """BUNDLE= writes what reruns the run elsewhere; FROM= refuses another
    QEMU before it boots anything."""
    out = tmp_path / "b"
    rc, text = replay_tool("--config", "defconfig", "--cpus", "2", "--args", "-- ps; poweroff",
                           "--bundle", str(out), timeout=600)
    assert rc == 0, text
    doc = json.loads((out / "replay.json").read_text())
    assert (out / "quiescent.elf").read_bytes() == Path(defconfig_elf).read_bytes()
    assert doc["qemu"].startswith("QEMU emulator version") and doc["shift"] == replay.DEFAULT_SHIFT
    assert doc["command"].startswith("make replay CONFIG=defconfig CPUS=2 SHIFT=3 ")
    doc["qemu"] = "QEMU emulator version 1.0"
    (out / "replay.json").write_text(json.dumps(doc))
    rc, text = replay_tool("--from", str(out), timeout=120)
    assert rc != 0 and "made with 'QEMU emulator version 1.0'" in text, text


@pytest.mark.full
def test_rr_finds_the_grace_period_that_ended_under_the_reader():
    """RR=1 at -smp 1 on the busted variant in the preemptible kernel,
    under tests/replay/rr-gp-end.gdb: in the record's replay a watchpoint
    on rcu_gp_seq.completed, for the count the failing reader read at its
    end, stops where that grace period ended, inside the reader (at -smp
    1 nothing else runs in its section: the reader's own call_rcu(), which
    busted ends at once), before the report; then reverse-stepi goes back
    from torture_report's first instruction to the call in its caller, and
    qs-reverse-continue with an unconditional watchpoint on the count goes
    back to the same write, at the same instruction count."""
    rc, out = replay_tool("--config", "rcu_busted_kpreempt_defconfig", "--cpus", "1",
                          "--args", "ktest=torture_rcu torture.duration=1", "--rr",
                          "--timeout", "900", "--batch-file", "tests/replay/rr-gp-end.gdb")
    assert re.search(r"recorded [\d.]+ MB in \d+ s; first failure at", out), out
    completed = int(re.search(r"the failing reader: .* completed (\d+) at its end", out).group(1))
    assert re.search(rf"^Old value = {completed - 1}\nNew value = {completed}\n", out, re.M), out
    frames = re.findall(r"^#\d+ +(?:0x[0-9a-f]+ in )?(\w+) \(", out, re.M)
    assert frames[0] == "rcu_gp_end" and "rcu_torture_one_read" in frames[:6], out
    icounts = [int(n) for n in re.findall(r"instruction count = (\d+)", out)]
    # The end, then the report, then back at the end by qs-reverse-continue.
    assert len(icounts) == 3 and icounts[0] < icounts[1] and icounts[2] == icounts[0], out
    assert re.search(r"qs-reverse-continue: the last of \d+ hits before instruction \d+ is at "
                     rf"instruction {icounts[0]}, now here", out), out
    assert re.search(rf"^\$2 = {completed}$", out, re.M), out
    assert "Breakpoint 2, torture_report" in out, out
    m = re.search(r"\$1 = \(void \(\*\)\(\)\) 0x[0-9a-f]+ <(\w+)\+\d+>", out)
    assert m and m.group(1) == "rcu_torture_one_read", out
