"""The "2002 against today" table (issue 30; docs/rcu/then-and-now.md):
the papers' variants and Tree RCU booted at 1, 2, 4 and 8 CPUs by
tools/qs/thennow.py (`make compare COMPARE_CPUS=1,2,4,8`), grace-period
latency idle and under load, expedited beside normal, read-side cost,
update overhead, callbacks per grace period and the cache lines a
quiescent state writes, every column of a row from one boot."""
import json

from qs import REPO

from figs import Section
from figs.doc import Doc

from qs import thennow as tool

KEY = "thennow"
TITLE = "2002 against today: the papers' RCU beside Tree RCU at 1, 2, 4 and 8 CPUs"


def available():
    return True, ""


def boots(results):
    out = []
    for cpus, rows in results.items():
        for stem, s in rows:
            f = REPO / "build" / f"compare-{stem}" / "results" / f"thennow-smp{cpus}.json"
            try:
                d = json.loads(f.read_text())
            except (OSError, ValueError):
                continue
            b = d.get("banner") or {}
            out.append(dict(config=f"compare-{stem}", cpus=d.get("cpus"), accel=d.get("accel"),
                            cpu=d.get("cpu"), accel_why=d.get("accel_why"),
                            cmdline=d.get("cmdline"), status=d.get("status"),
                            variant=s.get("variant", b.get("rcu")),
                            preemption=b.get("preemption"), hz=b.get("hz"), log=d.get("log")))
    return out


def collect(ctx):
    cpus = [1, 2] if ctx.quick else [1, 2, 4, 8]
    samples = 5 if ctx.quick else tool.SAMPLES
    results = tool.run(cpus, ctx.kvm, samples=samples)
    return dict(results={str(k): v for k, v in results.items()}, samples=samples,
                host_cores=ctx.host_cores, boots=boots(results))


def render(data, ctx, out):
    results = {int(k): v for k, v in data["results"].items()}
    doc = Doc()
    s = Section(KEY, TITLE, doc, runs=data.get("boots", []))
    doc.p("Each variant's configuration booted once per CPU count with `ktest=bench_rcu_*` "
          f"({data['samples']} `synchronize_kernel()` and as many "
          "`synchronize_rcu_expedited()` calls a load): medians in ms, read-side cycles per "
          "pair with one CPU and with all reading, ns to queue a `call_rcu()`, callbacks per "
          "grace period. The cache lines a quiescent state writes are the coherence plugin's "
          "count, in boots of their own (docs/rcu/qs-lines.md).")
    over = [c for c in results if c > (data.get("host_cores") or 1)]
    if over:
        doc.p(f"-smp {', '.join(map(str, sorted(over)))} ran on {data.get('host_cores')} host "
              "cores: those vCPUs are overcommitted, and their latencies include the host's "
              "scheduling; the line counts do not depend on it.")
    doc.table(tool.HEAD, tool.rows(results))
    return s
