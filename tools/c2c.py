#!/usr/bin/env python3
"""Cache-line transfers of a benchmark boot, counted by the coherence
plugin (tools/c2c/c2c.c) and reported in the manner of `perf c2c report`
(docs/figures.md, "Cache-line transfers"):

  c2c.py run CASE [--cpus N]    build, boot CASE under the plugin, write
                                build/c2c/CASE-smpN/{c2c.out,report.txt,report.json}
                                and keep the kernel there (quiescent.elf)
  c2c.py report C2C.OUT --elf ELF [--bench results.json]
  c2c.py compare build/figures/figures.json [--machine bdw]
                                one table: timed against modelled efficiency
  c2c.py qslines [--variants ltimer,tree] [--cpus 4] [--gps 20]
                                each RCU variant's quiescent-state and grace-
                                period lines, a boot each (docs/rcu/qs-lines.md):
                                build/c2c/qslines-smpN/{report.txt,table.md,
                                gp-transfers.png}

CASE: hashlookup (seed 001's benchmarklet, read-only cells), hashlookup-all
(Figure 5 too), route (the route cache), semop (semopbench, ipc=global and
then ipc=rcu), counters (the known-behaviour ktests c2c_*), qslines
(bench_qs_lines on defconfig's variant; the qslines command boots each).
"""
import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from qs import REPO
from qs.boot import boot
from qs.c2c import PLUGIN, Counts, Elf, report_text
from qs.net import Nic

NOPOISON = ["# CONFIG_DEBUG_KMALLOC_POISON is not set"]
CASES = {
    # name: (build, options, command line, nics)
    "hashlookup": ("figures-defconfig", NOPOISON,
                   "ktest=bench_hashlookup hashlookup.quick=1 hashlookup.passes=1 hashlookup.figs=1 "
                   "hashlookup.ms=200",
                   None),
    "hashlookup-all": ("figures-defconfig", NOPOISON,
                       "ktest=bench_hashlookup hashlookup.quick=1 hashlookup.passes=1", None),
    "route": ("test-defconfig", (), "ip=10.0.2.15/24 ktest=bench_route_lookup route_bench.ms=50",
              "user"),
    "semop-global": ("test-defconfig", (), "ipc=global -- semopbench {cpus} 2000 c2c; poweroff", None),
    "semop": ("test-defconfig", (), "ipc=rcu -- semopbench {cpus} 2000 c2c; poweroff", None),
    "counters": ("figures-defconfig", NOPOISON, "ktest=c2c_*", None),
    # the lines each variant's quiescent states and grace periods write
    # (c2c.py qslines builds c2c-<variant> from configs/rcu_<variant>_defconfig)
    "qslines": ("c2c-qslines", NOPOISON, "ktest=bench_qs_lines", None),
    # tests/test_c2c.py's one boot: the counters, then the read-only cells
    # in fewer rounds
    "selftest": ("figures-defconfig", NOPOISON,
                 "ktest=c2c_*,bench_hashlookup hashlookup.quick=1 hashlookup.passes=1 "
                 "hashlookup.figs=1 hashlookup.c2c_rounds=40", None),
}


def plugin():
    # Under the build lock: two test workers' first boots under the plugin
    # would otherwise both compile it, and one QEMU could load the shared
    # object while the other's gcc is still writing it.
    from qs.build import build_lock
    with build_lock("c2c-plugin"):
        p = subprocess.run(["make", "--no-print-directory", "c2c-plugin"], cwd=REPO,
                           capture_output=True, text=True)
    if p.returncode:
        sys.exit(f"c2c: building the plugin failed:\n{p.stdout}{p.stderr}")
    return PLUGIN


def mark_address(elf):
    out = subprocess.run(["nm", str(elf)], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[2] == "c2c_mark_area":
            return f[0]
    return None


CELL_LINE = re.compile(r"c2c cell (\d+): (.+), (\d+) [a-z]+\r?$", re.M)


def bench_cells(bench, log=""):
    """cell number -> operations, and a label, from the BENCH lines that name
    one and the console's "c2c cell N: label, M lookups" lines."""
    ops = {}
    for m in CELL_LINE.finditer(log or ""):
        ops[int(m.group(1))] = int(m.group(3))
        ops[("label", int(m.group(1)))] = m.group(2)
    for b in bench:
        if "c2c_cell" in b and b.get("ops"):
            ops[b["c2c_cell"]] = b["ops"]
            ops[("label", b["c2c_cell"])] = (f"{b.get('discipline', b.get('bench'))} "
                                             f"{b.get('cpus', '?')}cpu "
                                             f"u{b.get('update_permille', 0)}")
    return ops


def boot_case(case, cpus, out_dir, use_plugin=True, timeout=900, lines_log2=22, name=None,
              args="", detail=True, defconfig="defconfig", all_lines=False):
    """Boot CASE under the plugin (use_plugin=False: the same boot without
    it, for its cost); name: another build of defconfig (the tests use
    make test's own, with kmalloc poisoning, which the cases here do not
    mind); args: more of the command line; detail=False: the cells' counts
    only, no line views (the modelled figures need no more, and Figure 5's
    updates would fill hundreds of megabytes with them); defconfig: the
    configuration name builds from; all_lines: the line views keep the
    lines inside cells that never moved too (the plugin's all=1)."""
    bname, options, cmdline, nic = CASES[case]
    if name:
        bname, options = name, ()
    name = bname
    cmdline = cmdline.format(cpus=cpus)
    if args:
        cmdline = cmdline.replace(" -- ", f" {args} -- ") if " -- " in cmdline else f"{cmdline} {args}"
    from qs.build import build
    elf = build(name, defconfig, list(options))
    extra = []
    out = out_dir / "c2c.out"
    if use_plugin:
        mark = mark_address(elf)
        if not mark:
            sys.exit(f"c2c: {elf} has no c2c_mark_area")
        if out.exists():
            out.unlink()
        # the detail table is keyed by line, instruction, vCPU and cell: it
        # grows with the vCPUs (2^21 entries of 32 bytes at 2, 2^24 at 16)
        detail = min(24, 19 + cpus.bit_length()) if detail else 0
        extra = ["-plugin", f"{plugin()},out={out},mark={mark},lines={lines_log2},detail={detail}"
                 f"{',all=1' if all_lines else ''}"]
        cmdline = cmdline.replace(" -- ", " c2c=1 -- ") if " -- " in cmdline else cmdline + " c2c=1"
    t0 = time.time()
    r = boot(name=name, defconfig=defconfig, options=list(options), boot="kernel", cpus=cpus,
             cmdline=cmdline, timeout=timeout, kvm="0", label=f"c2c-{case}-smp{cpus}",
             extra=extra, nics=[Nic(nic, dump=False)] if nic else None)
    return r, elf, out, time.time() - t0


def cmd_run(a):
    out_dir = REPO / "build" / "c2c" / f"{a.case}-smp{a.cpus}"
    out_dir.mkdir(parents=True, exist_ok=True)
    r, elf, out, secs = boot_case(a.case, a.cpus, out_dir)
    if r.status not in ("pass", "poweroff") or not out.exists():
        sys.exit(f"c2c: the boot ended {r.status}; see {r.log_path}")
    # the kernel the counts are of, kept beside them: a later build moves
    # every address, and `c2c.py report` must name lines with this one
    shutil.copyfile(elf, out_dir / "quiescent.elf")
    elf = out_dir / "quiescent.elf"
    counts = Counts(out)
    if counts.drops.get("detail"):
        print(f"c2c: the detail table was full ({counts.drops['detail']} accesses not in the "
              "line views; the cells' counts are whole)", file=sys.stderr)
    ops = bench_cells(r.console.bench, r.log)
    text, lines = report_text(counts, Elf(elf), top=a.top, cell_ops=ops, only=a.only)
    (out_dir / "report.txt").write_text(text)
    (out_dir / "report.json").write_text(json.dumps({
        "case": a.case, "cpus": a.cpus, "boot_s": round(secs, 1), "log": str(r.log_path),
        "cells": [{**c, "ops": ops.get(cid), "bench_label": ops.get(("label", cid))}
                  for cid, c in sorted(counts.cells.items())],
        "lines": lines}, indent=1, default=str))
    sys.stdout.write(text)
    print(f"\nc2c: {out_dir}/report.txt (boot {secs:.1f} s under the plugin; log {r.log_path})")


def qslines_boot(variant, cpus, gps=20):
    """One boot of ktest=bench_qs_lines on configs/rcu_<variant>_defconfig
    under the plugin, every line kept (all=1): the lines of the variant's
    own data the window wrote (qs.c2c.rcu_lines), and the transfers a grace
    period on them and by its code; written to qslines.json beside the
    counts."""
    from qs.c2c import code_xfers, rcu_lines
    out_dir = REPO / "build" / "c2c" / f"qslines-smp{cpus}" / variant
    out_dir.mkdir(parents=True, exist_ok=True)
    r, elf, out, secs = boot_case("qslines", cpus, out_dir, name=f"c2c-{variant}",
                                  defconfig=f"rcu_{variant}_defconfig", all_lines=True,
                                  args=f"bench.qs_gps={gps}", timeout=600)
    if r.status != "pass" or not out.exists():
        sys.exit(f"c2c: {variant}: the boot ended {r.status}; see {r.log_path}")
    shutil.copyfile(elf, out_dir / "quiescent.elf")
    (b,) = [b for b in r.console.bench if b.get("bench") == "qs_lines"]
    counts = Counts(out)
    named = Elf(out_dir / "quiescent.elf")
    lines = rcu_lines(counts, named, b["c2c_cell"], elf.parent)
    gps = b["grace_periods"] or 1
    shared = [e for e in lines.values() if len(e["writers"]) > 1]
    summary = {
        "variant": variant, "cpus": cpus, "grace_periods": b["grace_periods"],
        "boot_s": round(secs, 1), "log": str(r.log_path),
        "private_lines": sum(len(e["writers"]) == 1 for e in lines.values()),
        "shared_lines": len(shared),
        "max_writers": max((len(e["writers"]) for e in shared), default=0),
        "lines_xfer_per_gp": sum(e["xfer"] for e in lines.values()) / gps,
        "code_xfer_per_gp": code_xfers(counts, named, b["c2c_cell"], elf.parent) / gps,
        "lines": [{k: sorted(v) if isinstance(v, set) else
                   {c: sorted(f) for c, f in v.items()} if k in ("by_cpu", "stores_at") else v
                   for k, v in e.items() if k not in ("names", "offs")}
                  for e in sorted(lines.values(), key=lambda e: -e["xfer"])]}
    (out_dir / "qslines.json").write_text(json.dumps(summary, indent=1))
    return summary


def qslines_table(summaries):
    """The plugin's table: per variant, the lines of its own state the window
    wrote, and the transfers a grace period."""
    out = ["| variant | CPUs | grace periods | private lines (one CPU wrote each) | shared "
           "lines (2+ CPUs wrote each) | most CPUs on one line | transfers a GP on its "
           "lines | transfers a GP by its code |", "|" + " --- |" * 8]
    for d in summaries:
        out.append(f"| {d['variant']} | {d['cpus']} | {d['grace_periods']} | {d['private_lines']} | "
                   f"{d['shared_lines']} | {d['max_writers']} | {d['lines_xfer_per_gp']:.1f} | "
                   f"{d['code_xfer_per_gp']:.1f} |")
    return "\n".join(out) + "\n"


def qslines_figure(summaries, path):
    """Transfers a grace period per variant, on its own lines and by its code."""
    sys.path.insert(0, str(REPO / "tools"))
    from figs import pyplot, save
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    names = [d["variant"] for d in summaries]
    xs = range(len(names))
    ax.bar([x - 0.2 for x in xs], [d["lines_xfer_per_gp"] for d in summaries], 0.4,
           label="on the variant's own lines")
    ax.bar([x + 0.2 for x in xs], [d["code_xfer_per_gp"] for d in summaries], 0.4,
           label="by the variant's code, any line")
    ax.set_xticks(list(xs))
    ax.set_xticklabels(names, rotation=30, fontsize=7)
    ax.set_ylabel("cache-line transfers a grace period")
    cpus = summaries[0]["cpus"] if summaries else "?"
    ax.set_title(f"Grace-period machinery, counted by the coherence plugin (-smp {cpus})")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=7)
    return save(fig, path)


def cmd_qslines(a):
    """Per variant, the lines of its own state its quiescent states and
    grace periods wrote, and the transfers a grace period (make c2c
    CASE=qslines): a table, each variant's lines, and a figure."""
    top = REPO / "build" / "c2c" / f"qslines-smp{a.cpus}"
    summaries = []
    for v in a.variants.split(","):
        d = qslines_boot(v, a.cpus, a.gps)
        summaries.append(d)
        print(f"c2c: {v}: {len(d['lines'])} lines of its state written in "
              f"{d['grace_periods']} grace periods, boot {d['boot_s']:.0f} s", file=sys.stderr)
    text = [qslines_table(summaries)]
    for d in summaries:
        text.append(f"\n{d['variant']}: the lines written, most transferred first\n")
        for e in d["lines"]:
            text.append(f"  {e['name']}: CPUs {e['writers']} stored {e['stores']} times, "
                        f"{e['xfer']} transfers, by {' '.join(e['functions'])}\n")
    (top / "table.md").write_text(text[0])
    (top / "report.txt").write_text("".join(text))
    png = qslines_figure(summaries, top / "gp-transfers.png")
    sys.stdout.write("".join(text))
    print(f"\nc2c: {top}/report.txt, {top}/{png}", file=sys.stderr)


def cmd_report(a):
    bench, log = [], ""
    if a.bench:
        bench = json.loads(Path(a.bench).read_text())
        if isinstance(bench, dict):
            log = Path(bench["log"]).read_text(errors="replace") if bench.get("log") else ""
            bench = bench.get("bench", [])
    text, _ = report_text(Counts(a.counts), Elf(a.elf), top=a.top, cell_ops=bench_cells(bench, log),
                          only=a.only)
    sys.stdout.write(text)


def cmd_compare(a):
    """One table: per discipline and CPU count, the timed efficiency (its
    k-CPU rate over k times its 1-CPU rate) beside the modelled one, from
    a figures.json whose hash-lookup part has both (make figures)."""
    from qs import costmodel
    doc = json.loads(Path(a.figures).read_text())
    data = doc["parts"]["hashlookup"]["data"]
    timed = {}
    for b in data["cells"]:
        if b["figure"] == "1,4":
            timed.setdefault(b["discipline"], {})[b["cpus"]] = b["ops_per_s"]
    model = {}
    for c in (data.get("model") or {}).get("cells", []):
        if c["figure"] == "1,4":
            model.setdefault(c["discipline"], {})[c["cpus"]] = c["per_op"]
    ks = sorted({k for r in timed.values() for k in r} | {k for r in model.values() for k in r})
    ks = [k for k in ks if k in (1, 2, 4, 8, 16) or k == ks[-1]]
    accel = data.get("boot", {}).get("accel", "?")
    lines = [f"# Hash lookups: timed ({accel}) against modelled ({a.machine}: "
             f"{costmodel.MACHINES[a.machine]['name']}), efficiency = k-CPU rate / (k x 1-CPU rate)",
             "", "| discipline | " + " | ".join(f"{k} CPUs timed | {k} modelled | {k} xfer/lookup"
                                                for k in ks) + " |",
             "| --- |" + " --- | --- | --- |" * len(ks)]
    for d in ("ideal", "rcu", "brlock", "spinlock", "refcnt", "rwlock"):
        row = [d]
        for k in ks:
            t = timed.get(d, {})
            m = model.get(d, {})
            row.append(f"{100 * t[k] / (k * t[1]):.0f}%" if k in t and 1 in t and t[1] else "?")
            row.append(f"{100 * costmodel.efficiency(m[1], m[k], a.machine):.0f}%"
                       if k in m and 1 in m else "?")
            row.append(f"{m[k]['xfer']:.3f}" if k in m else "?")
        lines.append("| " + " | ".join(row) + " |")
    text = "\n".join(lines) + "\n"
    if a.out:
        Path(a.out).write_text(text)
    sys.stdout.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("case", choices=sorted(CASES))
    r.add_argument("--cpus", type=int, default=2)
    r.add_argument("--top", type=int, default=10)
    r.add_argument("--only", help="the line view for the cells with this word in their label "
                   "(a discipline: rwlock)")
    r.set_defaults(fn=cmd_run)
    p = sub.add_parser("report")
    p.add_argument("counts")
    p.add_argument("--elf", required=True)
    p.add_argument("--bench", help="a boot's results JSON (its BENCH lines)")
    p.add_argument("--top", type=int, default=10)
    p.add_argument("--only", help="as for run")
    p.set_defaults(fn=cmd_report)
    q = sub.add_parser("qslines")
    q.add_argument("--variants", default="ltimer,xrcu,krcud,preempt,poll,poll_percpu,taskq,sched,tree")
    q.add_argument("--cpus", type=int, default=4)
    q.add_argument("--gps", type=int, default=20)
    q.set_defaults(fn=cmd_qslines)
    c = sub.add_parser("compare")
    c.add_argument("figures", help="a figures.json with the hash-lookup part (make figures)")
    c.add_argument("--machine", default="bdw", help="the cost model's column (tools/qs/costmodel.py)")
    c.add_argument("--out")
    c.set_defaults(fn=cmd_compare)
    a = ap.parse_args()
    a.fn(a)


if __name__ == "__main__":
    main()
