#!/usr/bin/env python3
"""make fuzz: syzq, the coverage-guided fuzzer, booted until DURATION is
spent, with its corpus kept in build/fuzz/ and each new crash reproduced,
reduced and written as a C program (docs/fuzzing.md; the work is in
tools/qs/fuzz.py).

    tools/fuzz.py --duration 5m --cpus 2
    tools/fuzz.py --duration 2m --variants prove,kasan      # KASAN boots take turns
    tools/fuzz.py --duration 1m --args fault=kill_signal_queued:warn   # the planted bug
    tools/fuzz.py --duration 0 --coverage     # the corpus's coverage, build/fuzz/coverage.txt

Exit status: 0 when no crash was found, 1 when one was (each listed with
its folder), 2 when something else went wrong.
"""
import argparse
import sys

from qs import REPO
from qs.build import BuildError
from qs.fuzz import VARIANTS, WORK, Fuzzer


def seconds(text):
    """30, 30s, 5m, 1h."""
    mult = {"s": 1, "m": 60, "h": 3600}
    t = text.strip()
    return int(float(t[:-1]) * mult[t[-1]]) if t[-1] in mult else int(t)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--duration", default="5m", help="time in all: 30s, 5m, 1h (default 5m)")
    ap.add_argument("--cpus", type=int, default=2, help="guest CPUs, one syzq worker each")
    ap.add_argument("--variants", default="prove",
                    help=f"builds that take turns, comma-separated: {', '.join(VARIANTS)} "
                         "(every one has PROVE_RCU and lockdep)")
    ap.add_argument("--args", default="", help="kernel command line (before the script)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-reduce", action="store_true", help="save crashes, do not reduce them")
    ap.add_argument("--work", default=str(WORK), help="corpus and crashes (default build/fuzz)")
    ap.add_argument("--coverage", action="store_true",
                    help="then replay the corpus once with KCOV and write coverage.txt: the "
                         "functions and blocks it reaches, per file (--duration 0: only that)")
    a = ap.parse_args(argv)
    variants = [v for v in a.variants.split(",") if v]
    bad = [v for v in variants if v not in VARIANTS]
    if bad or not variants:
        ap.error(f"--variants: {', '.join(bad) or 'none'}: the choices are {', '.join(VARIANTS)}")
    fz = Fuzzer(cpus=a.cpus, variants=variants, args=a.args, seed=a.seed, work=a.work,
                reduce=not a.no_reduce, say=lambda s: print(s, flush=True))
    print(f"fuzz: {len(fz.corpus)} programs in the corpus ({fz.corpus_path})", flush=True)
    try:
        fz.run(seconds(a.duration))
    except BuildError as e:
        print(f"fuzz: build failed: {e}")
        return 2
    if a.coverage:
        try:
            for line in fz.coverage(variants[0]):
                print(f"fuzz: coverage: {line}")
        except (BuildError, RuntimeError) as e:
            print(f"fuzz: coverage: {e}")
            return 2
        print(f"fuzz: coverage: the table, with what was never reached: {fz.work / 'coverage.txt'}")
    print(f"fuzz: {fz.boots} boots; corpus {len(fz.corpus)} programs; last: {fz.last_progress}")
    for c in fz.crashes:
        where = c.dir.relative_to(REPO) if c.dir.is_relative_to(REPO) else c.dir
        print(f"fuzz: crash: {c.title} ({c.count} boot{'s' if c.count > 1 else ''})\n      {where}" + (f"\n      reproducer: {c.repro}" if c.repro else "")
              + (f"\n      C: {c.c_path.name} ({'reproduces' if c.c_reproduces else 'does not reproduce'})"
                 if c.c_path else ""))
    return 1 if fz.crashes else 0


if __name__ == "__main__":
    sys.exit(main())
