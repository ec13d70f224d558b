#!/usr/bin/env python3
"""make replay: rerun a deterministic run exactly (docs/replay.md).

Every failure in the deterministic mode (DETERMINISTIC=1) prints the
command that reruns it; this is what it runs:

    tools/replay.py --config rcu_busted_defconfig --cpus 4 --shift 3 \\
        --args 'ktest=torture_rcu torture.duration=3'
    ... --scenario NAME   judged by that scenario's lines (make replay SCEN=)
    ... --runs 3          three times: the consoles must be the same
    ... --stop 0.25       gdb attached, stopped at virtual time 0.25 s
    ... --stop -20        20 ms before the first failure the run prints
    ... --stop -9 --batch-file tests/replay/stop-in-reader.gdb
                          gdb's commands at the stop, then exit: did it land
                          inside the failing reader's section?
    ... --bundle DIR      the ELF, initrd, command and QEMU version in DIR
    tools/replay.py --from DIR [--stop ...]   replay a bundle

The stop: every CPU's tick and every printk compare the time with
replay_stop_ns (kernel/time/replay_stop.c), the same comparison whatever
its value, which comes from replay.stop= (20 digits in every
deterministic run, all zeros for never: qs.replay.stop_arg). The first
CPU at or after the time (a printk stops before its line is out: a stop
before a failure lands, at the latest, just before its report) parks
every other CPU with an NMI, prints "replay: stopped at ...", and waits
with interrupts off. QEMU runs without -S, so up to the stop the run
executes the instructions the original did; gdb attaches only once that
line is out, and finds every CPU where the stop left it (qs-replay-frames
lists the parked CPUs' interrupted frames). Resumed (continue), it is
another run: the CPUs waited for gdb on host time, so the times, and at
-smp 2 and more the interleaving, differ from there (docs/replay.md). To
see a later moment, replay with a later STOP.
"""
import argparse
import dataclasses
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from qs import REPO, replay
from qs.boot import boot
from qs.build import BuildError, build
from qs.gdb import Session
from qs.scenario import Scenario, judged_line, scenario_named


def qemu_version():
    return subprocess.run(["qemu-system-x86_64", "--version"], stdout=subprocess.PIPE,
                          text=True).stdout.split("\n")[0].strip()


def build_name(config, options):
    return Scenario(name="replay", config=config, options=list(options)).build_name


def as_case(a):
    """The run as a scenario case: make replay judges it as the scenario
    runner does (qs.scenario.judged_line), not with a judgement of its own.
    With --scenario (SCEN=) the case is that scenario's, with the run's own
    configuration and command line: the lines it requires (log) and the
    reports it allows (expect_console) judge the replay as they judged the
    failure, so a case that exists to print a WARNING does not fail on it."""
    run = dict(name="replay", config=a.config, options=list(a.options), cpus=a.cpus,
               boot=a.boot, cmdline=a.args, expect=a.expect, timeout=a.timeout)
    name = getattr(a, "scenario", None)
    if not name:
        return Scenario(**run)
    sc = scenario_named(name)
    if sc is None:
        raise SystemExit(f"replay: no scenario named {name} (python3 tools/qrun.py scenario "
                         "--list names them)")
    if sc.net == "pair":
        raise SystemExit(f"replay: {name} boots two guests joined by a cable; the "
                         "deterministic mode replays one")
    return dataclasses.replace(sc, **run)


def describe(r, a):
    """(first failure time, ok, reasons, summary line) of one run."""
    case = as_case(a)
    why, line = judged_line(case, r, r.label)
    allowed = case.regexes("expect_console", getattr(r, "built", None))
    return replay.failure_time(r.log, allowed), not why, why, line


def report(r, a):
    """Print one run's summary line and its reasons; (time, ok)."""
    t, ok, why, line = describe(r, a)
    print(line, flush=True)
    for w in why:
        print(f"      {w}")
    return t, ok


def one_run(a, i=None):
    label = "replay" if i is None else f"replay-{i + 1}"
    if a.elf:
        from qs.boot import boot_image
        log = REPO / "build" / "replay" / f"{label}.log"
        r = boot_image(a.elf, cpus=a.cpus, cmdline=a.args, accel="tcg", timeout=a.timeout,
                       log_path=log)
        r.label = label
    else:
        r = boot(name=build_name(a.config, a.options), defconfig=a.config, options=a.options,
                 boot=a.boot, cpus=a.cpus, cmdline=a.args, timeout=a.timeout, kvm="0",
                 label=label)
    return r


def cmd_runs(a):
    logs, times, oks = [], [], []
    for i in range(a.runs):
        r = one_run(a, i if a.runs > 1 else None)
        t, ok = report(r, a)
        oks.append(ok)
        where = f"first failure at {t:.6f} s" if t is not None else "no failure line"
        print(f"replay: {'passed' if ok else 'failed'}; {where}")
        logs.append(r.log)
        times.append(t)
    if a.runs > 1:
        same = sum(log == logs[0] for log in logs)
        print(f"replay: {same} of {a.runs} consoles identical to the first; failure times "
              + ", ".join("none" if t is None else f"{t:.6f}" for t in times))
        return 0 if same == a.runs else 1
    return 0 if oks[0] else 1


def stop_ns(a):
    """The virtual time to stop at, in ns: --stop T (s), or --stop -N: N ms
    before the first failure a first run (or --log) shows."""
    v = float(a.stop)
    if v >= 0:
        return int(v * 1e9), None, ""
    if a.log:
        text = Path(a.log).read_text(errors="replace")
    else:
        print("replay: a first run, to find when it fails", flush=True)
        r = one_run(a)
        report(r, a)
        text = r.log
    t = replay.failure_time(text)
    if t is None:
        raise SystemExit("replay: the run prints no failure line: STOP=-N has nothing to count "
                         "back from (give STOP=T in seconds)")
    at = t + v / 1000
    if at <= 0:
        raise SystemExit(f"replay: the failure is at {t:.6f} s, earlier than {-v:g} ms")
    return int(at * 1e9), t, text


def gdb_stop_commands():
    """The gdb commands run on attaching to a run the kernel has stopped
    (replay.stop= asks for it): the stopping CPU's thread in replay_stop()
    (`up` from there is the tick or printk that stopped), the stop's time, and
    replay_go set so that `continue` runs on. (Setting it writes guest
    memory, after the stop, where nothing of the replayed run is left.)"""
    return ['eval "thread %d", replay_stop_cpu + 1', "up",
            "set $stop_ns = replay_stopped_ns", "set var replay_go = 1", "qs-replay-frames",
            'printf "replay: stopped at %llu ns (virtual)\\n", $stop_ns']


STOPPED_LINE = "replay: stopped at "


def wait_for_stop(s, timeout):
    """Until the kernel says it has stopped (kernel/time/replay_stop.c):
    None, or why it will not."""
    import time
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if STOPPED_LINE in s.serial_text():
            return None
        if s.qemu.poll() is not None:
            return "replay: the run ended before the stop (its console: " + \
                os.path.relpath(s.log_path, REPO) + ")"
        time.sleep(0.05)
    return f"replay: the kernel did not stop within {timeout} s"


def failure_variables(failed_at, text):
    """gdb convenience variables for a check at the stop (a BATCH= script
    such as tests/replay/stop-in-reader.gdb): the first failure's time
    ($failure_ns, from its console stamp, to the microsecond) and, when it
    is rcutorture's grace-period report, the failing reader's record
    ($reader_cpu, $reader_started, $reader_completed: qs.replay.reader_record).
    Setting them writes gdb's memory, not the guest's."""
    if failed_at is None:
        return [], ""
    cmds = [f"set $failure_ns = {round(failed_at * 1e6) * 1000}"]
    rec = replay.reader_record(text)
    if not rec:
        return cmds, ""
    cmds += [f"set $reader_cpu = {rec['cpu']}", f"set $reader_started = {rec['started']}",
             f"set $reader_completed = {rec['completed']}"]
    return cmds, (f"replay: the failing reader: {rec['ctx']} reader on CPU {rec['cpu']}, grace "
                  f"periods started {rec['started']} at its start, completed {rec['completed']} "
                  f"at its end (in gdb $reader_started, $reader_completed; qs-rcu shows "
                  f"the kernel's counts)")


def cpu_seconds(pid):
    """The CPU time (user + system, all threads) process pid has used, in s."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def qemu_busy(qemu, seconds=5.0):
    """A line saying whether QEMU is still executing: the CPU time it uses
    over a few seconds. A reverse-continue in QEMU 7.2 that does not come
    back uses none: its threads wait on each other (docs/replay.md)."""
    import time
    try:
        before = cpu_seconds(qemu.pid)
        time.sleep(seconds)
        used = cpu_seconds(qemu.pid) - before
    except (OSError, ValueError, IndexError):
        return "replay: QEMU has exited"
    # A deadlocked QEMU uses none at all; one executing on a heavily loaded
    # host still gets a share of a core well above this.
    state = ("it is executing" if used > 0.02 * seconds else
             "it is waiting, not executing (a reverse-continue in QEMU 7.2 deadlocks so: "
             "docs/replay.md)")
    return f"replay: QEMU used {used:.2f} s of CPU in the last {seconds:.0f} s: {state}"


def run_batch(gcmd, timeout, qemu=None):
    """gdb with batch commands: what it printed, also when it runs out of
    time (a reverse-continue does: docs/replay.md), then whether QEMU is
    still at work."""
    try:
        p = subprocess.run(gcmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else e.stdout
        sys.stdout.write(out or "")
        print(f"replay: gdb's commands did not finish within {timeout} s")
        if qemu is not None:
            print(qemu_busy(qemu), flush=True)
        return 124
    sys.stdout.write(p.stdout)
    return p.returncode


def qemu_said(s):
    """What QEMU printed on its stdout and stderr (after s is closed)."""
    text = s.qemu.stdout.read().decode(errors="replace").strip() if s.qemu.stdout else ""
    return "replay: QEMU printed " + (f"this:\n{text}" if text else "nothing")


def cmd_stop(a):
    ns, failed_at, text = stop_ns(a)
    if a.elf:
        elf = Path(a.elf)
    else:
        elf = build(build_name(a.config, a.options), a.config, a.options)
    serial_log = REPO / "build" / "replay" / "stop-serial.log"
    os.environ[replay.STOP_ENV] = str(ns)
    with Session(elf, None, "kernel", a.cpus, a.args, serial_log=serial_log, stopped=False) as s:
        why = wait_for_stop(s, a.timeout or 600)
        if why:
            print(why)
            return 1
        variables, reader = failure_variables(failed_at, text)
        cmds = gdb_stop_commands() + variables
        banner = (f"replay: stopped at the first tick or printk at or after {ns / 1e9:.6f} s "
                  "(virtual)"
                  + (f", {(failed_at - ns / 1e9) * 1000:.1f} ms before the failure at "
                     f"{failed_at:.6f} s" if failed_at else ""))
        if reader:
            banner += "\\n" + reader
        if a.batch is None:
            import signal
            cmds += [f'echo {banner}\\n',
                     'echo replay: qs-rcu, qs-cpus, qs-dmesg, qs-help; `continue` runs on into '
                     'the failure (the console: make console, or '
                     + os.path.relpath(s.log_path, REPO) + ')\\n']
            gcmd = [c for c in s.gdb_command()]
            for c in cmds:
                gcmd += ["-ex", c]
            signal.signal(signal.SIGINT, signal.SIG_IGN)      # Ctrl-C belongs to gdb
            return subprocess.call(gcmd)
        cmds += [f'echo {banner}\\n'] + a.batch
        rc = run_batch(s.gdb_command(cmds), a.timeout, s.qemu)
    if rc == 124:
        print(qemu_said(s))
    return rc


def cmd_rr(a):
    """RR=1: record the run with QEMU's record/replay, then replay the
    record under gdb, where reverse execution works from the snapshot
    taken at the start, on a qcow2 drive (reverse-stepi, checked by
    tests/test_replay.py). reverse-continue never comes back in QEMU 7.2:
    its second snapshot load, run from a timer, waits for the vCPU
    thread, which waits for the replay lock the timer's thread holds
    (docs/replay.md); a batch that runs out of time says so. gdb's
    qs-reverse-continue (tools/gdb/replay.py) does it from the monitor."""
    from qs import qcow2
    from qs.boot import boot_image
    if a.cpus != 1:
        raise SystemExit("replay: RR=1 records one vCPU: QEMU 7.2's record/replay refuses "
                         "-smp above 1 (CPUS=1; rcu_busted_kpreempt_defconfig fails there)")
    elf = Path(a.elf) if a.elf else build(build_name(a.config, a.options), a.config, a.options)
    d = REPO / "build" / "replay"
    d.mkdir(parents=True, exist_ok=True)
    rec, drive = d / "rr.bin", d / "rr.qcow2"
    qcow2.write_empty(drive)
    os.environ.update({replay.RR_ENV: "record", replay.RR_FILE_ENV: str(rec),
                       replay.RR_DRIVE_ENV: str(drive)})
    r = boot_image(elf, cpus=1, cmdline=a.args, accel="tcg", timeout=a.timeout,
                   log_path=d / "rr-record.log")
    r.label = "rr-record"
    if r.status == "crash" and not r.log.strip():
        raise SystemExit("replay: QEMU would not record:\n" + r.stderr.strip())
    t, _ = report(r, a)
    print(f"replay: recorded {rec.stat().st_size / 1e6:.1f} MB in {r.elapsed:.0f} s"
          + (f"; first failure at {t:.6f} s" if t is not None else ""), flush=True)
    os.environ[replay.RR_ENV] = "replay"
    # The record's failing reader, for a watchpoint on what it saw.
    variables, reader = failure_variables(t, r.log)
    if reader:
        print(reader, flush=True)
    with Session(elf, None, "kernel", 1, a.args, serial_log=d / "rr-replay-serial.log") as s:
        hint = ("echo replay: the record, under gdb, from its start: break torture_report, "
                "continue, then reverse-stepi steps back; for reverse-continue, which "
                "deadlocks in QEMU 7.2, qs-reverse-continue (docs/replay.md)\\n")
        if a.batch is None:
            import signal
            gcmd = s.gdb_command()
            for c in variables + [hint]:
                gcmd += ["-ex", c]
            signal.signal(signal.SIGINT, signal.SIG_IGN)      # Ctrl-C belongs to gdb
            return subprocess.call(gcmd)
        rc = run_batch(s.gdb_command(variables + [hint] + a.batch), a.timeout, s.qemu)
    if rc == 124:
        print(qemu_said(s))
    return rc


def cmd_bundle(a):
    # BUNDLE=1 (the spelling): the default folder.
    out = (REPO / "build" / "replay" / "bundle" if a.bundle in ("1", "y", "yes")
           else Path(a.bundle))
    out.mkdir(parents=True, exist_ok=True)
    elf = Path(a.elf) if a.elf else build(build_name(a.config, a.options), a.config, a.options)
    shutil.copy(elf, out / "quiescent.elf")
    initrd = elf.with_name("initrd.cpio")
    if initrd.exists():
        shutil.copy(initrd, out / "initrd.cpio")
    doc = dict(qemu=qemu_version(), cpus=a.cpus, args=a.args, shift=replay.shift(),
               config=a.config, options=a.options, expect=a.expect, timeout=a.timeout,
               command=replay.replay_command(a.config, a.cpus, a.args, a.options, a.boot,
                                             a.expect, a.timeout))
    (out / "replay.json").write_text(json.dumps(doc, indent=1) + "\n")
    (out / "README").write_text(
        "A deterministic Quiescent run (docs/replay.md). Replay it with\n"
        f"    make replay FROM={out}\n"
        f"with {doc['qemu']}: another QEMU may execute differently.\n"
        f"It was: {doc['command']}\n")
    print(f"replay: bundle in {out}: quiescent.elf, initrd.cpio, replay.json ({doc['qemu']})")
    return 0


def from_bundle(a):
    d = Path(getattr(a, "from"))
    doc = json.loads((d / "replay.json").read_text())
    here = qemu_version()
    if doc["qemu"] != here and not a.any_qemu:
        raise SystemExit(f"replay: the bundle was made with {doc['qemu']!r}, this QEMU is "
                         f"{here!r}: another version may translate and time the guest "
                         f"differently (--any-qemu to try anyway)")
    a.elf = str(d / "quiescent.elf")
    a.cpus, a.args, a.expect, a.timeout = doc["cpus"], doc["args"], doc["expect"], doc["timeout"]
    a.config, a.options = doc["config"], doc["options"]
    replay.enable(True, doc["shift"])


class BatchFile(argparse.Action):
    """--batch-file FILE: gdb's `source FILE` among the --batch commands, in
    the order given. A file holds what one -ex cannot: several commands,
    and blocks (if/while/define ... end) over several lines."""

    def __call__(self, parser, ns, value, option_string=None):
        path = Path(value)
        if not path.is_file():
            parser.error(f"{option_string} {value}: no such file")
        # Absolute: gdb runs in the repository, the caller may not.
        setattr(ns, self.dest, (getattr(ns, self.dest) or []) + [f"source {path.resolve()}"])


def parse(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", default="defconfig")
    ap.add_argument("--option", dest="options", action="append", default=[],
                    help="CONFIG_X=y added to the configuration (several: repeat, or spaces)")
    ap.add_argument("--cpus", type=int, default=4)
    ap.add_argument("--args", default="", help="the kernel command line, as the failure printed it")
    ap.add_argument("--boot", default="kernel", choices=("kernel", "iso"),
                    help="iso: GRUB's command line, in the ISO (no STOP, RR or bundle)")
    ap.add_argument("--shift", type=int, default=None)
    ap.add_argument("--expect", default="pass", choices=("pass", "fail", "panic", "poweroff"))
    ap.add_argument("--scenario", default=None, metavar="NAME",
                    help="judge the run by this scenario's log and expect_console (SCEN=)")
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--stop", default=None, help="T (s, virtual) or -N (ms before the failure)")
    ap.add_argument("--log", default=None, help="with --stop -N: the first run's log")
    ap.add_argument("--batch", action="append", default=None, metavar="GDB_CMD",
                    help="with --stop or --rr: run this gdb command at the stop (several: "
                         "repeat it), then exit")
    ap.add_argument("--batch-file", dest="batch", action=BatchFile, metavar="FILE",
                    help="with --stop or --rr: gdb commands from FILE (as gdb's source), "
                         "among the --batch ones in the order given")
    ap.add_argument("--bundle", default=None, metavar="DIR")
    ap.add_argument("--from", default=None, metavar="DIR")
    ap.add_argument("--any-qemu", action="store_true")
    ap.add_argument("--rr", action="store_true",
                    help="record, then replay under gdb with reverse execution (CPUS=1)")
    ap.add_argument("--elf", default=None, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    a.options = [o for opt in a.options for o in opt.split()]
    if a.batch is not None and not (a.rr or a.stop not in (None, "")):
        ap.error("--batch and --batch-file run at a stop: give --stop or --rr too")
    return a


def main(argv=None):
    a = parse(argv)
    if a.boot == "iso" and (a.stop or a.rr or a.bundle or getattr(a, "from")):
        # replay.stop= rides on the kernel's command line, which an ISO's
        # GRUB menu fixes; the bundle and RR carry an ELF.
        raise SystemExit("replay: STOP=, RR=1, BUNDLE= and FROM= boot the ELF: not with BOOT=iso")
    replay.enable(True, a.shift)
    if getattr(a, "from"):
        from_bundle(a)
    try:
        if a.bundle:
            return cmd_bundle(a)
        if a.rr:
            return cmd_rr(a)
        if a.stop not in (None, ""):
            return cmd_stop(a)
        return cmd_runs(a)
    except BuildError as e:
        print(f"replay: the build failed: {e}")
        return 2


if __name__ == "__main__":
    sys.exit(main())
