"""Seed 004 Table 5's comparison modelled from cache-line counts, beside
the timed one (tools/figs/ipc.py draws both): semopbench booted under
the coherence plugin with ipc=global and ipc=rcu at 1, 2 and 4 CPUs
(tools/c2c.py's semop cases: each process on its own set, the processes
in step after every semop(), so the counts do not depend on the host),
each cell's counts per semop priced by tools/qs/costmodel.py on seed 001
Table 1's Pentium III and a current core.

What the model prices is the line the global lock moves on each
semop(); what it leaves out is the wait for the lock while another CPU
holds it, which grows with the CPUs and is most of the paper's 11 x at
8 CPUs. The modelled ratio is therefore a lower bound on what the lock
costs, and it ranks the designs by the mechanism alone.
"""
import sys

from qs import REPO
from qs import costmodel


MODES = {"global": ("tab:red", "s", "--", "semop-global"), "rcu": ("tab:blue", "o", "-", "semop")}
CPUS = (1, 2, 4)
OPS = 2000                       # tools/c2c.py's semop cases: semops a process


def cell(counts, log, cpus):
    """The benchmark's one cell: its counts per semop, or None."""
    sys.path.insert(0, str(REPO / "tools"))
    import c2c as tool
    ops = tool.bench_cells([], log)
    for cid, c in counts.cells.items():
        if ops.get(("label", cid)) == f"semop {cpus}cpu" and ops.get(cid):
            return dict(ops=ops[cid], per_op=costmodel.per_op(c, ops[cid]))
    return None


def collect(ctx):
    """A plugin boot for each design and CPU count: {cells: [...]} or {error}."""
    from figs.hlmodel import plugin_boot
    cells, secs = [], 0.0
    for n in CPUS:
        for mode, (_, _, _, case) in MODES.items():
            got = plugin_boot(ctx, case, f"figures-{case}", cpus=n)
            if "error" in got:
                return got
            c = cell(got["counts"], got["boot"].log, n)
            if not c:
                return dict(error=f"the {case} boot at -smp {n} printed no semop cell")
            cells.append(dict(mode=mode, cpus=n, **c))
            secs += got["meta"]["boot_s"]
    return dict(cells=cells, boot_s=round(secs, 1), ops=OPS)


def table(model):
    """{mode: {cpus: cell}}."""
    out = {}
    for c in model["cells"]:
        out.setdefault(c["mode"], {})[c["cpus"]] = c
    return out


def ratios(by_mode, machine):
    """CPUs -> modelled rcu rate over global rate."""
    return {k: costmodel.throughput(by_mode["rcu"][k]["per_op"], k, machine) /
            costmodel.throughput(by_mode["global"][k]["per_op"], k, machine)
            for k in sorted(by_mode.get("rcu", {})) if k in by_mode.get("global", {})}


def _plot(by_mode, path):
    from figs.modelplot import throughput_plot
    return throughput_plot(
        [(f"ipc={m}", col, mk, ls, {k: c["per_op"] for k, c in by_mode.get(m, {}).items()})
         for m, (col, mk, ls, _) in MODES.items()],
        "semop() calls per microsecond (all CPUs)",
        "semopbench, modelled (Pentium III costs; the lock's wait left out)", path)


def render(doc, s, model, out):
    """The modelled subsection: a PNG labelled modelled, the transfers per
    semop, and the modelled rcu-over-global ratio by CPUs on both machines."""
    doc.h(3, "Modelled from cache-line counts")
    if not model or model.get("error"):
        doc.p("Not modelled: " + (model or {}).get("error", "no plugin boot in this run") + ".")
        return
    by_mode = table(model)
    p3 = costmodel.MACHINES["p3"]
    doc.p(f"**Modelled, not timed.** `semopbench N {model['ops']} c2c` booted under the coherence "
          f"plugin with `ipc=global` and `ipc=rcu` at each CPU count (`make c2c CASE=semop`, "
          f"`CASE=semop-global`; the processes in step after every call; {model['boot_s']} s of "
          f"boots), each cell's counts per semop priced by tools/qs/costmodel.py with "
          f"{p3['name']}'s costs (the band: a transfer at {p3['transfer'][0]}-"
          f"{p3['transfer'][1]} ns). The model prices the lock's line moving, not the wait for "
          "the lock while another CPU holds it: the ratio below is what the line alone costs, "
          "a lower bound on the paper's.")
    png = _plot(by_mode, out / "seed004-table5-model.png")
    s.pngs.append(png)
    doc.img(png, "seed 004 Table 5's comparison, modelled from cache-line counts")
    ks = sorted({k for r in by_mode.values() for k in r})
    doc.table(["design"] + [f"xfer/semop, {k} CPU{'s' * (k > 1)}" for k in ks] +
              ["locked ops/semop", "instructions/semop"],
              [[f"ipc={m}"] + [f"{by_mode[m][k]['per_op']['xfer']:.3f}" if k in by_mode[m] else "?"
                               for k in ks] +
               [f"{by_mode[m][ks[0]]['per_op']['rmw']:.2f}",
                f"{by_mode[m][ks[0]]['per_op']['insns']:.0f}"]
               for m in MODES if m in by_mode])
    if "rcu" in by_mode and "global" in by_mode:
        rows = []
        for mach in ("p3", "bdw"):
            rr = ratios(by_mode, mach)
            rows.append([f"rcu ÷ global, modelled, {costmodel.MACHINES[mach]['name']}"] +
                        [f"{rr[k]:.2f}" if k in rr else "?" for k in ks])
        doc.table(["CPUs"] + [str(k) for k in ks], rows)
