"""The parts of `make figures` (tools/figures.py): one module per paper
figure or table reproduced, each with the same three functions:

  available()           (True, "") or (False, why not): its tool and its
                        kernel benchmark exist in this tree
  collect(ctx)          boot what it needs; a JSON-able dict of results
  render(data, ctx, out) draw its PNGs into out and return a Section:
                        our numbers beside the paper's, one sentence on
                        each difference, the targets it reports

figs.doc is the small document model the sections are written in (one
text, two renderings: Markdown and HTML); figs.machine says what ran where.
"""
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from qs import REPO

DISCIPLINES = ("ideal", "rcu", "brlock", "spinlock", "refcnt", "rwlock")


@dataclass
class Ctx:
    """What `make figures` was asked for."""
    cpus: int
    quick: bool
    kvm: str
    out: Path
    host_cores: int = 1


@dataclass
class Section:
    key: str
    title: str
    doc: object                      # figs.doc.Doc
    pngs: list = field(default_factory=list)
    targets: list = field(default_factory=list)
    runs: list = field(default_factory=list)   # boot_facts() of each boot
    status: str = "ok"               # ok, failed: ..., not available: ...
    wall_s: float = None


def accel_label(run):
    """KVM (-cpu ...) or TCG, for one boot_facts() dict."""
    acc = (run.get("accel") or "?").upper()
    return f"{acc} (-cpu {run['cpu']})" if run.get("cpu") and acc == "KVM" else acc


def boot_facts(r):
    """What one boot was, for the report: configuration, CPUs, accelerator (and -cpu, and why),
    the banner's variant, preemption, HZ and spinlock mode."""
    b = r.console.banner or {}
    m = re.search(r"spinlocks=(\S+)", r.log or "")
    log = r.log_path
    try:
        log = str(Path(r.log_path).relative_to(REPO))
    except ValueError:
        pass
    return dict(config=getattr(r, "name", "?"), cpus=r.cpus, accel=r.accel,
                cpu=getattr(r, "cpu", ""), accel_why=getattr(r, "accel_why", ""), cmdline=r.cmdline,
                status=r.status, elapsed_s=round(r.elapsed, 1), log=log,
                variant=b.get("rcu"), preemption=b.get("preemption"), hz=b.get("hz"),
                spinlocks=m.group(1) if m else None)


class Timer:
    def __enter__(self):
        self.t0 = time.monotonic()
        return self

    def __exit__(self, *exc):
        self.s = time.monotonic() - self.t0


def fmt_ns(ps):
    """Picoseconds as nanoseconds, three significant figures."""
    if ps is None:
        return "?"
    ns = ps / 1000
    return f"{ns:.3g}" if ns < 100 else f"{ns:.0f}"


def pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams.update({"font.size": 8, "axes.titlesize": 9})
    return plt


def save(fig, path):
    """A PNG small enough to commit under docs/figures/."""
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    import matplotlib.pyplot as plt
    plt.close(fig)
    return Path(path).name
