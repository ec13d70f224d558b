"""The deterministic mode and the commands that replay a run
(docs/replay.md).

Under TCG with one thread running every vCPU in turn (round robin) and
-icount, QEMU's virtual clock counts guest instructions: the guest's
time, its interrupts and the order its CPUs run in are a function of
the instructions executed, so the same ELF, initrd, command line, CPU
count and shift give the same run, byte for byte on the console. The
mode is switched on for a whole process tree by the environment
(QS_DETERMINISTIC=1: make's DETERMINISTIC=1, qrun's --deterministic),
because every way a kernel is booted (make run, scenarios, torture,
soak, grade, trace, figures) reaches qs.qemu.qemu_command(), the one
place the command line is built, and many of them through subprocesses.

What the mode removes, each a way the host reached the guest:
  -accel tcg,thread=multi   MTTCG: the host's scheduler interleaves the
                            vCPUs (QEMU refuses it with -icount anyway)
  the host clock            -icount shift=S,sleep=off,align=off: time is
                            instructions << S, idle time is skipped
                            rather than slept; -rtc clock=vm with a
                            fixed base: the CMOS clock starts at BASE
                            and runs on the virtual clock
  RDRAND, RDSEED            -cpu max,-rdrand,-rdseed: the kernel falls
                            back to the TSC, which is virtual time here;
                            the route cache's key is fixed outright
                            (rtcache.secret=), so it does not even
                            depend on the shift
  network peers             QEMU's user networking and other guests
                            answer on host time: refused (DeterminismError)
  the runner's early stop   qs.boot's StopOn kills QEMU a host-timed
                            while after a fatal line: off in this mode,
                            so a failing run ends by itself
What the mode cannot remove: typed input (the console, make run's shell,
input/shell steps, gdb) arrives on host time. A run is deterministic up
to its first keystroke; the runner says so when it types.
"""
import hashlib
import os
import re
import shlex
import sys
import tempfile
from pathlib import Path

ENV, SHIFT_ENV = "QS_DETERMINISTIC", "QS_SHIFT"
# make replay STOP=: the virtual time (ns) the kernel stops at, for
# replay.stop= (kernel/time/tick.c); unset, never.
STOP_ENV = "QS_REPLAY_STOP_NS"
# One instruction is 2**SHIFT ns of virtual time. 3 (8 ns: a 125 MIPS
# machine), measured in docs/replay.md: a 3-second Tree RCU torture at
# -smp 4 ran 234 grace periods and 73,629 reads at 3, 222 and 79,106 at 2
# for twice the host time, 206 and 52,905 at 4 for 0.4 of it; busy waits
# (the boot's calibrations) cost host time in 2**-SHIFT.
DEFAULT_SHIFT = 3
CPU = "max,-rdrand,-rdseed"
RTC_BASE = "2026-01-01T00:00:00"
# Any fixed key will do: the same one in every run. (route_cache_flood's
# attacker then knows the key, as the route scenarios' already does.)
RTCACHE_SECRET = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"


class DeterminismError(SystemExit):
    """A run that cannot be deterministic, with the reason (exits the tool)."""


def enabled():
    return os.environ.get(ENV, "").lower() in ("1", "y", "yes", "on", "true")


def shift():
    v = os.environ.get(SHIFT_ENV) or str(DEFAULT_SHIFT)
    if not v.isdigit() or int(v) > 10:
        raise DeterminismError(f"qrun: SHIFT={v}: a whole number of 0..10 "
                               f"(one instruction is 2**SHIFT ns)")
    return int(v)


def enable(on=True, shift_value=None):
    """Switch the mode on (or off) for this process and what it starts."""
    if on:
        os.environ[ENV] = "1"
    else:
        os.environ.pop(ENV, None)
    if shift_value is not None:
        os.environ[SHIFT_ENV] = str(shift_value)


_noted = set()


def note(text):
    """Say text once per process on stderr (a tool's output stays its own)."""
    if text not in _noted:
        _noted.add(text)
        print(f"qrun: deterministic mode: {text}", file=sys.stderr)


TYPING_NOTE = ("this run types at the console; it is deterministic up to the first "
               "keystroke, which arrives on host time")
GDB_NOTE = ("under gdb the run is deterministic up to the first keystroke at its console, "
            "the first write to its memory or registers, and the first stop it is resumed "
            "from (QEMU moves the virtual clock on when a stopped machine restarts; "
            "docs/replay.md)")


# make replay RR=1: QEMU's record/replay (one vCPU only in QEMU 7.2) as
# "record" or "replay", the record's file and the qcow2 drive its
# snapshots go to (reverse execution starts from one).
RR_ENV, RR_FILE_ENV, RR_DRIVE_ENV = "QS_RR", "QS_RR_FILE", "QS_RR_DRIVE"


def accel_args(s=None):
    """The accelerator part of QEMU's command line in this mode."""
    s = shift() if s is None else s
    icount = f"shift={s},sleep=off,align=off"
    rr, extra = os.environ.get(RR_ENV), []
    if rr in ("record", "replay"):
        icount += f",rr={rr},rrfile={os.environ[RR_FILE_ENV]},rrsnapshot=init"
        extra = ["-drive", f"file={os.environ[RR_DRIVE_ENV]},if=none,id=rr"]
    return ["-accel", "tcg,thread=single", "-icount", icount,
            "-rtc", f"base={RTC_BASE},clock=vm"] + extra


def refuse_nics(nics):
    if nics:
        raise DeterminismError(
            "qrun: the deterministic mode refuses network cards: their peers (QEMU's user "
            "networking, another guest, a test's socket) answer on host time, so a replay "
            "would see other packets at other instants. Run without DETERMINISTIC=1.")


def refuse_build(image):
    """A build this mode cannot run, by its .config beside the ELF. KCSAN
    (when it lands) samples races between vCPUs running truly at once,
    which the round robin never does: it needs MTTCG."""
    cfg = os.path.join(os.path.dirname(str(image)), ".config")
    try:
        text = open(cfg).read()
    except OSError:
        return
    if re.search(r"^CONFIG_KCSAN=y", text, re.M):
        raise DeterminismError(
            "qrun: a KCSAN build cannot run deterministically: KCSAN finds races between "
            "CPUs that run at the same time, and the deterministic mode runs one vCPU at a "
            "time. Run it without DETERMINISTIC=1.")


def stop_arg():
    """replay.stop=, 20 digits always: a run asked to stop differs from the
    run it replays in digits only, which the kernel parses, copies and
    echoes with the same instructions whatever they are. The kernel stops
    at ns >= value - 1: the value is the time plus one, 0 never."""
    v = os.environ.get(STOP_ENV, "")
    n = int(v) + 1 if v.isdigit() else 0
    return f"replay.stop={n:020d}"


def boot_file_alias(path):
    """A name for a file QEMU hands the guest whose length does not depend
    on where the tree is. The guest sees two paths: the -initrd one, as
    the Multiboot module's name, which the kernel copies (strlcpy() reads
    it to its end) and prints; and the -kernel one, which QEMU puts before
    the command line, and which the kernel copies with the line and then
    drops. A longer path is more instructions, and from there another
    interleaving: two checkouts, or two build directories, of the same
    tree made two different runs (a racy stress failed 38 ms apart). A
    symlink named by a hash of the path, with the file's own suffix (the
    kernel knows its own name by ".elf"), has the same length anywhere."""
    real = Path(path).resolve()
    alias = Path(tempfile.gettempdir()) / (
        "qs-" + hashlib.sha256(str(real).encode()).hexdigest()[:16] + real.suffix)
    try:
        if alias.is_symlink() and os.readlink(alias) == str(real):
            return alias
        tmp = alias.with_name(alias.name + f".{os.getpid()}")
        os.symlink(real, tmp)
        os.replace(tmp, alias)
    except OSError:
        return path            # a read-only /tmp: the path as it is
    return alias


def kernel_cmdline(cmdline):
    """The command line with the mode's kernel options before any " -- "
    (what follows is init's): the route cache's key fixed, unless it names
    one itself, and replay.stop=."""
    head, sep, tail = cmdline.partition(" -- ")
    if cmdline.startswith("-- "):
        head, sep, tail = "", " -- ", cmdline[3:]
    extra = [] if "rtcache.secret=" in cmdline else [f"rtcache.secret={RTCACHE_SECRET}"]
    extra.append(stop_arg())
    return " ".join([head] + extra).strip() + (sep + tail if sep else "")


# ------------------------------------------------------------------ the commands
def _q(v):
    return shlex.quote(str(v))


def replay_command(config, cpus, cmdline, options=(), boot="kernel", expect="pass",
                   timeout=None, s=None, stop=None, scenario=None):
    """One make command that reruns a deterministic run exactly (and, for
    a scenario file's case, judges it by that case's lines: SCEN=)."""
    s = shift() if s is None else s
    parts = ["make", "replay", f"CONFIG={config}", f"CPUS={cpus}", f"SHIFT={s}",
             f"ARGS={_q(cmdline)}"]
    if options:
        parts.append(f"OPTIONS={_q(' '.join(options))}")
    if boot != "kernel":
        parts.append(f"BOOT={boot}")
    if expect != "pass":
        parts.append(f"EXPECT={expect}")
    if timeout:
        parts.append(f"TIMEOUT={timeout}")
    if stop is not None:
        parts.append(f"STOP={stop}")
    if scenario:
        parts.append(f"SCEN={_q(scenario)}")
    return " ".join(parts)


SEED = re.compile(r"torture\.seed=\S+")


def numbers(text):
    """'1-50', '3', '1,4,9-12' -> [1, ..., 50] ... (make torture's and make
    mutants' SEEDS=). ValueError on anything else."""
    out = []
    for part in text.split(","):
        m = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", part)
        if not m:
            raise ValueError(f"{text!r}: numbers and ranges, as 1-50 or 1,4,9-12")
        lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
        out += range(lo, hi + 1)
    return out


def seeded_cmdline(cmdline, seed):
    """cmdline with torture.seed=seed among the kernel's arguments (before
    any " -- "), replacing one already there."""
    head, sep, tail = cmdline.partition(" -- ")
    if cmdline.startswith("-- "):
        head, sep, tail = "", "-- ", cmdline[3:]
    head = (SEED.sub("", head).strip() + f" torture.seed={seed}").strip()
    return head + (" " + sep.strip() + " " + tail if sep else "")


def sweep_command(case, seeds="1-20"):
    """What an MTTCG failure offers instead: its case under many seeds in
    the deterministic mode, where any failure found replays exactly."""
    return (f"make torture DETERMINISTIC=1 SCEN={_q(case)} SEEDS={seeds}"
            "   (may not reproduce it: under MTTCG the host chose the interleaving)")


def _scenario_of(sc):
    """sc's name when a scenario file holds it (what SCEN= can find), so the
    replay is judged by its lines; None for a grader's or a mutant's case."""
    from qs.scenario import scenario_named
    try:
        return sc.name if scenario_named(sc.name) is not None else None
    except (OSError, ValueError):
        return None


def failure_lines(sc, r, why):
    """The lines a failed run adds to its reasons: the replay command in
    this mode, a sweep (or a deterministic try) otherwise."""
    if not why:
        return []
    if enabled():
        t = failure_time(r.log)
        at = f" (first failure at {t:.6f} s)" if t is not None else ""
        if sc.input or sc.shell:
            # make replay types nothing: the same run up to the first keystroke.
            at += " (up to its first keystroke: it typed at its console)"
        return [f"replay{at}: " + replay_command(sc.config, sc.cpus, sc.cmdline, sc.options,
                                                  sc.boot, sc.expect, sc.timeout,
                                                  scenario=_scenario_of(sc))]
    if "torture_rcu" in sc.cmdline:
        return ["sweep: " + sweep_command(sc.name)]
    return ["try: " + replay_command(sc.config, sc.cpus, sc.cmdline, sc.options,
                                                    sc.boot, sc.expect, sc.timeout,
                                                    scenario=_scenario_of(sc))
            + "   (deterministic: may not reproduce it, under MTTCG the host chose the "
            "interleaving)"]


STAMP = re.compile(r"^\[\s*(\d+\.\d+)\]")
FAILURE = re.compile(r"rcu-torture: (?:ERROR|FAILURE)|^(?:\[[^]]*\] )?(?:cpu\d+: )?not ok ")


def failure_time(log, expected=()):
    """The console time (s) of the first line that reports a failure: an
    unexpected WARNING/BUG/panic/stall line (qs.judge), a torture ERROR or
    FAILURE, a KTAP `not ok`; None if none has a timestamp."""
    from qs import ktap
    from qs.judge import unexpected_lines
    bad = {n for n, _ in unexpected_lines(log, expected)}
    for n, line in enumerate(ktap.clean(log).split("\n"), 1):
        m = STAMP.match(line)
        if m and (n in bad or FAILURE.search(line)):
            return float(m.group(1))
    return None


GP_REPORT = re.compile(
    r"^\[\s*(?P<time>\d+\.\d+)\] cpu\d+: rcu-torture: ERROR: (?P<ctx>\w+) reader on CPU "
    r"(?P<cpu>\d+): grace period (?P<gp>\d+) began after the reader and ended before it "
    r"\(started (?P<started>\d+) at the reader's start, completed (?P<completed>\d+) at its "
    r"end\); element (?P<element>0x[0-9a-f]+)")


def reader_record(log):
    """The failing reader's record, when the first failure is rcutorture's
    grace-period check (kernel/rcu/torture/torture_readers.c): dict(time
    (s), ctx, cpu, gp, started, completed, element). `started` is what
    rcu_gp_started() read at the reader's start, `completed` what
    rcu_gp_completed() read at its end. None for any other first failure."""
    from qs import ktap
    t = failure_time(log)
    for line in ktap.clean(log).split("\n"):
        m = GP_REPORT.match(line)
        if m:
            if float(m.group("time")) != t:
                return None
            d = m.groupdict()
            return dict(time=float(d["time"]), ctx=d["ctx"], cpu=int(d["cpu"]), gp=int(d["gp"]),
                        started=int(d["started"]), completed=int(d["completed"]),
                        element=d["element"])
    return None
