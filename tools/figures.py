#!/usr/bin/env python3
"""Every reproduced paper figure in one report (make figures;
docs/figures.md).

Boots what each part needs, draws a PNG in the manner of each paper
figure, and writes one report, build/figures/report.md and report.html,
with the paper's numbers beside ours and one sentence on each
difference, and the machine it ran on. The parts (tools/figs/, picked up
when their tool and benchmark exist in the tree):

  hashlookup  seed 001 Figures 1, 4, 5 and Table 1  (kernel/bench/bench_hashlookup.c,
                                                     bench_opcost.c)
  variants    seed 000 Figures 9-10 and Table 2      (tools/compare.py, make compare)
  thennow     2002 against today, 1-8 CPUs           (tools/qs/thennow.py, bench_rcu_*)
  realtime    seed 003 Table 1                        (tools/amlat.py, make amlat)
  ipc         seed 004 Table 5                        (tools/semopbench.py, make semopbench)
  route       seed 000 Figure 6, the route cache      (tools/rtbench.py, make rtbench)
  chat        seed 000 Figure 11, the chat benchmark  (tools/chatbench.py, make chatbench)

  tools/figures.py [--cpus N] [--quick] [--kvm 0|1|force] [--parts hashlookup,ipc] [--out DIR]
  tools/figures.py --report-only [--out DIR]       redraw from DIR/figures.json, no boot
  tools/figures.py --publish docs/figures          also copy the report and PNGs there
  make figures [CPUS=N] [QUICK=1] [KVM=1]         CPUS defaults to the host's cores

KVM=1 boots every part under KVM where the host's KVM runs kernel code
natively (tools/qs/kvm.py probes it once), under TCG otherwise, and the
report says per part which accelerator and CPU model each boot used, and
why a part fell back. The hash-lookup part then also boots under TCG and
sets the two rankings side by side.

--quick (QUICK=1) shortens every part. The data of each part goes to
DIR/figures.json as soon as it is measured. Exit status 1 if a part failed
(the report is written all the same).
"""
import argparse
import importlib
import json
import shutil
import sys
import time
import traceback
from pathlib import Path

from qs import REPO
from figs import Ctx, Section, Timer
from figs import machine as fmachine, report as freport
from figs.doc import Doc

PARTS = ["hashlookup", "variants", "thennow", "realtime", "ipc", "route", "dcache", "chat"]
OUT = REPO / "build" / "figures"


def load_parts(keys):
    """[(key, module or None, why not)] for the parts asked for."""
    out = []
    for key in keys:
        try:
            mod = importlib.import_module(f"figs.{key}")
        except ImportError as e:      # its tool is not in this tree
            out.append((key, None, f"not available: {e}"))
            continue
        ok, why = mod.available()
        out.append((key, mod if ok else None, "" if ok else f"not available: {why}"))
    return out


def collect(ctx, parts, store):
    """Run each part's boots; store[key] = dict(data, status, wall_s)."""
    for key, mod, why in parts:
        if mod is None:
            store[key] = dict(data=None, status=why, wall_s=None)
            continue
        print(f"figures: {key} ({mod.TITLE}) ...", file=sys.stderr)
        data, status = None, "ok"
        with Timer() as t:
            try:
                data = mod.collect(ctx)
                if data.get("error"):
                    status = f"failed: {data['error']}"
            except (Exception, SystemExit) as e:     # a tool's sys.exit() is a failure too
                status = f"failed: {type(e).__name__}: {e}"
                traceback.print_exc()
        store[key] = dict(data=data, status=status, wall_s=round(t.s, 1))
        print(f"figures: {key}: {status} in {t.s:.0f} s", file=sys.stderr)
        yield key


def render(ctx, parts, store):
    sections = []
    for key, mod, why in parts:
        got = store.get(key)
        if not got:
            continue
        title = mod.TITLE if mod else key
        if got["data"] is None:
            sections.append(Section(key, title, Doc(), status=got["status"], wall_s=got["wall_s"]))
            continue
        try:
            s = mod.render(got["data"], ctx, ctx.out)
        except Exception as e:
            traceback.print_exc()
            d = Doc()
            d.pre(traceback.format_exc())
            s = Section(key, title, d, status=f"failed to draw: {type(e).__name__}: {e}")
        if got["status"] != "ok":
            s.status = got["status"]
        s.wall_s = got["wall_s"]
        sections.append(s)
    return sections


def publish(ctx, sections, dest):
    """The report and its PNGs, copied to dest (docs/figures/)."""
    dest.mkdir(parents=True, exist_ok=True)
    for old in dest.glob("*.png"):
        old.unlink()
    for name in ["report.md", "report.html"] + [p for s in sections for p in s.pngs]:
        shutil.copy(ctx.out / name, dest / name)
    print(f"figures: published to {dest}", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cpus", type=int, default=fmachine.host_cores(),
                    help="virtual CPUs (default: the host's cores)")
    ap.add_argument("--quick", action="store_true", help="shorter runs for every part")
    ap.add_argument("--kvm", default="0",
                    help="0 (TCG, default); 1 or auto: KVM where the host's KVM runs kernel "
                         "code natively (qs.kvm's probe), else TCG, saying why; force: KVM "
                         "even where it emulates")
    ap.add_argument("--parts", default=",".join(PARTS), help=f"comma-separated, of {PARTS}")
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--report-only", action="store_true",
                    help="redraw the report from OUT/figures.json without booting")
    ap.add_argument("--publish", default="", help="also copy the report and PNGs to this folder")
    a = ap.parse_args()
    out = Path(a.out)
    if not out.is_absolute():
        out = Path.cwd() / out
    out.mkdir(parents=True, exist_ok=True)
    saved = out / "figures.json"

    if a.report_only:
        doc = json.loads(saved.read_text())
        meta, store = doc["meta"], doc["parts"]
        keys = [k for k in PARTS if k in store]
    else:
        keys = [k for k in a.parts.split(",") if k]
        bad = [k for k in keys if k not in PARTS]
        if bad:
            sys.exit(f"figures: no part {', '.join(bad)}; the parts are {', '.join(PARTS)}")
        if a.cpus < 1 or a.cpus > 16:
            sys.exit(f"figures: --cpus {a.cpus}: the kernel runs on 1 to 16 CPUs")
        for old in out.glob("*.png"):
            old.unlink()
        meta = dict(cpus=a.cpus, quick=a.quick, kvm=a.kvm, machine=fmachine.snapshot(),
                    command="make figures CPUS=%d%s%s" % (a.cpus, " QUICK=1" if a.quick else "",
                                                          "" if a.kvm == "0" else f" KVM={a.kvm}"))
        store = {}
    ctx = Ctx(cpus=meta["cpus"], quick=meta["quick"], kvm=meta["kvm"], out=out,
              host_cores=meta["machine"]["host_cores"])
    parts = load_parts(keys)

    if not a.report_only:
        t0 = time.monotonic()
        for _ in collect(ctx, parts, store):
            meta["wall_s"] = time.monotonic() - t0
            saved.write_text(json.dumps(dict(meta=meta, parts=store), indent=1) + "\n")
        meta["wall_s"] = time.monotonic() - t0
        meta["load_end"] = fmachine.load()
        meta["machine"]["kvm_probe"] = fmachine.kvm_probe_verdict()   # the probe may have run
        saved.write_text(json.dumps(dict(meta=meta, parts=store), indent=1) + "\n")

    sections = render(ctx, parts, store)
    md, html = freport.write(meta, sections, out)
    for s in sections:
        for t in s.targets:
            print(f"target: {s.key}: {t}")
    print(f"figures: {md} and {html} ({sum(len(s.pngs) for s in sections)} PNGs) after "
          f"{meta['wall_s'] / 60:.1f} minutes", file=sys.stderr)
    if a.publish:
        publish(ctx, sections, Path(a.publish))
    failed = [s.key for s in sections if s.status.startswith("failed")]
    if failed:
        print(f"figures: failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
