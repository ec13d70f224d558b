"""The route cache (seed 000 section 2.4, Figure 6: ip_route_output_key()
speedup under RCU by CPUs): rcu against rwlock against no cache, from
tools/rtbench.py (`make rtbench`)."""
from qs import REPO

from figs import Section, boot_facts
from figs.doc import Doc

from qs import rtbench as tool

KEY = "route"
TITLE = "Seed 000 Figure 6: the IP route cache, rcu against rwlock"


def available():
    if not (REPO / "tools" / "rtbench.py").exists() or not (REPO / "kernel" / "net" / "route_bench.c").exists():
        return False, "no tools/rtbench.py or kernel/net/route_bench.c"
    return True, ""


def collect(ctx):
    ms = 50 if ctx.quick else 100
    rows, r = tool.measure("defconfig", ctx.cpus, ms, ctx.kvm)
    from figs import routemodel
    return dict(rows=tool.median_rows([rows]), ms=ms, boot=boot_facts(r),
                model=routemodel.collect(ctx))       # the same cells, counted and modelled


def render(data, ctx, out):
    rows, b = data["rows"], data["boot"]
    doc = Doc()
    s = Section(KEY, TITLE, doc, runs=[b])
    lines = []
    pcts, cpus, cell = tool.table(rows, emit=lines.append)
    doc.p(f"`tools/rtbench.py` (`make rtbench`): one boot of `defconfig` ({b['variant']}, "
          f"{b['accel']}, -smp {b['cpus']}) with an interface; every CPU calls "
          f"`ip_route_output_key()` and `ip_rt_put()` for {data['ms']} ms a cell, each cache "
          "mode (rcu: seed 000 2.4; rwlock: Linux 2.4; off: no cache) twice and the better kept. "
          "The paper's Figure 6 plots the RCU cache's speedup of `ip_route_output_key()` for a "
          "fixed packet workload on 1 to 8 CPUs of a 700 MHz Pentium III Xeon: it grows with "
          "the CPUs.")
    png = "seed000-fig6-route.png"
    tool.plot(pcts, cpus, cell, f"route cache lookups: {b['variant']}, {b['accel']}, -smp {b['cpus']}",
              out / png)
    s.pngs.append(png)
    doc.img(png, "seed 000 Figure 6's comparison: route lookups per second by CPUs, per hit ratio")
    top = max(pcts)
    rr = [cell[("rcu", top, c)]["lookups_per_s"] / max(cell[("rwlock", top, c)]["lookups_per_s"], 1)
          for c in cpus]
    doc.table(["CPUs"] + [str(c) for c in cpus],
              [[f"rcu ÷ rwlock, {top}% hits"] + [f"{x:.2f}" for x in rr]])
    if len(cpus) > 1:
        grows = rr[-1] > rr[0]
        doc.p(f"With every lookup a hit, the RCU cache's advantage over the rwlock goes from "
              f"{rr[0]:.2f} × on one CPU to {rr[-1]:.2f} × on {cpus[-1]}"
              + (", growing with the CPUs as in the paper's Figure 6, whose 8 CPUs widen it "
                 "further." if grows else
                 ": not the paper's growth, because the rwlock's shared line only bounces "
                 "between CPUs the host actually runs at once, and here it did not run them "
                 "all at once."))
    doc.p("The table as `make rtbench` prints it (lookups a second):")
    doc.pre("\n".join(lines))
    from figs import routemodel
    routemodel.render(doc, s, data.get("model"), out)
    return s
