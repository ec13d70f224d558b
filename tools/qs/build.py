"""Configure and build build/<name>, once per process; and what a build is.

configure() writes build/<name>/.config from configs/<defconfig> plus
CONFIG_X=y lines (a scenario's options); build() runs make for the ELF and
the initrd (or the ISO, whose grub.cfg carries the command line).

facts() reads back what was built, from the build itself rather than from
any name: the RCU variant is the string rcu_variant_id in the ELF (the
banner prints the same string), the preemption model and HZ come from
its .config. The runner compares them with the banner (qs.scenario).
"""
import fcntl
import os
import struct
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

from qs import REPO


class BuildError(Exception):
    """A configuration or build failed; log_path: make's whole output, when kept."""
    log_path = None


_built = {}                      # (name, defconfig, options, iso_args) -> path, once per process

# QS_SANITIZER=kasan (or kcsan): every build configure() writes gets that
# sanitizer too, so that a whole make test runs under it (make
# test-sanitized, docs/kasan.md). A build that already names the other
# sanitizer keeps its own: GCC will not build the two into one kernel.
SANITIZER_ENV = "QS_SANITIZER"
SANITIZERS = ("kasan", "kcsan")


def sanitizer_options(options):
    """options plus CONFIG_<QS_SANITIZER>=y, where QS_SANITIZER is set."""
    want = os.environ.get(SANITIZER_ENV, "").lower()
    if not want:
        return tuple(options)
    if want not in SANITIZERS:
        raise BuildError(f"{SANITIZER_ENV}={want}: takes one of {', '.join(SANITIZERS)}")
    if any(o.split("=")[0] in ("CONFIG_KASAN", "CONFIG_KCSAN") for o in options):
        return tuple(options)
    return tuple(options) + (f"CONFIG_{want.upper()}=y",)


def run_make(args, build_dir=None, quiet=True):
    cmd = ["make", "--no-print-directory"] + ([f"O={build_dir}"] if build_dir else []) + list(args)
    p = subprocess.run(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if not quiet:
        sys.stdout.write(p.stdout)
    return p


def configure(name, defconfig="defconfig", options=(), root=REPO):
    """Write build/<name>/.config from configs/<defconfig> plus CONFIG_X=y
    lines; root: the tree whose build it is (a scratch copy's)."""
    bdir = root / "build" / name
    bdir.mkdir(parents=True, exist_ok=True)
    src = root / "configs" / defconfig
    if not src.exists():
        have = sorted(p.name for p in (root / "configs").glob("*defconfig"))
        raise BuildError(f"no configuration configs/{defconfig}; have: {', '.join(have)}")
    options = sanitizer_options(options)
    merged = src.read_text()
    if options:
        merged += "\n# added by the scenario\n" + "\n".join(options) + "\n"
    frag = bdir / "scenario.defconfig"
    if not frag.exists() or frag.read_text() != merged:
        frag.write_text(merged)
    env = dict(os.environ, KCONFIG_CONFIG=str(bdir / ".config"))
    p = subprocess.run([sys.executable, "tools/kconfig.py", "defconfig", str(frag)], cwd=root, env=env,
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
    with build_lock(name):
        out = _build_locked(name, defconfig, options, iso_args, jobs)
    _built[key] = out
    return out


@contextmanager
def build_lock(name, repo=REPO):
    """build/<name> to this process alone while it is held. make test runs
    cases in several processes (pytest-xdist); two that need build/<name>
    at once would run two makes in one tree and link half-written objects.
    One at a time per build directory: the second waits, then its make
    finds everything up to date."""
    lock_dir = repo / "build" / ".locks"
    lock_dir.mkdir(parents=True, exist_ok=True)
    with open(lock_dir / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _build_locked(name, defconfig, options, iso_args, jobs):
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
        # The whole output, for a reader who wants the first error, not the tail.
        log = bdir / "build.log"
        log.write_text(p.stdout)
        e = BuildError(f"build of {rel} failed (log: {rel}/build.log):\n{p.stdout[-6000:]}")
        e.log_path = log
        raise e
    return REPO / target[0]


# ------------------------------------------------------------------ what was built
def elf_symbol_bytes(elf, symbol):
    """The bytes of a data symbol in an ELF64 file (from its .symtab), or
    None if there is no such symbol."""
    data = Path(elf).read_bytes()
    if data[:4] != b"\x7fELF" or data[4] != 2:
        raise BuildError(f"{elf} is not an ELF64 file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3a)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    for sh in sections:
        if sh[1] != 2:                           # SHT_SYMTAB
            continue
        strtab = sections[sh[6]]                 # sh_link: its string table
        for off in range(sh[4], sh[4] + sh[5], sh[9]):
            st_name, _info, _other, shndx, value, size = struct.unpack_from("<IBBHQQ", data, off)
            start = strtab[4] + st_name
            if data[start:data.index(b"\0", start)] != symbol.encode():
                continue
            if shndx == 0 or shndx >= len(sections) or sections[shndx][1] == 8:   # NOBITS
                return None
            sec = sections[shndx]
            return data[sec[4] + value - sec[3]:sec[4] + value - sec[3] + size]
    return None


def read_config(bdir):
    """build/<name>/.config as {symbol: value}."""
    conf = {}
    path = Path(bdir) / ".config"
    for line in path.read_text().split("\n") if path.exists() else ():
        if line.startswith("CONFIG_") and "=" in line:
            k, v = line.split("=", 1)
            conf[k] = v.strip('"')
    return conf


def sanitizer_slowdown(bdir):
    """How many times slower the build in bdir runs: CONFIG_SANITIZER_SLOWDOWN
    in its .config (Kconfig: 3 with KASAN or KCSAN), 1 without one. A boot's
    timeout widens by it, as the kernel's own liveness windows do."""
    value = read_config(bdir).get("CONFIG_SANITIZER_SLOWDOWN", "")
    return int(value) if value.isdigit() else 1


def boot_timeout(seconds, name, defconfig, options=(), root=REPO):
    """seconds widened by build/<name>'s sanitizer_slowdown(), for a tool
    whose boot builds in another process (qrun.py boot): the build is
    configured here to read its .config. A configuration that fails is
    that build's to report; its boot keeps seconds."""
    try:
        return seconds * sanitizer_slowdown(configure(name, defconfig, options, root))
    except BuildError:
        return seconds


_facts = {}


def facts(elf):
    """What the build of elf is: dict(variant=, preemption=, hz=), as the
    boot banner must print them."""
    elf = Path(elf)
    key = (str(elf), elf.stat().st_mtime_ns)
    if key not in _facts:
        raw = elf_symbol_bytes(elf, "rcu_variant_id")
        conf = read_config(elf.parent)
        _facts[key] = dict(
            variant=raw.split(b"\0")[0].decode() if raw else None,
            preemption="kpreempt" if conf.get("CONFIG_KPREEMPT") == "y" else "none",
            hz=int(conf["CONFIG_HZ"]) if conf.get("CONFIG_HZ", "").isdigit() else None)
    return _facts[key]
