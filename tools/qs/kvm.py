"""The accelerator: KVM where this host's KVM runs the kernel and is
faster, TCG otherwise (every test passes under TCG).

The development machines' /dev/kvm is a nested hypervisor that cannot run
everything, or runs it slower than TCG (it emulates real mode and some
instructions), so KVM=auto boots `poweroff` once under each and caches the
verdict in build/.kvm-probe, keyed by QEMU's version and the host kernel
(delete the file to probe again).
"""
import datetime
import json
import os
import subprocess
import sys

from qs import REPO

KVM_PROBE_FILE = REPO / "build" / ".kvm-probe"


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
    from qs.boot import boot_image      # here: qs.boot imports this module
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
