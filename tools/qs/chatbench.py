"""Seed 000 Figure 11 for Quiescent: the chat benchmark (user/bin/chat.c,
docs/chat.md) on every RCU variant, with files=rcu and files=lock.

For every variant that tools/compare.py boots (its builds, shared), and
for each files= mode, boots -smp CPUS and runs `chat -r ROOMS -c CLIENTS
-m MESSAGES` REPEAT times; keeps the best throughput (messages read per
second) of each cell, the run the host disturbed least. Prints a table
beside the paper's finding ("little sensitivity to the read-copy-update
algorithm", 20 rooms and 500 messages on a 4-CPU 700 MHz Pentium III
Xeon) and one BENCH line per variant and mode, and writes
build/chatbench/chatbench.json. A benchmark: nothing passes or fails on a
number, but a run that lost a message or warned is left out and said.

  tools/chatbench.py [--cpus 2] [--rooms 20] [--clients 5] [--messages 500]
                     [--repeat 1] [--variants ltimer,poll] [--kvm 0]
  make chatbench [CHATBENCH_ARGS="--rooms 4 --messages 100"]

Scale: the paper's 20 rooms and 500 messages are the default. Each client
is a process, and the kernel allows 128 (MAX_PROCESSES), so rooms x
clients is at most 120 here: 20 rooms of 5 clients, 100 processes.
"""
import argparse
import json
import statistics
import sys
from pathlib import Path

from qs import REPO
from qs.boot import accel_desc, boot
from qs import compare

OUT = REPO / "build" / "chatbench"
MODES = ("rcu", "lock")
PAPER = dict(rooms=20, messages=500, cpus=4,
             machine="4-CPU 700 MHz Pentium III Xeon, 1 MB L2, 1 GB",
             patches="the RCU IP route cache and FD management patches",
             finding="little sensitivity to the read-copy-update algorithm")


def run_one(stem, cfg, mode, cpus, rooms, clients, messages, repeat, kvm):
    """One boot: REPEAT chat runs; the BENCH objects of those that delivered everything."""
    cmd = f"chat -r {rooms} -c {clients} -m {messages} -t files={mode}"
    script = "; ".join([cmd] * repeat) + "; poweroff"
    # net.backlog: 100 clients' windows in flight can pass the default
    # 1000 packets of one CPU's backlog before NET_RX drains it.
    est = repeat * rooms * clients * clients * messages // 1500
    r = boot(name=f"compare-{stem}", defconfig=cfg, boot="kernel", cpus=cpus,
             options=["# CONFIG_PROVE_RCU is not set", "# CONFIG_RCU_DEBUG_READ is not set"],
             cmdline=f"files={mode} net.backlog=20000 -- {script}", timeout=120 + est,
             kvm=kvm, label=f"chat-{mode}-smp{cpus}")
    rows = [b for b in r.console.bench if b.get("bench") == "chat"]
    why = None
    if r.status not in ("pass", "poweroff"):
        why = f"the run ended as {r.describe_status()}"
    bad = r.console_problems()
    if bad:
        why = bad[0]
    if len(rows) < repeat and not why:
        why = f"{repeat - len(rows)} of {repeat} runs lost or damaged a message"
    if why:
        print(f"chatbench: {stem} files={mode}: {why} (log {r.log_path})", file=sys.stderr)
    return dict(variant=stem, mode=mode, rows=[] if bad else rows, why=why, accel=r.accel,
                cpu=getattr(r, "cpu", ""), accel_desc=accel_desc(r), log=str(r.log_path),
                cmdline=r.cmdline, elapsed_s=round(r.elapsed, 1),
                banner=(r.console.banner or {}).get("rcu"))


def collect(cpus, rooms, clients, messages, repeat, kvm, variants=()):
    """{variant: {mode: result}} over every variant (tools/figs/chat.py calls this too)."""
    res = {}
    for stem, cfg in compare.available(cpus):
        if variants and stem not in variants:
            continue
        for mode in MODES:
            print(f"chatbench: {stem} files={mode} at -smp {cpus} ...", file=sys.stderr)
            x = run_one(stem, cfg, mode, cpus, rooms, clients, messages, repeat, kvm)
            rates = [b["per_s"] for b in x["rows"]]
            x["per_s"] = max(rates) if rates else None
            x["per_s_median"] = statistics.median(rates) if rates else None
            res.setdefault(stem, {})[mode] = x
    return res


def report(res, cpus, rooms, clients, messages, repeat):
    """The table as text and the BENCH objects of its cells."""
    lines = [f"chat (seed 000 Figure 11): {rooms} rooms x {clients} clients, {messages} "
             f"messages from each client to its room, -smp {cpus}; messages read per second "
             f"(each message counted once per reader), the best of {repeat} runs a cell",
             "", "| variant | files=rcu | files=lock | rcu/lock |", "|---|---|---|---|"]
    bench, best = [], []
    for stem, modes in res.items():
        r, lk = (modes.get(m, {}).get("per_s") for m in MODES)
        ratio = r / lk if r and lk else None
        lines.append(f"| {stem} | {r or '?'} | {lk or '?'} | "
                     f"{'?' if ratio is None else f'{ratio:.2f}'} |")
        if r:
            best.append(r)
        for m in MODES:
            x = modes.get(m)
            if x and x.get("per_s"):
                bench.append(dict(bench="chat_table", variant=stem, files=m, cpus=cpus,
                                  rooms=rooms, clients=clients, messages=messages,
                                  per_s=x["per_s"], per_s_median=x["per_s_median"],
                                  accel=x["accel_desc"]))
    if len(best) > 1:
        spread = max(best) / min(best)
        lines += ["", f"files=rcu across the variants: the fastest {spread:.2f} x the slowest "
                  f"(the paper: {PAPER['finding']})"]
        bench.append(dict(bench="chat_spread", files="rcu", cpus=cpus, fastest_over_slowest=spread))
    lines.append(f"paper: {PAPER['rooms']} rooms, {PAPER['messages']} messages, "
                 f"{PAPER['machine']}, {PAPER['patches']}: {PAPER['finding']}")
    return "\n".join(lines), bench


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cpus", type=int, default=2)
    ap.add_argument("--rooms", type=int, default=PAPER["rooms"])
    ap.add_argument("--clients", type=int, default=5)
    ap.add_argument("--messages", type=int, default=PAPER["messages"])
    ap.add_argument("--repeat", type=int, default=1,
                    help="runs a boot; the best is kept (docs/chat.md)")
    ap.add_argument("--variants", default="", help="comma-separated config stems (default: all)")
    ap.add_argument("--kvm", default="0")
    a = ap.parse_args()
    if a.rooms * a.clients > 120:
        sys.exit("chatbench: at most 120 clients in all (the kernel's 128 processes)")
    res = collect(a.cpus, a.rooms, a.clients, a.messages, a.repeat, a.kvm,
                  [v for v in a.variants.split(",") if v])
    text, bench = report(res, a.cpus, a.rooms, a.clients, a.messages, a.repeat)
    print(text)
    for b in bench:
        print("BENCH " + json.dumps(b))
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "table.md").write_text(text + "\n")
    (OUT / "chatbench.json").write_text(json.dumps(dict(paper=PAPER, results=res, bench=bench),
                                                   indent=1))
    print(f"chatbench: written to {OUT}/table.md and chatbench.json", file=sys.stderr)

