"""The "2002 against today" table (docs/rcu/then-and-now.md): every RCU
variant, the papers' and Tree RCU, booted once at each CPU count with the
RCU benchmarks, one row per variant and CPU count, every column from that
one boot:

  grace-period latency: synchronize_kernel() median, idle and with a busy
    thread per CPU (bench_rcu_sync);
  expedited: synchronize_rcu_expedited() median, idle and busy (the same
    boot, the same loads);
  read-side cost: cycles per rcu_read_lock()/unlock() pair, one reader and
    every CPU reading (bench_rcu_read);
  update overhead: ns to queue one call_rcu(), and callbacks per grace
    period (bench_rcu_call_rcu).

The cache lines each quiescent state writes are counted by the coherence
plugin in boots of their own (tools/c2c.py qslines, docs/rcu/qs-lines.md).

  tools/compare.py --cpus 1,2,4,8 [--variants ltimer,tree] [--kvm 0]
  make compare COMPARE_CPUS=1,2,4,8

Writes build/compare/then-now.md and then-now.json. The CPU counts are
QEMU vCPUs: above the host's cores they are overcommitted, and the
latency columns then measure the host's scheduling as much as RCU's.
"""
import json
import os
import sys

from qs import REPO
from qs import compare

# Fewer synchronize calls than make compare's 200: medians, not tails, and
# four boots a variant.
SAMPLES = 20


def run(cpus_list, kvm, variants=(), samples=SAMPLES, log=None):
    """{cpus: [(stem, summary)]}; log(cpus, results) after each CPU count."""
    out = {}
    for cpus in cpus_list:
        todo = compare.available(cpus)
        if variants:
            todo = [t for t in todo if t[0] in set(variants)]
        rows = []
        for stem, cfg in todo:
            print(f"then-now: {stem} at -smp {cpus} ...", file=sys.stderr)
            rows.append((stem, compare.summarise(
                compare.bench(stem, cfg, cpus, kvm, samples=samples,
                              label=f"thennow-smp{cpus}"))))
            out[cpus] = rows
            if log:
                log(out)
    return out


def _ms(b, key="median_us"):
    return "?" if not b or b.get(key) is None else f"{b[key] / 1000:.2f}"


HEAD = ["variant", "CPUs", "sync idle ms", "sync busy ms", "expedited idle ms",
        "expedited busy ms", "read cycles 1/all", "call_rcu ns", "cbs/gp"]


def rows(results):
    out = []
    stems = []
    for cpus in sorted(results):
        for stem, _ in results[cpus]:
            if stem not in stems:
                stems.append(stem)
    for stem in stems:
        for cpus in sorted(results):
            s = dict(results[cpus]).get(stem)
            if s is None:
                continue
            rd = s.get("read", {})
            r1 = rd.get(1, rd.get("1", {})).get("rcu", "?")
            rn = rd[max(rd, key=int)].get("rcu", "?") if rd else "?"
            c = s.get("call_rcu", {})
            out.append([s.get("variant", stem), str(cpus), _ms(s.get("sync_idle")),
                        _ms(s.get("sync_busy")), _ms(s.get("exp_idle")), _ms(s.get("exp_busy")),
                        f"{r1}/{rn}", str(c.get("queue_ns_per_call", "?")),
                        str(c.get("callbacks_per_gp", "?"))])
    return out


def table(results):
    lines = ["| " + " | ".join(HEAD) + " |", "|" + "---|" * len(HEAD)]
    lines += ["| " + " | ".join(r) + " |" for r in rows(results)]
    return "\n".join(lines)


def main(cpus_list, kvm, variants=()):
    out = REPO / "build" / "compare"
    out.mkdir(parents=True, exist_ok=True)

    def save(results):
        (out / "then-now.json").write_text(json.dumps(
            {str(k): v for k, v in results.items()}, indent=1))

    results = run(cpus_list, kvm, variants, log=save)
    text = table(results)
    host = os.cpu_count()
    over = [c for c in cpus_list if host and c > host]
    if over:
        text += (f"\n\n-smp {', '.join(map(str, over))} on {host} host cores: "
                 "the vCPUs are overcommitted.")
    print(text)
    (out / "then-now.md").write_text(text + "\n")
