#!/usr/bin/env python3
"""Which functions of kernel/fs, kernel/proc, kernel/ipc, kernel/net and
kernel/module a set of PCs reached (docs/kcov.md; library: tools/qs/kcov.py).

    tools/kcov_report.py report --elf build/kcov/quiescent.elf console.txt [pcs.txt ...]
    tools/kcov_report.py report --elf ELF --unreached --exclude-tests pcs.txt
    tools/kcov_report.py suite [SCENARIO_GLOB ...] [--configs defconfig,...] [-o build/coverage]

`report` reads PCs from each file: a console log with `kcov: pc` lines or
kcov.all=1's `kcov: map` dump, or bare hex addresses one a line (what a
fuzzer writes), and prints per file the functions and basic blocks
reached, with percentages, and per area a total. --unreached lists the
functions no PC reached; --exclude-tests leaves out the kernel's own
tests and benchmarks (*_test.c, *_bench.c, *_stress.c), which only
ktest= reaches.

`suite` (make coverage) boots the scenarios of make test (those not
marked full, not soak-*, one guest each; net pairs are left out) with CONFIG_KCOV=y
added to each one's build and kcov.all=1 to its command line, and adds
up what each reached. It writes build/coverage/report.txt (the table,
with the unreached functions), cases.txt (each case, its build, its
verdict and its blocks), pcs/<case>.txt (the blocks it reached, for
`report --elf build/<build>/quiescent.elf`) and prints the summary. A case that fails still
counts: coverage is what ran.
"""
import argparse
import fnmatch
import sys
import time
from pathlib import Path

from qs import REPO
from qs import kcov
from qs import scenario


def cmd_report(args):
    image = kcov.Image(args.elf)
    cov = kcov.Coverage()
    total = kcov.Pcs()
    for f in args.files:
        text = sys.stdin.read() if f == "-" else Path(f).read_text(errors="replace")
        pcs = kcov.pcs_from_text(text)
        total.exact |= pcs.exact
        total.rounded |= pcs.rounded
    if not len(total):
        print("kcov_report: no PCs in " + ", ".join(args.files), file=sys.stderr)
        return 1
    cov.add(image, total)
    print(kcov.table(cov, unreached=args.unreached, exclude_tests=args.exclude_tests))
    return 0


# The hook at every block about doubles the instructions a system call
# runs (docs/kcov.md); a case gets three times its timeout. KCOV is not
# a sanitizer: this is on top of CONFIG_SANITIZER_SLOWDOWN, which a KASAN
# or KCSAN case's .config adds when it boots (qs.scenario).
SLOWDOWN = 3


def suite_cases(patterns, configs):
    out = []
    for sc in scenario.scenarios(tuple(patterns) or ("*",)):
        if sc.full or sc.net == "pair" or sc.name.startswith("soak-"):
            continue            # as tests/test_scenarios.py: soak-* are make soak's
        if configs and sc.config not in configs:
            continue
        sc.options = sorted(set(sc.options) | {"CONFIG_KCOV=y"})
        sc.cmdline = scenario.add_kernel_args(sc.cmdline, "kcov.all=1")
        sc.timeout *= SLOWDOWN
        out.append(sc)
    return out


def cmd_suite(args):
    configs = [c for c in args.configs.split(",") if c] if args.configs else []
    cases = suite_cases(args.patterns, configs)
    if args.exclude:
        cases = [sc for sc in cases if not any(fnmatch.fnmatch(sc.name, x) for x in args.exclude)]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    cov, images = kcov.Coverage(), {}
    lines = []
    t0 = time.monotonic()
    print(f"kcov_report: {len(cases)} cases", flush=True)
    for i, sc in enumerate(cases, 1):
        r, why, line = scenario.run_scenario(sc, kvm=args.kvm, stop_early=True)
        text = Path(r.log_path).read_text(errors="replace") if r.log_path else ""
        pcs = kcov.pcs_from_text(text)
        elf = kcov.elf_of(sc.build_name)
        key = (sc.build_name, elf.stat().st_mtime_ns)   # a rebuild moves every address
        if key not in images:
            images[key] = kcov.Image(elf)
        image = images[key]
        before = len(cov.reached)
        cov.add(image, pcs)
        hit = image.hit(pcs)
        # The blocks as exact PCs, for `report` against this build's ELF.
        (out / "pcs").mkdir(exist_ok=True)
        (out / "pcs" / f"{sc.name}.txt").write_text("".join(f"{p:x}\n" for p in sorted(hit)))
        note = "" if pcs.dumps else " (no kcov.all dump: the run did not reach qemu_exit())"
        verdict = "fail" if why else "pass"
        lines.append(f"{sc.name}\t{sc.build_name}\t{verdict}\t{len(hit)} blocks\t"
                     f"+{len(cov.reached) - before} new{note}")
        print(f"[{i}/{len(cases)} {time.monotonic() - t0:6.0f}s] {line.split('  log=')[0]}"
              f"  +{len(cov.reached) - before} blocks{note}", flush=True)
    (out / "cases.txt").write_text("\n".join(lines) + "\n")
    report = kcov.table(cov, unreached=True, exclude_tests=args.exclude_tests)
    summ = kcov.summary(cov, exclude_tests=args.exclude_tests)
    if not args.exclude_tests:
        summ += ["without the kernel's own tests and benchmarks (*_test.c, *_bench.c, *_stress.c):"]
        summ += ["  " + x for x in kcov.summary(cov, exclude_tests=True)]
    (out / "report.txt").write_text(
        f"Coverage of {len(cases)} scenario cases of make test under KCOV (kcov.all=1)"
        f"{', configurations ' + ','.join(configs) if configs else ''}\n\n"
        + report + "\n\n" + "\n".join(summ) + "\n")
    print("\n".join(summ))
    print(f"kcov_report: {out / 'report.txt'}")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("report", help="a table of what the PCs in FILES reached")
    r.add_argument("--elf", required=True, help="the kernel image the PCs are from")
    r.add_argument("--unreached", action="store_true", help="list the functions never reached")
    r.add_argument("--exclude-tests", action="store_true", help="leave out *_test.c, *_bench.c, *_stress.c")
    r.add_argument("files", nargs="+", help="console logs or PC lists ('-': stdin)")
    s = sub.add_parser("suite", help="boot make test's scenarios under KCOV, report the union")
    s.add_argument("patterns", nargs="*", help="scenario globs (default: all)")
    s.add_argument("--configs", default="", help="only cases of these defconfigs (comma-separated)")
    s.add_argument("--exclude", action="append", default=[], help="leave out cases matching this glob")
    s.add_argument("--exclude-tests", action="store_true")
    s.add_argument("-o", "--out", default=str(REPO / "build" / "coverage"))
    s.add_argument("--kvm", default="0")
    args = ap.parse_args()
    return cmd_report(args) if args.cmd == "report" else cmd_suite(args)


if __name__ == "__main__":
    sys.exit(main())
