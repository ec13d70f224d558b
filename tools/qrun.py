#!/usr/bin/env python3
"""Build, boot and judge Quiescent under QEMU: the command line over the
runner library in tools/qs/ (one module per idea: see qs/__init__.py),
used by `make run`, `make gdb`, `make soak` and by hand.

  qrun.py run       interactive: the serial console on this terminal (Ctrl-A X quits)
  qrun.py gdb       QEMU stopped at the first instruction, gdb attached (--batch for
                    scripts); the console on a socket for `make console`
  qrun.py boot      build a configuration into build/<name>, boot it once, keep the log,
                    parse KTAP and BENCH lines, print one summary line; exit 0 on pass
                    (a WARNING/BUG/Call Trace/panic/stall line not allowed by
                    --expect-console fails it: qs.judge)
  qrun.py scenario  run scenario cases (tests/scenarios/*.toml), one summary line each
                    (--list: their names)
  qrun.py kvm-probe probe whether this host's KVM runs the kernel (cached in build/.kvm-probe)

--deterministic (or DETERMINISTIC=1 in the environment, as make passes it) with
any of them: the deterministic mode (docs/replay.md), one run the same every time;
--shift S its -icount shift. A failure then prints the `make replay` command that
reruns it exactly.

QEMU's exit status tells the outcome (isa-debug-exit writes v, QEMU exits (v<<1)|1):
  33 pass, 35 fail, 37 kernel panic; 0 after an ACPI power-off; anything else a crash.
A run that does not end by itself within its timeout is killed and reported as a timeout.
"""
import argparse
import os
import shlex
import subprocess
import sys
from pathlib import Path

from qs import REPO, replay
from qs.boot import boot, summary_line
from qs.build import BuildError
from qs.gdb import gdb_session
from qs.kvm import decide, kvm_probe
from qs.net import Nic
from qs.qemu import EXIT_PASS, STATUS_BY_CODE, qemu_command
from qs.scenario import run_scenario, scenarios
from qs.symbolize import symbolize, symbolize_file

# Scripts written against the single-module qrun (`import qrun; qrun.boot(...)`)
# keep working: the names they used, from where they live now.
from qs import ktap
from qs.boot import BootResult, boot_image, boot_pair
from qs.build import build, configure
from qs.kvm import accel_notes
from qs.log import parse_console
from qs.net import free_udp_port
from qs.qemu import EXIT_FAIL, EXIT_PANIC
from qs.scenario import Scenario, check_online, load_scenarios


def _build_dir_image(build_dir, boot_kind):
    bdir = Path(build_dir)
    if not bdir.is_absolute():
        bdir = REPO / bdir
    elf = bdir / "quiescent.elf"
    img = bdir / "quiescent.iso" if boot_kind == "iso" else elf
    for f in {elf, img}:
        if not f.exists():
            raise SystemExit(f"qrun: {f} does not exist; build it first (make O={build_dir})")
    return elf, img


def cmd_run(a):
    elf, img = _build_dir_image(a.build_dir, a.boot)
    # (No KVM probe in the deterministic mode: qemu_command() runs TCG.)
    acc = decide("0" if replay.enabled() else a.kvm, elf)
    cmd = qemu_command(img, boot=a.boot, cpus=a.cpus, cmdline=a.args, accel=acc.accel, cpu=acc.cpu,
                       serial="mon:stdio", nics=nics_of(a))
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


def net_arg(p):
    p.add_argument("--net", choices=("none", "user"), default="none",
                   help="user: an e1000 on QEMU user networking (restrict=on), as a "
                        "scenario's net = 'user'; the guest is 10.0.2.15, the gateway 10.0.2.2")


def nics_of(a):
    return [Nic("user")] if a.net == "user" else None


def cmd_boot(a):
    try:
        r = boot(name=a.name, defconfig=a.config, options=a.option, boot=a.boot, cpus=a.cpus,
                 cmdline=a.args, timeout=a.timeout, kvm=a.kvm, echo=a.verbose,
                 nics=nics_of(a))
    except BuildError as e:
        print(f"FAIL  {a.name}: {e}")
        return 2
    ok, why = r.verdict(a.expect)
    why += r.banner_problems()
    why += r.console_problems(a.expect, a.expect_console)
    ok = not why
    why += replay.failure_lines(Scenario(name=a.name, config=a.config, options=a.option,
                                         cpus=a.cpus, boot=a.boot, cmdline=a.args,
                                         expect=a.expect, timeout=a.timeout), r, why)
    line = summary_line(r, a.name, a.expect)
    elf = REPO / "build" / a.name / "quiescent.elf"
    if not ok:
        sym = symbolize_file(r.log_path, elf)       # file:line for a failed boot's addresses
        if sym:
            why.append(f"symbolized log: {os.path.relpath(sym, REPO)}")
    print(line if ok else "FAIL " + line[5:])
    for w in why:
        print(f"      {w}")
    if not ok and not a.verbose:
        print("      last console lines:\n" + "\n".join("        " + line for line in
                                                       symbolize(r.tail(15), elf).split("\n")))
    return 0 if ok else 1


def cmd_scenario(a):
    try:
        cases = scenarios(a.scenarios or ["*"])
    except ValueError as e:
        raise SystemExit(f"qrun: {e}")
    if not cases:
        raise SystemExit("qrun: no scenario matched")
    if a.list:
        for sc in cases:
            print(f"{sc.name:34} {os.path.relpath(sc.path, REPO)}")
        return 0
    failed = 0
    for rep in range(a.repeat):
        for sc in cases:
            try:
                _, why, line = run_scenario(sc, kvm=a.kvm, cache=False, echo=a.verbose)
            except BuildError as e:
                why, line = [str(e)], f"FAIL  {sc.name}: build failed"
            except replay.DeterminismError as e:
                # (A network case: one refusal, not the end of the run.)
                print(f"SKIP  {sc.name}: {e}", flush=True)
                continue
            print(line, flush=True)
            for w in why[1:] if a.quiet else why:
                print(f"      {w}")
            failed += bool(why)
    print(f"qrun: {len(cases) * a.repeat - failed} of {len(cases) * a.repeat} scenario runs passed")
    return 1 if failed else 0


def cmd_kvm_probe(a):
    elf, _ = _build_dir_image(a.build_dir, "kernel")
    d = kvm_probe(elf, force=True)
    for t in d.get("tried", ()):
        print(f"kvm: -cpu {t['cpu']}: {t['result']}")
    for acc in ("kvm", "tcg"):
        if d.get(acc):
            print(f"kvm: bench_accel under {acc.upper()}: "
                  + ", ".join(f"{op} {ns:.2f} ns" for op, ns in d[acc].items()))
    print(f"kvm: {'usable' if d['ok'] else 'not usable'} ({d['reason']})")
    return 0 if d["ok"] else 1


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
    p.add_argument("--kvm", default="auto", help="0, 1, auto (default) or force (qs/kvm.py)")
    net_arg(p)
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
    p.add_argument("--expect-console", action="append", default=[], metavar="REGEX",
                   help="a WARNING/BUG/Call Trace/panic/stall line this boot may print "
                        "(any other fails it; qs.judge)")
    net_arg(p)
    p.add_argument("-v", "--verbose", action="store_true", help="echo the console")
    p.set_defaults(fn=cmd_boot)

    p = sub.add_parser("scenario", help="run scenario cases (names, globs or .toml files)")
    p.add_argument("scenarios", nargs="*")
    p.add_argument("--kvm", default=os.environ.get("KVM", "auto"))
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--list", action="store_true", help="list the matching cases, run nothing")
    p.add_argument("-q", "--quiet", action="store_true")
    p.add_argument("-v", "--verbose", action="store_true", help="echo the console")
    p.set_defaults(fn=cmd_scenario)

    p = sub.add_parser("kvm-probe", help="probe KVM again and cache the verdict")
    p.add_argument("--build-dir", default="build")
    p.set_defaults(fn=cmd_kvm_probe)

    for p in sub.choices.values():
        p.add_argument("--deterministic", action="store_true",
                       help="the deterministic mode (docs/replay.md)")
        p.add_argument("--shift", type=int, default=None, help="its -icount shift")
    a = ap.parse_args(argv)
    if a.deterministic or a.shift is not None:
        replay.enable(a.deterministic or replay.enabled(), a.shift)
    return a.fn(a)


if __name__ == "__main__":
    sys.exit(main())
