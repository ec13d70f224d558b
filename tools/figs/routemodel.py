"""Seed 000 Figure 6's comparison modelled from cache-line counts, beside
the timed one (tools/figs/route.py draws both): one boot of
bench_route_lookup under the coherence plugin, the CPUs in step
(route_bench.c2c_rounds), gives each cell's instructions, locked
operations, transfers and first touches per lookup, and the cost model
(tools/qs/costmodel.py) turns them into lookups a microsecond on seed
001 Table 1's Pentium III (the paper's Figure 6 ran on a 700 MHz Pentium
III Xeon too). The counts do not depend on the host's speed.
"""
import re
import sys

from qs import REPO
from qs import costmodel
from qs.c2c import Counts


ROUNDS = {True: 10, False: 20}   # quick or not: rounds of 256 lookups a CPU
MODES = {"rcu": ("tab:blue", "o", "-"), "rwlock": ("tab:red", "s", "--"),
         "off": ("tab:gray", "^", ":")}
LABEL = re.compile(r"route (\w+) (\d+)% (\d+)cpu")


def cells(counts, log):
    """[(mode, hit_pct, cpus, per_op)]: a cell's two passes summed (the
    benchmark runs each mode twice), per lookup."""
    sys.path.insert(0, str(REPO / "tools"))
    import c2c as tool
    ops = tool.bench_cells([], log)
    sums = {}
    for cid, c in counts.cells.items():
        m = LABEL.fullmatch(ops.get(("label", cid), ""))
        if not m or not ops.get(cid):
            continue
        key = (m.group(1), int(m.group(2)), int(m.group(3)))
        s = sums.setdefault(key, {"ops": 0, **{k: 0 for k in costmodel.COUNTS}})
        s["ops"] += ops[cid]
        for k in costmodel.COUNTS:
            s[k] += c[k]
    return [dict(mode=k[0], hit_pct=k[1], cpus=k[2], ops=s["ops"],
                 per_op=costmodel.per_op(s, s["ops"])) for k, s in sorted(sums.items())]


def collect(ctx):
    """The plugin boot: every route cell at max(CPUS, 4) virtual CPUs."""
    from figs.hlmodel import plugin_boot
    got = plugin_boot(ctx, "route", "figures-route", "route_bench.c2c_rounds", ROUNDS)
    if "error" in got:
        return got
    return dict(got["meta"], cells=cells(got["counts"], got["boot"].log))


def table(model, pct):
    """{mode: {cpus: cell}} at one hit ratio."""
    out = {}
    for c in model["cells"]:
        if c["hit_pct"] == pct:
            out.setdefault(c["mode"], {})[c["cpus"]] = c
    return out


def _plot(by_mode, pct, n, path):
    from figs.modelplot import throughput_plot
    return throughput_plot(
        [(m, col, mk, ls, {k: c["per_op"] for k, c in by_mode.get(m, {}).items()})
         for m, (col, mk, ls) in MODES.items()],
        "lookups per microsecond (all CPUs)",
        f"Route cache, modelled (Pentium III costs, {pct}% hits, counts at -smp {n})", path)


def render(doc, s, model, out):
    """The modelled subsection: a PNG labelled modelled, the transfers per
    lookup, and the modelled rcu-over-rwlock ratio by CPUs."""
    doc.h(3, "Modelled from cache-line counts")
    if not model or model.get("error"):
        doc.p("Not modelled: " + (model or {}).get("error", "no plugin boot in this run") + ".")
        return
    n = model["cpus"]
    pct = max(c["hit_pct"] for c in model["cells"])
    by_mode = table(model, pct)
    p3 = costmodel.MACHINES["p3"]
    doc.p(f"**Modelled, not timed.** One boot of `ktest=bench_route_lookup` at -smp {n} under the "
          f"coherence plugin (`make c2c CASE=route`, {model['rounds']} rounds of 256 lookups a CPU, "
          f"the CPUs in step; {model['boot_s']} s), each cell's counts per lookup priced by "
          f"tools/qs/costmodel.py with {p3['name']}'s costs (the band: a transfer at "
          f"{p3['transfer'][0]}-{p3['transfer'][1]} ns).")
    png = _plot(by_mode, pct, n, out / "seed000-fig6-route-model.png")
    s.pngs.append(png)
    doc.img(png, "seed 000 Figure 6's comparison, modelled from cache-line counts")
    ks = sorted({k for r in by_mode.values() for k in r})
    doc.table(["mode"] + [f"xfer/lookup, {k} CPU{'s' * (k > 1)}" for k in ks] +
              ["locked ops/lookup", "instructions/lookup"],
              [[m] + [f"{by_mode[m][k]['per_op']['xfer']:.3f}" if k in by_mode[m] else "?"
                      for k in ks] +
               [f"{by_mode[m][ks[0]]['per_op']['rmw']:.2f}",
                f"{by_mode[m][ks[0]]['per_op']['insns']:.0f}"]
               for m in MODES if m in by_mode])
    if "rcu" in by_mode and "rwlock" in by_mode:
        rr = [costmodel.throughput(by_mode["rcu"][k]["per_op"], k, "p3") /
              costmodel.throughput(by_mode["rwlock"][k]["per_op"], k, "p3")
              for k in ks if k in by_mode["rcu"] and k in by_mode["rwlock"]]
        doc.table(["CPUs"] + [str(k) for k in ks],
                  [[f"rcu ÷ rwlock, modelled, {pct}% hits"] + [f"{x:.2f}" for x in rr]])
