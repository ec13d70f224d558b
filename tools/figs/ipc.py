"""Seed 004 Table 5 (semopbench: ipc=global against ipc=rcu) from
tools/semopbench.py (`make semopbench`), beside the paper's."""
from qs import REPO

from figs import Section, pyplot, save
from figs.doc import Doc

from qs import semopbench as tool

KEY = "ipc"
TITLE = "Seed 004 Table 5: semopbench, one ID-table lock against RCU"


def available():
    if not (REPO / "tools" / "semopbench.py").exists() or not (REPO / "user" / "bin" / "semopbench.c").exists():
        return False, "no tools/semopbench.py or user/bin/semopbench.c"
    return True, ""


def collect(ctx):
    counts = [1, ctx.cpus] if ctx.cpus > 1 else [1]
    ops, repeat, boots = (100000, 2, 1) if ctx.quick else (500000, 3, 2)
    res = tool.collect(counts, ops, repeat, boots, ctx.kvm)
    from figs import semopmodel
    return dict(results={f"{m}-smp{n}": v for (m, n), v in res.items()}, counts=counts, ops=ops,
                repeat=repeat, boots=boots,
                model=semopmodel.collect(ctx))      # the same benchmark, counted and modelled


def results(data):
    out = {}
    for k, v in data["results"].items():
        m, n = k.rsplit("-smp", 1)
        out[(m, int(n))] = v
    return out


def render(data, ctx, out):
    res = results(data)
    doc = Doc()
    s = Section(KEY, TITLE, doc)
    for (m, n), v in sorted(res.items()):
        if v:
            s.runs.append(dict(config="test-defconfig", cpus=n, accel=v["accel"], cpu=v.get("cpu"),
                               accel_why=v.get("accel_why"),
                               cmdline=f"ipc={m} -- semopbench ...", variant=v.get("variant"),
                               log=", ".join(v["logs"])))
    text, _ = tool.report(res, data["counts"], data["ops"], data["repeat"], data["boots"])
    p = tool.PAPER
    doc.p(f"`tools/semopbench.py` (`make semopbench`): `defconfig` booted with `ipc=global` (one "
          f"lock for the ID table, Linux 2.5.42) and `ipc=rcu` (seed 004) at each CPU count; "
          f"one process a CPU, each {data['ops']} `semop()` calls on its own set; the fastest of "
          f"{data['repeat']} runs in each of {data['boots']} boot(s). The paper: {p['machine']}, "
          f"{p['global_s']} s against {p['rcu_s']} s, {p['global_s'] / p['rcu_s']:.1f} ×.")
    rows = []
    for n in data["counts"]:
        g, r = res.get(("global", n)), res.get(("rcu", n))
        ratio = g["seconds"] / r["seconds"] if g and r else None
        rows.append([n, f"{g['seconds']:.3f}" if g else "?", f"{r['seconds']:.3f}" if r else "?",
                     "?" if ratio is None else f"{ratio:.2f}", sentence(n, ratio)])
    rows.append([f"paper: {p['cpus']}", p["global_s"], p["rcu_s"], f"{p['global_s'] / p['rcu_s']:.2f}", ""])
    doc.table(["CPUs", "ipc=global (s)", "ipc=rcu (s)", "global ÷ rcu", "ours beside the paper"], rows)
    png = plot(res, data["counts"], out / "seed004-table5.png")
    if png:
        s.pngs.append(png)
        doc.img(png, "seed 004 Table 5: global ÷ rcu by CPUs, the paper's 8-CPU ratio beside")
    doc.p("The table as `make semopbench` prints it:")
    doc.pre(text)
    from figs import semopmodel
    semopmodel.render(doc, s, data.get("model"), out)
    return s


def sentence(n, ratio):
    if ratio is None:
        return ""
    if n == 1:
        return ("one process: no contention for the ID table's lock, so the two designs cost "
                "about the same" + (" (as here)" if 0.8 <= ratio <= 1.25 else
                                    "; the gap here is the host's noise"))
    return (f"{ratio:.1f} × at {n} CPUs against the paper's 11 × at 8: the global lock's "
            "cost grows with the CPUs contending for it, and a semop() under TCG is mostly "
            "emulated system-call entry that both designs pay")


def plot(res, counts, path):
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(4.6, 3.2))
    xs, ys = [], []
    for n in counts:
        g, r = res.get(("global", n)), res.get(("rcu", n))
        if g and r:
            xs.append(str(n))
            ys.append(g["seconds"] / r["seconds"])
    xs.append(f"paper: {tool.PAPER['cpus']}")
    ys.append(tool.PAPER["global_s"] / tool.PAPER["rcu_s"])
    ax.bar(xs, ys, color=["tab:blue"] * (len(xs) - 1) + ["tab:gray"])
    ax.axhline(1, color="k", linewidth=0.6)
    ax.set_xlabel("CPUs (one semopbench process each)")
    ax.set_ylabel("ipc=global time ÷ ipc=rcu time")
    ax.set_title("semopbench: the ID table's lock against RCU")
    return save(fig, path)
