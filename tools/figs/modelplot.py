"""The one picture of a modelled figure (routemodel.py, semopmodel.py):
operations a microsecond by CPUs for each design, priced by the cost
model (tools/qs/costmodel.py) on seed 001 Table 1's Pentium III, with
the band between its fast and slow transfer costs shaded."""
from qs import costmodel

from figs import pyplot, save


def throughput_plot(lines, ylabel, title, path):
    """lines: [(label, color, marker, linestyle, {cpus: per_op})]."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5.2, 3.6))
    ticks = set()
    for label, col, mk, ls, row in lines:
        if not row:
            continue
        ks = sorted(row)
        ticks.update(ks)
        lo = [costmodel.throughput(row[k], k, "p3", "low") for k in ks]
        hi = [costmodel.throughput(row[k], k, "p3", "high") for k in ks]
        ax.plot(ks, lo, color=col, marker=mk, linestyle=ls, label=label)
        if lo != hi:
            ax.fill_between(ks, hi, lo, color=col, alpha=0.15)
    ax.set_xlabel("CPUs")
    ax.set_ylabel(ylabel)
    ax.set_xticks(sorted(ticks))
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    ax.set_title(title, fontsize=9)
    return save(fig, path)
