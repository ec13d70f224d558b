"""The accelerator: KVM where this host's KVM runs the kernel's code on
the cores, TCG otherwise (every test passes under TCG).

A /dev/kvm that opens is not enough. The development machines' is a
nested hypervisor (kvm-pvm: shadow paging, no hardware virtualization
underneath) that refuses `-cpu host` (it cannot set MSR 0x10a,
IA32_ARCH_CAPABILITIES), boots `-cpu host,-arch-capabilities`, and then
runs the guest's kernel-mode code in its instruction emulator: a register
add costs about 800 ns there (0.1 ns under TCG), a TSC read 5.8 us (guest
user mode runs natively, kernel mode does not). A benchmark booted there
measures the emulator, not the kernel.

So the probe, once per host (cached in build/.kvm-probe, keyed by QEMU's
version and the host kernel; delete the file or run `qrun.py kvm-probe`
to probe again):

  1. boots `ktest=bench_accel` under TCG and times it;
  2. boots the same under KVM with each CPU model of CPU_MODELS in turn
     until one boots (a model QEMU or the host refuses is noted with its
     error), waiting kvm_wait(TCG's time): a KVM that has started the
     guest but not finished long after TCG did is slower than TCG, which
     is the verdict, without waiting out the timeout or trying the other
     models (they run in the same emulator);
  3. judges (judge_speed): KVM is used only if its add costs what a core
     takes (under NATIVE_ADD_NS), i.e. the guest's kernel code runs
     natively.

decide(kvm, elf) -> Accel(accel, cpu, why) is what a boot asks:
  KVM=0      TCG.
  KVM=1/auto KVM with the probe's CPU model if the probe found KVM runs
             kernel code natively; TCG otherwise, saying why.
  KVM=force  KVM with the first CPU model that boots, even where it
             emulates (to measure the emulator itself); an error if
             no model boots.
"""
import datetime
import fcntl
import json
import os
import subprocess
import sys
from dataclasses import dataclass

from qs import REPO

KVM_PROBE_FILE = REPO / "build" / ".kvm-probe"
PROBE_VERSION = 3
# The CPU models tried, in order. `host` gives the guest the host's own
# CPUID; a nested hypervisor that cannot emulate IA32_ARCH_CAPABILITIES
# (MSR 0x10a) refuses it, and the same minus that MSR is the next best.
CPU_MODELS = ("host", "host,-arch-capabilities", "max,-arch-capabilities", "qemu64")
TCG_CPU = "max"
# A register add on a core costs a fraction of a nanosecond; an
# interpreting hypervisor takes hundreds. Anything above this is not a
# core running the guest's code.
NATIVE_ADD_NS = 5.0
# How long a KVM boot of bench_accel is waited for, against TCG's time
# for the same boot: a KVM that runs kernel code on the cores finishes
# well inside TCG's time (both pay QEMU's start); the floor covers a
# loaded host's start-up.
KVM_WAIT_FACTOR = 4
KVM_WAIT_MIN_S = 10.0


def kvm_wait(tcg_s, timeout=60):
    """Seconds to wait for the KVM boot, given TCG's (s)."""
    return min(timeout, max(KVM_WAIT_MIN_S, KVM_WAIT_FACTOR * tcg_s))


@dataclass
class Accel:
    accel: str                  # kvm or tcg
    cpu: str                    # QEMU's -cpu
    why: str                    # one line: why this accelerator


def kvm_usable():
    return os.access("/dev/kvm", os.R_OK | os.W_OK)


def host_hypervisor():
    """Which KVM module the host has (kvm_intel, kvm_amd, kvm_pvm...)."""
    try:
        mods = sorted(m for m in os.listdir("/sys/module") if m.startswith("kvm_"))
    except OSError:
        mods = []
    return ", ".join(mods) or "?"


def _probe_key():
    try:
        ver = subprocess.run(["qemu-system-x86_64", "--version"], stdout=subprocess.PIPE,
                             text=True).stdout.split("\n")[0]
    except OSError:
        ver = "?"
    return f"v{PROBE_VERSION} | {ver} | host {os.uname().release}"


def accel_ops(r):
    """{op: ns} from a boot's bench_accel lines."""
    return {b["op"]: b["ps"] / 1000 for b in r.console.bench if b.get("bench") == "accel"}


def judge_speed(kvm_ops, tcg_ops):
    """(native, why) from bench_accel's figures under KVM and TCG (ns)."""
    add = kvm_ops.get("add")
    if add is None:
        return None, "bench_accel printed nothing under KVM"
    tcg = tcg_ops.get("add")
    vs = f" (TCG {tcg:.2f} ns)" if tcg is not None else ""
    if add > NATIVE_ADD_NS:
        extra = "".join(f", {op} {kvm_ops[op]:.0f} ns" for op in ("rdtsc", "lock_inc")
                        if op in kvm_ops)
        return False, (f"KVM here emulates the guest's kernel code: a register add costs "
                       f"{add:.0f} ns{vs}{extra}; benchmarks would measure the emulator")
    return True, f"KVM runs kernel code natively: an add costs {add:.2f} ns{vs}"


def _refusal(r):
    """QEMU's own error line, if it refused to start."""
    for line in (r.stderr or "").split("\n"):
        if "qemu-system" in line or "error" in line.lower():
            return line.strip()[:160]
    return ""


def kvm_probe(elf, force=False, timeout=60):
    """Find the CPU model KVM boots with and whether it runs kernel code
    natively; cached in build/.kvm-probe. Returns the cached dict: ok,
    reason, cpu (None if no model boots), kvm/tcg (bench_accel's ns), tried."""
    key = _probe_key()
    if not kvm_usable():
        return dict(ok=False, reason="no usable /dev/kvm", cpu=None)
    # make test's workers (pytest-xdist) may all ask at once: one probes,
    # the others wait on the lock and then read what it cached.
    KVM_PROBE_FILE.parent.mkdir(parents=True, exist_ok=True)
    with open(KVM_PROBE_FILE.with_name(".kvm-probe.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _kvm_probe_locked(elf, key, force, timeout)


def _kvm_probe_locked(elf, key, force, timeout):
    if not force and KVM_PROBE_FILE.exists():
        try:
            d = json.loads(KVM_PROBE_FILE.read_text())
            if d.get("key") == key:
                return d
        except ValueError:
            pass
    from qs.boot import boot_image      # here: qs.boot imports this module
    logs = KVM_PROBE_FILE.parent
    t = boot_image(elf, boot="kernel", cpus=2, cmdline="ktest=bench_accel", accel="tcg",
                   timeout=timeout, log_path=logs / "kvm-probe-tcg.log")
    tcg_done = t.console.banner and t.status in ("pass", "fail")
    wait = kvm_wait(t.elapsed, timeout) if tcg_done else timeout
    tried, booted, slow, cpu = [], None, None, None
    for model in CPU_MODELS:
        r = boot_image(elf, boot="kernel", cpus=2, cmdline="ktest=bench_accel", accel="kvm",
                       cpu=model, timeout=wait, log_path=logs / "kvm-probe.log")
        if r.console.banner and r.status in ("pass", "fail"):
            booted, cpu = r, model
            tried.append(dict(cpu=model, result=f"booted ({r.elapsed:.1f} s)"))
            break
        if r.log.strip() and r.status == "timeout" and tcg_done:
            # The guest runs, but slower than under TCG: that is the answer.
            slow, cpu = r, model
            tried.append(dict(cpu=model, result=f"started, not done after {r.elapsed:.1f} s"))
            break
        why = _refusal(r) or f"no boot banner ({r.describe_status()})"
        tried.append(dict(cpu=model, result=why))
    d = dict(key=key, hypervisor=host_hypervisor(), cpu=cpu, tried=tried,
             when=datetime.datetime.now().isoformat(timespec="seconds"))
    if slow is not None:
        d["tcg"] = accel_ops(t)
        d.update(ok=False, reason=(f"-cpu {cpu}: KVM here is slower than TCG: bench_accel was "
                                   f"not done after {slow.elapsed:.1f} s under KVM, TCG took "
                                   f"{t.elapsed:.1f} s; benchmarks would measure the emulator"))
    elif booted is None:
        d.update(ok=False, reason="no CPU model boots under KVM: " + "; ".join(
            f"{t['cpu']}: {t['result']}" for t in tried))
    else:
        d["kvm"], d["tcg"] = accel_ops(booted), accel_ops(t)
        native, why = judge_speed(d["kvm"], d["tcg"])
        if native is None:          # a kernel without bench_accel: time to the end
            native = not (t.status == booted.status and t.elapsed * 1.5 < booted.elapsed)
            why = (f"{why}; KVM took {booted.elapsed:.1f} s to the end, TCG {t.elapsed:.1f} s")
        d.update(ok=bool(native), reason=f"-cpu {cpu}: {why}")
    tmp = KVM_PROBE_FILE.with_name(".kvm-probe.tmp")
    tmp.write_text(json.dumps(d, indent=1) + "\n")
    os.replace(tmp, KVM_PROBE_FILE)          # a reader never sees half a file
    return d


def kvm_cpu_model():
    """The CPU model KVM boots with here (the cached probe's), else host."""
    try:
        d = json.loads(KVM_PROBE_FILE.read_text())
        if d.get("key") == _probe_key() and d.get("cpu"):
            return d["cpu"]
    except (OSError, ValueError):
        pass
    return CPU_MODELS[0]


accel_notes = []                 # what decide() concluded, for summaries


def _note(text, show=True):
    if text not in accel_notes:
        accel_notes.append(text)
        if show:
            print(text, file=sys.stderr)


def decide(kvm, elf):
    """kvm is 0, 1, auto or force. Returns an Accel."""
    kvm = str(kvm).lower()
    if kvm in ("0", "no", "tcg", "off"):
        return Accel("tcg", TCG_CPU, "TCG (KVM=0)")
    force = kvm == "force"
    if kvm not in ("1", "yes", "on", "kvm", "auto", "force"):
        raise SystemExit(f"qrun: KVM={kvm}: 0, 1, auto or force")
    p = kvm_probe(elf)
    if force:
        if not kvm_usable():
            raise SystemExit("qrun: KVM=force but /dev/kvm is not usable by this user")
        if not p.get("cpu"):
            raise SystemExit(f"qrun: KVM=force but {p['reason']}")
        why = f"KVM forced (KVM=force), -cpu {p['cpu']}" + ("" if p["ok"] else
                                                             f"; the probe: {p['reason']}")
        _note(f"qrun: {why}")
        return Accel("kvm", p["cpu"], why)
    if not p["ok"]:
        why = f"TCG: KVM not used ({p['reason']})"
        _note(f"qrun: KVM not used ({p['reason']}); running under TCG")
        return Accel("tcg", TCG_CPU, why)
    why = f"KVM ({p['reason']})"
    _note(f"qrun: using {why}", show=False)
    return Accel("kvm", p["cpu"], why)


def choose_accel(kvm, elf):
    """decide()'s accelerator alone: 'kvm' or 'tcg'."""
    return decide(kvm, elf).accel
