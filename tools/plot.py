#!/usr/bin/env python3
"""Tables and plots from benchmark result files (build/<name>/results/*.json,
written by the runner, tools/qs/boot.py, from the kernel's "BENCH {json}" lines).

  plot.py table [FILES...]               one row per BENCH object
  plot.py bar --metric ops_per_sec_per_cpu --by cpus [--where bench=kmalloc] [-o out.png] [FILES...]

Without FILES, every build/*/results/*.json is read. A comparison should be a
ratio measured in the same boot (docs/design.md); plot.py only draws what it
is given.
"""
import argparse
import glob
import json
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def load(files):
    files = files or sorted(glob.glob(str(REPO / "build" / "*" / "results" / "*.json")))
    rows = []
    for f in files:
        doc = json.loads(Path(f).read_text())
        for b in doc.get("bench", []):
            rows.append(dict(b, _file=Path(f).name, _accel=doc.get("accel"), _config=doc.get("config")))
    return rows


def matches(row, where):
    for w in where:
        k, v = w.split("=", 1)
        if str(row.get(k)) != v:
            return False
    return True


def cmd_table(a):
    rows = [r for r in load(a.files) if matches(r, a.where)]
    if not rows:
        sys.exit("plot: no BENCH results found")
    keys = [k for k in rows[0] if not k.startswith("_")]
    print("\t".join(keys + ["accel", "file"]))
    for r in rows:
        print("\t".join(str(r.get(k, "")) for k in keys) + f"\t{r['_accel']}\t{r['_file']}")


def cmd_bar(a):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = [r for r in load(a.files) if matches(r, a.where) and a.metric in r]
    if not rows:
        sys.exit(f"plot: no BENCH results with {a.metric}")
    groups = defaultdict(list)
    for r in rows:
        label = " ".join(f"{k}={r.get(k)}" for k in a.by.split(","))
        groups[label].append(float(r[a.metric]))
    labels = list(groups)
    means = [sum(v) / len(v) for v in groups.values()]
    fig, ax = plt.subplots(figsize=(max(5, len(labels) * 0.9), 4))
    ax.bar(range(len(labels)), means)
    ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right")
    ax.set_ylabel(a.metric)
    ax.set_title(" ".join(a.where) or "benchmarks")
    fig.tight_layout()
    fig.savefig(a.output, dpi=120)
    print(f"plot: wrote {a.output}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("table")
    p.add_argument("--where", action="append", default=[], help="key=value filter")
    p.add_argument("files", nargs="*")
    p.set_defaults(fn=cmd_table)
    p = sub.add_parser("bar")
    p.add_argument("--metric", required=True)
    p.add_argument("--by", default="cpus", help="comma-separated keys that label a bar")
    p.add_argument("--where", action="append", default=[], help="key=value filter")
    p.add_argument("-o", "--output", default="build/bench.png")
    p.add_argument("files", nargs="*")
    p.set_defaults(fn=cmd_bar)
    a = ap.parse_args()
    a.fn(a)


if __name__ == "__main__":
    main()
