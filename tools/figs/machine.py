"""What ran where: the host's CPU model, cores, caches and memory, its load,
QEMU's version, the tree's commit. The report records them because every
figure in it depends on them (docs/design.md, "Benchmarks")."""
import datetime
import json
import os
import platform
import subprocess

from qs import REPO
from qs.kvm import KVM_PROBE_FILE, host_hypervisor


def _run(cmd):
    try:
        return subprocess.run(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def host_cores():
    """The cores this process may run on (what `nproc` prints)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def caches():
    out = _run(["lscpu"])
    keep = [line.split(":", 1) for line in out.split("\n")
            if line.split(":")[0].strip() in ("L2 cache", "L3 cache")]
    return ", ".join(f"{k.strip()} {v.strip()}" for k, v in keep) or "?"


def memory_gib():
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / (1 << 20), 1)
    except OSError:
        pass
    return None


def load():
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def snapshot():
    """The host and the tree, at the start of a run."""
    dirty = _run(["git", "status", "--porcelain", "--untracked-files=no"])
    return dict(
        cpu_model=cpu_model(), host_cores=host_cores(), caches=caches(), memory_gib=memory_gib(),
        host_kernel=platform.release(), qemu=_run(["qemu-system-x86_64", "--version"]).split("\n")[0],
        commit=_run(["git", "rev-parse", "--short", "HEAD"]) + (" (with local changes)" if dirty else ""),
        started=datetime.datetime.now().isoformat(timespec="seconds"), load_start=load(),
        kvm_device=os.access("/dev/kvm", os.R_OK | os.W_OK), kvm_module=host_hypervisor(),
        kvm_probe=kvm_probe_verdict())


def kvm_probe_verdict():
    """The cached KVM probe's verdict (qs.kvm), if there is one."""
    try:
        d = json.loads(KVM_PROBE_FILE.read_text())
        return ("KVM usable" if d.get("ok") else "KVM not used") + f": {d.get('reason')}"
    except (OSError, ValueError):
        return ""
