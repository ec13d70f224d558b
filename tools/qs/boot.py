"""One boot: build a configuration, boot it once under QEMU, keep the log,
and say how it ended.

  boot_image()  boot an image that exists, non-interactively
  boot()        build build/<name> (once per process), boot it, write the
                result file; identical boots may be shared (cache=True)
  boot_pair()   two guests joined by a cable (unix datagram sockets)

QEMU's exit status tells the outcome (qs.qemu); a run that does not end
within its timeout is killed and reported as a timeout. With stop= (a
predicate on console lines, e.g. StopOn) a run is ended a moment after
its first fatal line instead (status "stopped", the line in stop_line):
a stalled kernel need not wait out its timeout. The console log
goes to build/<name>/logs/<label>-<time>.log, benchmarks and boot timing
to build/<name>/results/<label>.json.
"""
import datetime
import json
import os
import re
import shutil
import signal
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from qs import ktap
from qs import REPO
from qs import replay
from qs import console as qconsole
from qs.build import build, facts
from qs.kvm import Accel, decide
from qs.log import Console, parse_console
from qs.judge import console_problems, kind_expected, unexpected_lines
from qs.net import Nic
from qs.qemu import STATUS_BY_CODE, qemu_command


@dataclass
class BootResult:
    cmd: list
    boot: str
    cpus: int
    cmdline: str
    accel: str
    exit_code: int               # None after a timeout
    status: str                  # pass fail panic poweroff timeout crash
    elapsed: float
    log_path: str
    log: str
    console: Console
    online_host_s: float = None  # QEMU start -> "smp: all N CPUs online" seen on the host
    stderr: str = ""
    built: dict = None           # qs.build.facts() of what was booted, when known
    cpu: str = ""                # QEMU's -cpu
    accel_why: str = ""          # why this accelerator (qs.kvm.decide)
    stop_line: str = ""          # the console line that ended the run early (stop=)

    @property
    def timed_out(self):
        return self.status == "timeout"

    def banner_problems(self, required=True, cpus=None):
        """The boot banner must describe what was asked for: the CPUs QEMU
        has (or cpus, where the kernel is meant to find fewer), and the
        variant, preemption model and HZ that were built."""
        b = self.console.banner
        if b is None:
            return ["no boot banner ('config: HZ=...')"] if required else []
        why = []
        cpus = self.cpus if cpus is None else cpus
        if b["cpus"] != cpus:
            why.append(f"the banner says CPUs={b['cpus']}, expected {cpus} (QEMU has {self.cpus})")
        want = self.built or {}
        for key, shown in (("variant", "rcu"), ("preemption", "preemption"), ("hz", "hz")):
            if want.get(key) is not None and b[shown] != want[key]:
                why.append(f"the banner says {shown}={b[shown]}, the build is {key} {want[key]}")
        return why

    def verdict(self, expect="pass"):
        """(ok, reasons): did the run end as expected? expect is pass,
        poweroff, fail or panic. (Whether the banner matches what was asked
        for is banner_problems(), which the scenarios and `qrun.py boot` add.)"""
        why = []
        k = self.console.ktap
        if expect == "poweroff":
            if self.status not in ("poweroff", "pass"):
                why.append(f"expected a power-off, the run ended as {self.describe_status()}")
        elif self.status != expect:
            why.append(f"expected {expect}, the run ended as {self.describe_status()}")
        if expect == "pass" and k.version is not None:
            why += k.problems()
        if self.status == "panic" and expect != "panic" and self.console.panic:
            p = self.console.panic
            why.append(f"panic on CPU {p.cpu}: {p.reason}; trace: {' <- '.join(p.trace[:8])}")
        return (not why), why

    def console_problems(self, expect="pass", expected=()):
        """The console judged whole (qs.judge): a reason for each WARNING,
        BUG, Call Trace, panic or stall line that neither the patterns in
        expected nor the kind of run (expect) allow."""
        return console_problems(self.log, list(expected) + kind_expected(expect))

    def describe_status(self):
        if self.status == "timeout":
            return f"timeout (killed after {self.elapsed:.0f}s)"
        if self.status == "stopped":
            return f"stopped after {self.elapsed:.0f}s, at its first fatal console line"
        if self.status == "crash":
            return f"crash (QEMU exit status {self.exit_code})"
        return f"{self.status} (exit {self.exit_code})"

    def tail(self, n=40):
        return "\n".join(ktap.clean(self.log).rstrip().split("\n")[-n:])


def _steps(feed, steps):
    """Typing steps as [(regex, text)]. feed=(trigger, text) is the older
    form: text once a line contains trigger."""
    out = list(steps or ())
    if feed:
        out.insert(0, (re.escape(feed[0]), feed[1]))
    return out


@dataclass(frozen=True)
class StopOn:
    """stop= for boot(): a console line is fatal when qs.judge calls it an
    unexpected WARNING, BUG, Call Trace, panic or stall line, the patterns
    in expected (a case's expect_console and its kind's) allowing theirs.
    The run goes on for grace seconds after it (the backtrace that follows
    a stall warning), unless QEMU ends first (a panic ends it itself).
    Frozen: equal stops make equal boot() cache keys."""
    expected: tuple = ()
    grace: float = 2.0

    def __call__(self, line):
        return bool(unexpected_lines(line, self.expected))


def _stopper(stop, watch, holder):
    """A watch that also ends the run (SIGKILL, after stop.grace seconds)
    at the first line stop() calls fatal; holder["line"] keeps that line."""
    def on_line(line):
        if watch:
            watch(line)
        if "line" in holder or not stop(line):
            return
        holder["line"] = line.rstrip("\n")

        def kill():
            # The child's whole process group (pexpect starts it in a session
            # of its own): a QEMU started through a shell, or the tests'
            # `sh -c` stand-in for one, leaves a process that would hold
            # the console open until it ended by itself.
            try:
                pid = holder["con"].child.pid
                if os.getpgid(pid) == pid:
                    os.killpg(pid, signal.SIGKILL)
                else:
                    os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, KeyError):
                pass
        holder["timer"] = threading.Timer(getattr(stop, "grace", 2.0), kill)
        holder["timer"].daemon = True
        holder["timer"].start()
    return on_line


def boot_image(image, boot="kernel", cpus=4, cmdline="", accel="tcg", timeout=60,
               log_path=None, echo=False, feed=None, nics=None, extra=(), watch=None,
               steps=None, shell=None, cpu=None, stop=None):
    """Boot once, non-interactively; the console under pexpect (qs.console).
    steps=[(regex, text)]: type each text once the guest has printed its
    regex; shell=[command, ...]: then type each command at the shell's
    prompt. watch(line): called with each console line as it arrives (a
    test talking to the guest). stop(line): true for a line after which
    the run is not worth waiting out (StopOn)."""
    if replay.enabled():
        accel = "tcg"
        if stop:
            # Its kill lands a host-timed while after the fatal line, so the
            # console's tail would differ from run to run: the run ends by
            # itself (a panic, the test's end) or at its timeout instead.
            replay.note("no early stop at a fatal line (it would cut the console on host time)")
            stop = None
        if feed or steps or shell:
            replay.note(replay.TYPING_NOTE)
    cmd = qemu_command(image, boot=boot, cpus=cpus, cmdline=cmdline, accel=accel, serial="stdio",
                       nics=nics, extra=extra, cpu=cpu)
    cpu = cmd[cmd.index("-cpu") + 1]
    log_path = Path(log_path) if log_path else None
    if log_path:
        log_path.parent.mkdir(parents=True, exist_ok=True)
        err_path = log_path.with_suffix(".stderr")
    else:
        fd, err_path = tempfile.mkstemp(prefix="qs-qemu-", suffix=".stderr")
        os.close(fd)
        err_path = Path(err_path)
    held = {}
    con = qconsole.spawn(cmd, timeout, log_path=log_path, stderr_path=err_path, echo=echo,
                         watch=_stopper(stop, watch, held) if stop else watch)
    held["con"] = con
    for regex, text in _steps(feed, steps):
        if not con.type_after(regex, text):
            break
    else:
        if shell:
            con.shell(shell)
    code = con.wait()
    if "timer" in held:
        held["timer"].cancel()
    elapsed = con.ended - con.sink.start
    log = con.sink.text()
    stderr = err_path.read_text(errors="replace") if err_path.exists() else ""
    if not log_path or not stderr:
        err_path.unlink(missing_ok=True)
    status = "timeout" if code is None else STATUS_BY_CODE.get(code, "crash")
    if "line" in held and status in ("timeout", "crash") and code in (None, 128 + signal.SIGKILL):
        status = "stopped"      # our kill, not QEMU's own end
    return BootResult(cmd=cmd, boot=boot, cpus=cpus, cmdline=cmdline, accel=accel,
                      exit_code=code, status=status, elapsed=elapsed,
                      log_path=str(log_path) if log_path else "", log=log,
                      console=parse_console(log), online_host_s=con.sink.online_at,
                      stderr=stderr, cpu=cpu, stop_line=held.get("line", ""))


def _slug(s):
    s = re.sub(r"[^A-Za-z0-9_.-]+", "_", s).strip("_")
    return s[:60] or "boot"


_boot_cache = {}


def boot(name="test-defconfig", defconfig="defconfig", options=(), boot="kernel", cpus=4,
         cmdline="", timeout=60, kvm="0", label=None, cache=False, echo=False, feed=None,
         nics=None, extra=(), watch=None, steps=None, shell=None, stop=None):
    """Build build/<name> (once per process) and boot it. With cache=True an
    identical earlier boot in this process is reused (pytest shares boots).
    nics: network cards (Nic); each one's traffic goes to a pcap beside the log.
    stop: end the run early at a fatal console line (boot_image, StopOn)."""
    key = (name, defconfig, tuple(options), boot, cpus, cmdline, str(kvm), replay.enabled(),
           replay.shift() if replay.enabled() else None, feed,
           repr(nics), tuple(extra), repr(steps), repr(shell), stop)
    if cache and key in _boot_cache:
        return _boot_cache[key]
    elf = build(name, defconfig, options)
    image = build(name, defconfig, options, iso_args=cmdline) if boot == "iso" else elf
    # The deterministic mode is TCG whatever KVM= says: no probe (a boot).
    acc = (Accel("tcg", replay.CPU, f"TCG, deterministic (-icount shift={replay.shift()})")
           if replay.enabled() else decide(kvm, elf))
    label = label or f"{boot}-smp{cpus}-{_slug(cmdline)}"
    now = datetime.datetime.now()
    stamp = now.strftime("%Y%m%d-%H%M%S-") + f"{now.microsecond // 1000:03d}"
    log_path = REPO / "build" / name / "logs" / f"{label}-{stamp}.log"
    for i, n in enumerate(nics or ()):
        if n.dump and not n.pcap:
            n.pcap = str(log_path.with_name(f"{label}-{stamp}.net{i}.pcap"))
    r = boot_image(image, boot=boot, cpus=cpus, cmdline=cmdline, accel=acc.accel,
                   timeout=timeout, log_path=log_path, echo=echo, feed=feed, nics=nics,
                   extra=extra, watch=watch, steps=steps, shell=shell, cpu=acc.cpu, stop=stop)
    r.accel_why = acc.why
    r.built = facts(elf)
    r.name = name
    r.label = label
    save_results(r, name, label, stamp)
    if cache:
        _boot_cache[key] = r
    return r


def boot_pair(name="test-defconfig", defconfig="defconfig", options=(), boot_kind="kernel", cpus=1,
              cmdlines=("", ""), timeout=60, kvm="0", label="pair", echo=False):
    """Two guests whose eth0s are joined by a pair of unix datagram sockets
    (a cable), booted at the same time. Returns their BootResults (a, b);
    guest a has MAC 52:54:00:00:00:01, guest b ...:02."""
    build(name, defconfig, options)           # once, before two threads want it
    tmp = tempfile.mkdtemp(prefix="qs-pair-")  # short paths: sun_path is 108 bytes
    socks = [os.path.join(tmp, f"{ab}.sock") for ab in "ab"]
    results = [None, None]

    def run(i):
        nic = Nic("dgram", local=socks[i], remote=socks[1 - i], mac=f"52:54:00:00:00:0{i + 1}")
        results[i] = boot(name, defconfig, options, boot_kind, cpus, cmdlines[i], timeout, kvm,
                          label=f"{label}-{'ab'[i]}", nics=[nic], echo=echo and i == 0)

    other = threading.Thread(target=run, args=(1,), daemon=True)
    other.start()
    try:
        run(0)
    finally:
        other.join(timeout + 30)
        shutil.rmtree(tmp, ignore_errors=True)
    return results[0], results[1]


def save_results(r, name, label, stamp):
    """Benchmarks and boot timing go to build/<name>/results/<label>.json."""
    rdir = REPO / "build" / name / "results"
    rdir.mkdir(parents=True, exist_ok=True)
    c = r.console
    doc = dict(config=name, label=label, when=stamp, boot=r.boot, cpus=r.cpus,
               cmdline=r.cmdline, accel=r.accel, cpu=r.cpu, accel_why=r.accel_why,
               status=r.status, banner=c.banner,
               boot_timing=dict(host_s_to_all_online=r.online_host_s,
                                kernel_ms_to_all_online=c.online_ms, total_s=r.elapsed),
               bench=c.bench, log=r.log_path)
    (rdir / f"{label}.json").write_text(json.dumps(doc, indent=1) + "\n")


def accel_desc(r):
    """The accelerator of one boot for a report: `KVM (-cpu ...)`, `TCG`, or
    `TCG; KVM not used (why)` where KVM was asked for and not used."""
    if r.accel == "kvm":
        return f"KVM (-cpu {r.cpu})" if r.cpu else "KVM"
    why = r.accel_why or ""
    return "TCG" + (f"; {why[len('TCG: '):]}" if why.startswith("TCG: KVM not used") else "")


def _shift_of(cmd):
    m = re.search(r"shift=(\d+)", cmd[cmd.index("-icount") + 1])
    return m.group(1) if m else "?"


def summary_line(r, name=None, expect="pass"):
    ok, why = r.verdict(expect)
    c = r.console
    parts = [("PASS" if ok else "FAIL").ljust(5), (name or getattr(r, "label", "boot")).ljust(22),
             f"{r.boot:6} smp={r.cpus:<2} {r.accel}" + (f"(-cpu {r.cpu})" if r.accel == "kvm" else "")
             + (f"(det,shift={_shift_of(r.cmd)})" if "-icount" in r.cmd else ""),
             f"{r.status:8}", f"{r.elapsed:5.1f}s"]
    if c.online is not None:
        parts.append(f"online={c.online} ({c.online_ms:.1f} ms"
                     + (f", host {r.online_host_s:.2f}s)" if r.online_host_s else ")"))
    if c.ticks:
        parts.append(f"ticks={min(c.ticks.values())}..{max(c.ticks.values())}")
    if c.ktap.version is not None:
        parts.append(c.ktap.line())
    if c.bench:
        parts.append(f"bench={len(c.bench)}")
    if c.panic:
        parts.append(f"panic: {c.panic.reason[:60]}")
    if not ok and why:
        parts.append("| " + why[0][:160])
    parts.append(f"log={os.path.relpath(r.log_path, REPO) if r.log_path else '-'}")
    return "  ".join(parts)
