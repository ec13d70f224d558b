#!/usr/bin/env python3
"""Build, boot and judge Quiescent under QEMU: one module, used by `make run`,
`make gdb`, `make test` (the pytest suites import it) and by hand.

  qrun.py run       interactive: the serial console on this terminal (Ctrl-A X quits)
  qrun.py gdb       QEMU stopped at the first instruction, gdb attached (--batch for scripts)
  qrun.py boot      build a configuration into build/<name>, boot it once, keep the log,
                    parse KTAP and BENCH lines, print one summary line; exit 0 on pass
  qrun.py scenario  run scenario files (tests/scenarios/*.scn), one summary line each
  qrun.py kvm-probe probe whether this host's KVM runs the kernel (cached in build/.kvm-probe)

QEMU's exit status tells the outcome (isa-debug-exit writes v, QEMU exits (v<<1)|1):
  33 pass, 35 fail, 37 kernel panic; 0 after an ACPI power-off; anything else a crash.
A run that does not end by itself within its timeout is killed and reported as a timeout.

The QEMU command line is built in one place: qemu_command() below.
"""
import argparse
import datetime
import fnmatch
import glob
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field, asdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
import ktap  # noqa: E402
from ktap import Report as KtapReport  # noqa: E402

EXIT_PASS, EXIT_FAIL, EXIT_PANIC = 33, 35, 37
STATUS_BY_CODE = {EXIT_PASS: "pass", EXIT_FAIL: "fail", EXIT_PANIC: "panic", 0: "poweroff"}
KVM_PROBE_FILE = REPO / "build" / ".kvm-probe"
MEMORY = "512M"

# ------------------------------------------------------------------ log parsing
RE_PRINTK = re.compile(r"^\[\s*(\d+\.\d+)\] cpu(\d+): (.*)$")
RE_BANNER = re.compile(r"config: HZ=(\d+) CPUs=(\d+) \(max (\d+)\) preemption=(\S+) rcu=(\S+)")
RE_ONLINE = re.compile(r"smp: all (\d+) CPUs online in ([\d.]+) ms")
RE_TICKS = re.compile(r"ticks:((?: cpu\d+=\d+)+)")
RE_PANIC = re.compile(r"Kernel panic on CPU (\d+): (.*)$")
RE_FRAME = re.compile(r"\[<([0-9a-fA-F]+)>\]\s+(\S+?)\+0x([0-9a-fA-F]+)/0x([0-9a-fA-F]+)")
RE_PANIC_END = re.compile(r"---\[ end Kernel panic")
RE_BENCH = re.compile(r"^BENCH (\{.*\})\s*$")
RE_UNKNOWN_OPT = re.compile(r"cmdline: unknown option '([^']*)'")


def message(line):
    """The text of a console line without the printk prefix."""
    m = RE_PRINTK.match(line)
    return m.group(3) if m else line


@dataclass
class Panic:
    cpu: int
    reason: str
    trace: list                  # function names, innermost first
    complete: bool               # the "---[ end Kernel panic" line was seen


@dataclass
class Console:
    """What the runner understood of a console log."""
    banner: dict = None
    online: int = None           # from "smp: all N CPUs online in X ms"
    online_ms: float = None
    ticks: dict = None           # cpu -> tick count, from the last "ticks:" line
    panic: Panic = None
    bench: list = field(default_factory=list)
    unknown_options: list = field(default_factory=list)
    ktap: KtapReport = None


def parse_console(text):
    text = ktap.clean(text)
    con = Console()
    lines = text.split("\n")
    for i, line in enumerate(lines):
        msg = message(line)
        m = RE_BANNER.search(msg)
        if m:
            con.banner = dict(hz=int(m.group(1)), cpus=int(m.group(2)), max_cpus=int(m.group(3)),
                              preemption=m.group(4), rcu=m.group(5))
        m = RE_ONLINE.search(msg)
        if m:
            con.online, con.online_ms = int(m.group(1)), float(m.group(2))
        m = RE_TICKS.search(msg)
        if m:
            con.ticks = {int(c): int(n) for c, n in re.findall(r"cpu(\d+)=(\d+)", m.group(1))}
        m = RE_UNKNOWN_OPT.search(msg)
        if m:
            con.unknown_options.append(m.group(1))
        m = RE_BENCH.match(line)
        if m:
            try:
                con.bench.append(json.loads(m.group(1)))
            except ValueError:
                con.bench.append({"unparsed": m.group(1)})
        m = RE_PANIC.search(msg)
        if m and con.panic is None:
            trace, complete = [], False
            for later in lines[i + 1:]:
                f = RE_FRAME.search(later)
                if f:
                    trace.append(f.group(2))
                if RE_PANIC_END.search(later):
                    complete = True
                    break
            con.panic = Panic(int(m.group(1)), m.group(2).strip(), trace, complete)
    con.ktap = ktap.parse(text)
    return con


# ------------------------------------------------------------------ building
def run_make(args, build_dir=None, quiet=True):
    cmd = ["make", "--no-print-directory"] + ([f"O={build_dir}"] if build_dir else []) + list(args)
    p = subprocess.run(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if not quiet:
        sys.stdout.write(p.stdout)
    return p


class BuildError(Exception):
    pass


_built = {}                      # (build_dir, what, args) -> path, once per process


def configure(name, defconfig="defconfig", options=()):
    """Write build/<name>/.config from configs/<defconfig> plus CONFIG_X=y lines."""
    bdir = REPO / "build" / name
    bdir.mkdir(parents=True, exist_ok=True)
    src = REPO / "configs" / defconfig
    if not src.exists():
        have = sorted(p.name for p in (REPO / "configs").glob("*defconfig"))
        raise BuildError(f"no configuration configs/{defconfig}; have: {', '.join(have)}")
    merged = src.read_text()
    if options:
        merged += "\n# added by the scenario\n" + "\n".join(options) + "\n"
    frag = bdir / "scenario.defconfig"
    if not frag.exists() or frag.read_text() != merged:
        frag.write_text(merged)
    env = dict(os.environ, KCONFIG_CONFIG=str(bdir / ".config"))
    p = subprocess.run([sys.executable, "tools/kconfig.py", "defconfig", str(frag)], cwd=REPO, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode:
        raise BuildError(f"configuration {defconfig} {' '.join(options)} failed:\n{p.stdout}")
    return bdir


def build(name, defconfig="defconfig", options=(), iso_args=None, jobs=None):
    """Configure and build build/<name>; returns the ELF path (or the ISO's,
    when iso_args is not None: the ISO's grub.cfg carries iso_args)."""
    key = (name, defconfig, tuple(options), iso_args)
    if key in _built:
        return _built[key]
    bdir = configure(name, defconfig, options)
    rel = bdir.relative_to(REPO)
    jobs = jobs or os.cpu_count() or 2
    target = [f"{rel}/quiescent.elf", f"{rel}/initrd.cpio"]
    extra = []
    if iso_args is not None:
        target = [f"{rel}/quiescent.iso"]
        extra = [f"ARGS={iso_args}"]
    p = run_make([f"-j{jobs}"] + extra + target, build_dir=rel)
    if p.returncode:
        raise BuildError(f"build of {rel} failed:\n{p.stdout[-6000:]}")
    out = REPO / target[0]
    _built[key] = out
    return out


# ------------------------------------------------------------------ QEMU
def qemu_command(image, boot="kernel", cpus=4, cmdline="", accel="tcg", serial="stdio",
                 gdb_port=None, stopped=False, extra=(), nics=None):
    """The one QEMU command line of the project. image is the ELF (boot=kernel)
    or the ISO (boot=iso; then the command line is in its grub.cfg). nics:
    the guest's network cards (nic_args); none by default."""
    cmd = ["qemu-system-x86_64", "-M", "q35", "-m", MEMORY, "-smp", str(cpus),
           "-display", "none", "-no-reboot",
           "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04",
           "-serial", serial]
    if serial != "mon:stdio":
        cmd += ["-monitor", "none"]
    if accel == "kvm":
        cmd += ["-accel", "kvm", "-cpu", "host"]
    else:
        cmd += ["-accel", "tcg,thread=multi", "-cpu", "max"]
    if boot == "iso":
        cmd += ["-cdrom", str(image)]
    else:
        cmd += ["-kernel", str(image)]
        # The user programs, as a Multiboot module (the ISO carries its own).
        initrd = Path(image).with_name("initrd.cpio")
        if initrd.exists():
            cmd += ["-initrd", str(initrd)]
        if cmdline:
            cmd += ["-append", cmdline]
    if gdb_port:
        cmd += ["-gdb", f"tcp:127.0.0.1:{gdb_port}"]
    if stopped:
        cmd += ["-S"]
    return cmd + nic_args(nics) + list(extra)


# ------------------------------------------------------------------ networking
@dataclass
class Nic:
    """One e1000 in a guest and the QEMU backend behind it. Traffic never
    leaves this machine (DESIGN.md):
      user   QEMU's user networking (slirp) with restrict=on: the guest is
             10.0.2.15, the gateway 10.0.2.2; hostfwd=[(host_port,
             guest_port)] forwards UDP from 127.0.0.1 on the host;
      dgram  a unix datagram socket at local, sending to the one at
             remote: another guest's, or a test's (raw Ethernet frames,
             one per datagram; QEMU 7.2 stops reading for good after a
             zero-length datagram, so never send one).
    pcap: a file for -object filter-dump (every frame, both directions,
    the first PCAP_SNAPLEN bytes of each); boot() puts one beside the log
    unless dump is False (a flood's millions of frames tell nothing)."""
    kind: str = "user"
    hostfwd: list = field(default_factory=list)
    local: str = None
    remote: str = None
    mac: str = None
    pcap: str = None
    dump: bool = True


PCAP_SNAPLEN = 256


def nic_args(nics):
    """QEMU arguments for the guest's NICs; -nic none without any, so that
    no default card appears on an unrestricted network."""
    if not nics:
        return ["-nic", "none"]
    args = []
    for i, n in enumerate(nics):
        nid = f"net{i}"
        if n.kind == "user":
            spec = f"user,id={nid},restrict=on" + "".join(
                f",hostfwd=udp:127.0.0.1:{h}-:{g}" for h, g in n.hostfwd)
        elif n.kind == "dgram":
            spec = (f"dgram,id={nid},local.type=unix,local.path={n.local},"
                    f"remote.type=unix,remote.path={n.remote}")
        else:
            raise ValueError(f"unknown NIC kind {n.kind!r}")
        args += ["-netdev", spec, "-device", f"e1000,netdev={nid}" + (f",mac={n.mac}" if n.mac else "")]
        if n.pcap:
            args += ["-object", f"filter-dump,id=dump{i},netdev={nid},file={n.pcap},"
                                f"maxlen={PCAP_SNAPLEN}"]
    return args


def free_udp_port():
    """A UDP port on 127.0.0.1 nobody holds now (for a hostfwd)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def kvm_usable():
    return os.access("/dev/kvm", os.R_OK | os.W_OK)


def _probe_key():
    try:
        ver = subprocess.run(["qemu-system-x86_64", "--version"], stdout=subprocess.PIPE,
                             text=True).stdout.split("\n")[0]
    except OSError:
        ver = "?"
    return f"{ver} | host {os.uname().release}"


def kvm_probe(elf, force=False, timeout=20):
    """Boot `poweroff` under KVM once; the verdict is cached in build/.kvm-probe
    (delete it to probe again). Returns (usable, reason)."""
    key = _probe_key()
    if not kvm_usable():
        return False, "no usable /dev/kvm"
    if not force and KVM_PROBE_FILE.exists():
        try:
            d = json.loads(KVM_PROBE_FILE.read_text())
            if d.get("key") == key:
                return d["ok"], d["reason"]
        except ValueError:
            pass
    r = boot_image(elf, boot="kernel", cpus=2, cmdline="poweroff", accel="kvm",
                   timeout=timeout, log_path=KVM_PROBE_FILE.parent / "kvm-probe.log")
    if r.console.banner and r.status in ("poweroff", "pass"):
        # A nested KVM can run the kernel yet be slower than TCG (it emulates
        # real mode and some instructions): then TCG is the better choice.
        t = boot_image(elf, boot="kernel", cpus=2, cmdline="poweroff", accel="tcg",
                       timeout=timeout, log_path=KVM_PROBE_FILE.parent / "kvm-probe-tcg.log")
        if t.status in ("poweroff", "pass") and t.elapsed * 1.5 < r.elapsed:
            ok, reason = False, (f"KVM runs the kernel but is slower than TCG here "
                                 f"({r.elapsed:.1f}s vs {t.elapsed:.1f}s to power-off); KVM=1 forces it")
        else:
            ok, reason = True, f"booted to power-off in {r.elapsed:.1f}s (TCG {t.elapsed:.1f}s)"
    elif r.console.banner:
        ok, reason = False, f"banner printed but the run ended as {r.status}"
    else:
        ok, reason = False, f"no boot banner under KVM ({r.status} after {r.elapsed:.1f}s)"
    KVM_PROBE_FILE.parent.mkdir(parents=True, exist_ok=True)
    KVM_PROBE_FILE.write_text(json.dumps(dict(key=key, ok=ok, reason=reason,
                                              when=datetime.datetime.now().isoformat())) + "\n")
    return ok, reason


_accel_notice = set()
accel_notes = []                 # what choose_accel decided, for summaries


def choose_accel(kvm, elf):
    """kvm is '0', '1' or 'auto'. Returns 'kvm' or 'tcg'."""
    kvm = str(kvm).lower()
    if kvm in ("0", "no", "tcg", "off"):
        return "tcg"
    if kvm in ("1", "yes", "on", "kvm"):
        if not kvm_usable():
            raise SystemExit("qrun: KVM=1 but /dev/kvm is not usable by this user")
        return "kvm"
    ok, reason = kvm_probe(elf)
    if not ok:
        if reason not in _accel_notice:
            _accel_notice.add(reason)
            note = f"qrun: KVM not used ({reason}); running under TCG"
            accel_notes.append(note)
            print(note, file=sys.stderr)
        return "tcg"
    note = f"qrun: using KVM ({reason})"
    if note not in accel_notes:
        accel_notes.append(note)
    return "kvm"


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

    @property
    def timed_out(self):
        return self.status == "timeout"

    def verdict(self, expect="pass"):
        """(ok, reasons): did the run end as expected? expect is pass,
        poweroff, fail or panic."""
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

    def describe_status(self):
        if self.status == "timeout":
            return f"timeout (killed after {self.elapsed:.0f}s)"
        if self.status == "crash":
            return f"crash (QEMU exit status {self.exit_code})"
        return f"{self.status} (exit {self.exit_code})"

    def tail(self, n=40):
        return "\n".join(ktap.clean(self.log).rstrip().split("\n")[-n:])


def boot_image(image, boot="kernel", cpus=4, cmdline="", accel="tcg", timeout=60,
               log_path=None, echo=False, feed=None, nics=None, extra=(), watch=None):
    """Boot once, non-interactively. The serial console is read through a
    pipe so that every line's host arrival time is known. feed=(trigger,
    text): when a console line contains trigger, type text on the serial
    input (the kernel's receive interrupt reads it). watch(line): called
    with each console line as it arrives (a test talking to the guest)."""
    cmd = qemu_command(image, boot=boot, cpus=cpus, cmdline=cmdline, accel=accel, serial="stdio",
                       nics=nics, extra=extra)
    log_path = Path(log_path) if log_path else None
    if log_path:
        log_path.parent.mkdir(parents=True, exist_ok=True)
    chunks, online_at = [], [None]
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE if feed else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    errbuf = []
    fed = [False]

    def pump_out():
        logf = open(log_path, "wb") if log_path else None
        for raw in iter(proc.stdout.readline, b""):
            chunks.append(raw)
            if logf:
                logf.write(raw)
                logf.flush()
            if echo:
                sys.stdout.write(raw.decode(errors="replace"))
            if watch:
                watch(raw.decode(errors="replace"))
            if online_at[0] is None and b"CPUs online in" in raw:
                online_at[0] = time.monotonic() - start
            if feed and not fed[0] and feed[0].encode() in raw:
                fed[0] = True
                try:
                    proc.stdin.write(feed[1].encode() + b"\r")
                    proc.stdin.flush()
                except OSError:
                    pass
        if logf:
            logf.close()

    def pump_err():
        errbuf.append(proc.stderr.read())

    t_out = threading.Thread(target=pump_out, daemon=True)
    t_err = threading.Thread(target=pump_err, daemon=True)
    t_out.start()
    t_err.start()
    try:
        code = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        code = None
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    elapsed = time.monotonic() - start
    t_out.join(5)
    t_err.join(5)
    log = b"".join(chunks).decode(errors="replace")
    status = "timeout" if code is None else STATUS_BY_CODE.get(code, "crash")
    return BootResult(cmd=cmd, boot=boot, cpus=cpus, cmdline=cmdline, accel=accel,
                      exit_code=code, status=status, elapsed=elapsed,
                      log_path=str(log_path) if log_path else "", log=log,
                      console=parse_console(log), online_host_s=online_at[0],
                      stderr=(errbuf[0] if errbuf else b"").decode(errors="replace"))


def _slug(s):
    s = re.sub(r"[^A-Za-z0-9_.-]+", "_", s).strip("_")
    return s[:60] or "boot"


_boot_cache = {}


def boot(name="test-defconfig", defconfig="defconfig", options=(), boot="kernel", cpus=4,
         cmdline="", timeout=60, kvm="0", label=None, cache=False, echo=False, feed=None,
         nics=None, extra=(), watch=None):
    """Build build/<name> (once per process) and boot it. With cache=True an
    identical earlier boot in this process is reused (pytest shares boots).
    nics: network cards (Nic); each one's traffic goes to a pcap beside the log."""
    key = (name, defconfig, tuple(options), boot, cpus, cmdline, str(kvm), feed,
           repr(nics), tuple(extra))
    if cache and key in _boot_cache:
        return _boot_cache[key]
    elf = build(name, defconfig, options)
    image = build(name, defconfig, options, iso_args=cmdline) if boot == "iso" else elf
    accel = choose_accel(kvm, elf)
    label = label or f"{boot}-smp{cpus}-{_slug(cmdline)}"
    now = datetime.datetime.now()
    stamp = now.strftime("%Y%m%d-%H%M%S-") + f"{now.microsecond // 1000:03d}"
    log_path = REPO / "build" / name / "logs" / f"{label}-{stamp}.log"
    for i, n in enumerate(nics or ()):
        if n.dump and not n.pcap:
            n.pcap = str(log_path.with_name(f"{label}-{stamp}.net{i}.pcap"))
    r = boot_image(image, boot=boot, cpus=cpus, cmdline=cmdline, accel=accel,
                   timeout=timeout, log_path=log_path, echo=echo, feed=feed, nics=nics,
                   extra=extra, watch=watch)
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
               cmdline=r.cmdline, accel=r.accel, status=r.status, banner=c.banner,
               boot_timing=dict(host_s_to_all_online=r.online_host_s,
                                kernel_ms_to_all_online=c.online_ms, total_s=r.elapsed),
               bench=c.bench, log=r.log_path)
    (rdir / f"{label}.json").write_text(json.dumps(doc, indent=1) + "\n")


def summary_line(r, name=None, expect="pass"):
    ok, why = r.verdict(expect)
    c = r.console
    parts = [("PASS" if ok else "FAIL").ljust(5), (name or getattr(r, "label", "boot")).ljust(22),
             f"{r.boot:6} smp={r.cpus:<2} {r.accel}", f"{r.status:8}", f"{r.elapsed:5.1f}s"]
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


# ------------------------------------------------------------------ scenarios
@dataclass
class Scenario:
    """A file in tests/scenarios/: 'key = value' lines, '#' comments.

    config   = defconfig          configs/<config>
    option   = CONFIG_HZ_1000=y   (repeatable) added to the configuration
    cpus     = 4
    boot     = kernel | iso
    cmdline  = ktest=smp_*
    timeout  = 60                 seconds
    expect   = pass | fail | panic | poweroff
    online   = yes                every CPU online and ticking
    groups   = smp lock kmalloc   each KTAP prefix has at least one test, all passed
    log      = <regex>            (repeatable) must appear in the console log
    trace    = <function>         the panic's Call Trace must contain it
    net      = none | user | pair one NIC on QEMU user networking (restrict=on), or
                                  two guests joined by a cable (Nic, boot_pair)
    peer_cmdline = ...            net = pair: the second guest's command line
    peer_log = <regex>            (repeatable) must appear in the second guest's log
    """
    name: str
    path: str = ""
    config: str = "defconfig"
    options: list = field(default_factory=list)
    cpus: int = 4
    boot: str = "kernel"
    cmdline: str = ""
    timeout: int = 60
    expect: str = "pass"
    online: bool = False
    groups: list = field(default_factory=list)
    log: list = field(default_factory=list)
    trace: list = field(default_factory=list)
    description: str = ""
    input: tuple = None             # (trigger, text): type text when trigger appears
    net: str = "none"
    peer_cmdline: str = ""
    peer_log: list = field(default_factory=list)

    @property
    def build_name(self):
        """One build per configuration: scenarios with the same defconfig and
        options share it (options are spelled into the name)."""
        if not self.options:
            return f"test-{self.config}"
        opts = "+".join(o.replace("CONFIG_", "").replace("=", "-").replace(" ", "")
                        for o in sorted(self.options))
        return f"test-{self.config}+{opts}"


def load_scenario(path):
    path = Path(path)
    sc = Scenario(name=path.stem, path=str(path))
    for n, raw in enumerate(path.read_text().split("\n"), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            if not sc.description:
                sc.description = line.lstrip("# ")
            continue
        if "=" not in line:
            raise ValueError(f"{path}:{n}: expected 'key = value', got {raw!r}")
        k, v = (s.strip() for s in line.split("=", 1))
        if k == "option":
            sc.options.append(v)
        elif k in ("log", "trace", "peer_log"):
            getattr(sc, k).append(v)
        elif k == "groups":
            sc.groups = v.split()
        elif k in ("cpus", "timeout"):
            setattr(sc, k, int(v))
        elif k == "online":
            sc.online = v.lower() in ("yes", "y", "1", "true")
        elif k in ("config", "boot", "cmdline", "expect", "net", "peer_cmdline"):
            setattr(sc, k, v)
        elif k == "input":
            if "=>" not in v:
                raise ValueError(f"{path}:{n}: input is 'console trigger => text to type'")
            trig, text = (s.strip() for s in v.split("=>", 1))
            # Escapes such as \x14 (Ctrl-T) stand for control characters.
            sc.input = (trig, text.encode().decode("unicode_escape"))
        else:
            raise ValueError(f"{path}:{n}: unknown key {k!r}")
    if sc.boot not in ("kernel", "iso"):
        raise ValueError(f"{path}: boot must be kernel or iso")
    if sc.expect not in ("pass", "fail", "panic", "poweroff"):
        raise ValueError(f"{path}: expect must be pass, fail, panic or poweroff")
    if sc.net not in ("none", "user", "pair"):
        raise ValueError(f"{path}: net must be none, user or pair")
    return sc


def scenario_files(pattern="*"):
    return sorted(p for p in (REPO / "tests" / "scenarios").glob("*.scn")
                  if fnmatch.fnmatch(p.stem, pattern))


def check_online(r):
    """Every CPU came online and took ticks on its own LAPIC timer."""
    why, c = [], r.console
    if c.banner is None:
        why.append("no boot banner ('config: HZ=...')")
    if c.online is None:
        why.append("no 'smp: all N CPUs online' line")
    elif c.online != r.cpus:
        why.append(f"{c.online} CPUs online, QEMU has {r.cpus}")
    if c.ticks is None:
        why.append("no 'ticks:' line")
    else:
        if sorted(c.ticks) != list(range(r.cpus)):
            why.append(f"ticks reported for CPUs {sorted(c.ticks)}, expected 0..{r.cpus - 1}")
        idle = [cpu for cpu, n in c.ticks.items() if n <= 0]
        if idle:
            why.append(f"CPUs without a tick: {idle}")
    return why


def check_groups(r, groups):
    why, k = [], r.console.ktap
    for g in groups:
        res = [t for t in k.results if t.name.startswith(g + "_")]
        if not res:
            why.append(f"no {g}_* test ran")
        for t in res:
            if not t.ok:
                why.append(f"not ok {t.name}: " + "; ".join(t.diagnostics[-4:]))
    return why


def judge_scenario(sc, r):
    ok, why = r.verdict(sc.expect)
    why = list(why)
    if sc.online:
        why += check_online(r)
    why += check_groups(r, sc.groups)
    text = ktap.clean(r.log)
    for rx in sc.log:
        if not re.search(rx, text, re.M):
            why.append(f"console log lacks /{rx}/")
    for fn in sc.trace:
        p = r.console.panic
        if p is None:
            why.append("no 'Kernel panic on CPU' in the log")
        elif fn not in p.trace:
            why.append(f"Call Trace lacks {fn} (has {', '.join(p.trace[:10]) or 'nothing'})")
    return why


def run_scenario(sc, kvm="0", cache=True, echo=False):
    if sc.net == "pair":
        return run_pair_scenario(sc, kvm, echo)
    r = boot(name=sc.build_name, defconfig=sc.config, options=sc.options, boot=sc.boot,
             cpus=sc.cpus, cmdline=sc.cmdline, timeout=sc.timeout, kvm=kvm,
             label=sc.name, cache=cache, echo=echo, feed=sc.input,
             nics=[Nic("user")] if sc.net == "user" else None)
    why = judge_scenario(sc, r)
    line = summary_line(r, sc.name, sc.expect)
    if why:                       # the scenario's own checks may fail a good run
        line = "FAIL " + line[5:]
        if "| " not in line:
            line = line.replace("  log=", f"  | {why[0][:160]}  log=")
    return r, why, line


def run_pair_scenario(sc, kvm="0", echo=False):
    """net = pair: both guests must end as expected; log applies to the first
    guest's console, peer_log to the second's."""
    a, b = boot_pair(name=sc.build_name, defconfig=sc.config, options=sc.options,
                     boot_kind=sc.boot, cpus=sc.cpus, cmdlines=(sc.cmdline, sc.peer_cmdline),
                     timeout=sc.timeout, kvm=kvm, label=sc.name, echo=echo)
    why = judge_scenario(sc, a)
    peer = Scenario(name=sc.name + "-b", expect=sc.expect, online=sc.online, groups=sc.groups,
                    log=sc.peer_log)
    why += [f"second guest: {w}" for w in judge_scenario(peer, b)]
    line = summary_line(a, sc.name, sc.expect) + f"  peer={b.status}"
    if why:
        line = "FAIL " + line[5:]
        if "| " not in line:
            line = line.replace("  log=", f"  | {why[0][:160]}  log=")
    return a, why, line


# ------------------------------------------------------------------ gdb
def gdb_port(base=None):
    """1234 + uid % 1000, or the first free port after it."""
    port = base or 1234 + os.getuid() % 1000
    for p in range(port, port + 200):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", p))
                return p
            except OSError:
                continue
    raise SystemExit("qrun: no free TCP port for the gdb stub")


def gdb_command(elf, port, batch_cmds=None):
    cmd = ["gdb", "-q", "-nx",
           "-iex", "set pagination off",
           "-iex", "set confirm off",
           "-ex", f"file {elf}",
           "-ex", f"source {REPO / 'tools' / 'gdb' / 'quiescent.py'}",
           "-ex", f"target remote 127.0.0.1:{port}"]
    if batch_cmds is not None:
        cmd.insert(1, "-batch")
        for c in batch_cmds:
            cmd += ["-ex", c]
    return cmd


def gdb_session(elf, image=None, boot="kernel", cpus=4, cmdline="", batch_cmds=None,
                timeout=120, serial_log=None):
    """Start QEMU stopped (-S) with the gdb stub, attach gdb. With batch_cmds
    run them and return (gdb_output, serial_log_text); else interactive."""
    port = gdb_port()
    serial_log = Path(serial_log or Path(elf).parent / "logs" / "gdb-serial.log")
    serial_log.parent.mkdir(parents=True, exist_ok=True)
    qcmd = qemu_command(image or elf, boot=boot, cpus=cpus, cmdline=cmdline, accel="tcg",
                        serial=f"file:{serial_log}", gdb_port=port, stopped=True)
    q = subprocess.Popen(qcmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, start_new_session=True)
    try:
        for _ in range(100):      # wait for the stub to listen
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if q.poll() is not None:
                raise SystemExit("qrun: QEMU exited at once:\n" + q.stdout.read().decode())
            time.sleep(0.05)
        gcmd = gdb_command(elf, port, batch_cmds)
        if batch_cmds is None:
            print(f"qrun: QEMU stopped at the first instruction, gdb stub on 127.0.0.1:{port}; "
                  f"serial console in {serial_log}")
            print("qrun: try  hbreak kmain  then  continue  (qs-help lists Quiescent's commands)")
            signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C belongs to gdb
            subprocess.call(gcmd)
            return None, serial_log.read_text(errors="replace")
        p = subprocess.run(gcmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=timeout)
        return p.stdout, serial_log.read_text(errors="replace")
    finally:
        if q.poll() is None:
            os.killpg(q.pid, signal.SIGKILL)
        q.wait()


# ------------------------------------------------------------------ CLI
def _build_dir_image(build_dir, boot):
    bdir = Path(build_dir)
    if not bdir.is_absolute():
        bdir = REPO / bdir
    elf = bdir / "quiescent.elf"
    img = bdir / "quiescent.iso" if boot == "iso" else elf
    for f in {elf, img}:
        if not f.exists():
            raise SystemExit(f"qrun: {f} does not exist; build it first (make O={build_dir})")
    return elf, img


def cmd_run(a):
    elf, img = _build_dir_image(a.build_dir, a.boot)
    accel = choose_accel(a.kvm, elf)
    cmd = qemu_command(img, boot=a.boot, cpus=a.cpus, cmdline=a.args, accel=accel,
                       serial="mon:stdio", nics=[Nic("user")] if a.net == "user" else None)
    print(f"qrun: {' '.join(shlex.quote(c) for c in cmd)}", file=sys.stderr)
    print("qrun: Ctrl-A X quits QEMU, Ctrl-A C its monitor", file=sys.stderr)
    code = subprocess.call(cmd)
    print(f"qrun: QEMU exited with status {code} ({STATUS_BY_CODE.get(code, 'crash')})",
          file=sys.stderr)
    return 0 if code in (0, EXIT_PASS) else code


def cmd_gdb(a):
    elf, img = _build_dir_image(a.build_dir, a.boot)
    batch = a.ex if a.batch else None
    out, log = gdb_session(elf, img, boot=a.boot, cpus=a.cpus, cmdline=a.args, batch_cmds=batch,
                           timeout=a.timeout)
    if out is not None:
        sys.stdout.write(out)
    return 0


def cmd_boot(a):
    try:
        r = boot(name=a.name, defconfig=a.config, options=a.option, boot=a.boot, cpus=a.cpus,
                 cmdline=a.args, timeout=a.timeout, kvm=a.kvm, echo=a.verbose)
    except BuildError as e:
        print(f"FAIL  {a.name}: {e}")
        return 2
    print(summary_line(r, a.name, a.expect))
    ok, why = r.verdict(a.expect)
    for w in why:
        print(f"      {w}")
    if not ok and not a.verbose:
        print("      last console lines:\n" + "\n".join("        " + line for line in r.tail(15).split("\n")))
    return 0 if ok else 1


def cmd_scenario(a):
    files = []
    for pat in a.scenarios or ["*"]:
        if os.path.exists(pat):
            files.append(Path(pat))
        else:
            files += scenario_files(pat)
    if not files:
        raise SystemExit("qrun: no scenario matched")
    failed = 0
    for rep in range(a.repeat):
        for f in files:
            sc = load_scenario(f)
            try:
                _, why, line = run_scenario(sc, kvm=a.kvm, cache=False, echo=a.verbose)
            except BuildError as e:
                why, line = [str(e)], f"FAIL  {sc.name}: build failed"
            print(line, flush=True)
            for w in why[1:] if a.quiet else why:
                print(f"      {w}")
            failed += bool(why)
    print(f"qrun: {len(files) * a.repeat - failed} of {len(files) * a.repeat} scenario runs passed")
    return 1 if failed else 0


def cmd_kvm_probe(a):
    elf, _ = _build_dir_image(a.build_dir, "kernel")
    ok, reason = kvm_probe(elf, force=True)
    print(f"kvm: {'usable' if ok else 'not usable'} ({reason})")
    return 0 if ok else 1


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)

    def common(p, build_dir=True):
        if build_dir:
            p.add_argument("--build-dir", default="build", help="the O= directory (default build)")
        p.add_argument("--cpus", type=int, default=4)
        p.add_argument("--boot", choices=("iso", "kernel"), default="iso" if build_dir else "kernel")
        p.add_argument("--args", default="", help="kernel command line (appended)")

    p = sub.add_parser("run", help="interactive boot, serial on this terminal")
    common(p)
    p.add_argument("--kvm", default="auto", help="0, 1 or auto (default)")
    p.add_argument("--net", choices=("none", "user"), default="none",
                   help="user: an e1000 on QEMU user networking (restrict=on); the guest "
                        "is 10.0.2.15, the gateway 10.0.2.2")
    p.set_defaults(fn=cmd_run)

    p = sub.add_parser("gdb", help="QEMU stopped at the first instruction, gdb attached")
    common(p)
    p.set_defaults(boot="kernel")
    p.add_argument("--batch", action="store_true", help="run the -ex commands and exit")
    p.add_argument("-ex", action="append", default=[], help="gdb command (with --batch)")
    p.add_argument("--timeout", type=int, default=120)
    p.set_defaults(fn=cmd_gdb)

    p = sub.add_parser("boot", help="build build/<name>, boot once, summarize")
    common(p, build_dir=False)
    p.add_argument("--name", default="test-defconfig", help="build/<name> (default test-defconfig)")
    p.add_argument("--config", default="defconfig", help="configs/<config>")
    p.add_argument("--option", action="append", default=[], help="CONFIG_X=y added to the config")
    p.add_argument("--timeout", type=int, default=60)
    p.add_argument("--kvm", default=os.environ.get("KVM", "auto"))
    p.add_argument("--expect", default="pass", choices=("pass", "fail", "panic", "poweroff"))
    p.add_argument("-v", "--verbose", action="store_true", help="echo the console")
    p.set_defaults(fn=cmd_boot)

    p = sub.add_parser("scenario", help="run scenario files (names or globs)")
    p.add_argument("scenarios", nargs="*")
    p.add_argument("--kvm", default=os.environ.get("KVM", "auto"))
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("-q", "--quiet", action="store_true")
    p.add_argument("-v", "--verbose", action="store_true", help="echo the console")
    p.set_defaults(fn=cmd_scenario)

    p = sub.add_parser("kvm-probe", help="probe KVM again and cache the verdict")
    p.add_argument("--build-dir", default="build")
    p.set_defaults(fn=cmd_kvm_probe)

    a = ap.parse_args(argv)
    return a.fn(a)


if __name__ == "__main__":
    sys.exit(main())
