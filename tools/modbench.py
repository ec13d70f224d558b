#!/usr/bin/env python3
"""Modules and NMI handlers on every RCU variant, one boot each (docs/modules.md).

For every variant with a configs/rcu_<name>_defconfig (tiny at -smp 1,
the others at --cpus), boot once with

  ktest=bench_module_load,nmi_handler_stress,module_unload_stress

and print one table: hello's load time and its unload time with the part
that is the grace period after list_del_rcu() (seed 000 Figure 8), the
module unload stress's loads and readers' calls, and the NMI handler
stress's unregistrations and how many found an NMI that the grace period
had not covered (unregister_nmi_handler()'s run-time check: 0 on every
real variant, more on the busted one, which is included for contrast and
whose module stress is left out: it faults, as module-busted-smp4 shows).

  tools/modbench.py [--cpus 4] [--variants ltimer,poll,...] [--kvm 0] [--seconds 2]
  make modbench
"""
import argparse
import re

from qs.boot import accel_desc, boot
from qs.compare import available

RE_STRESS = re.compile(r"# (\S+): (\d+) loads and unloads .*; \d+ readers: (\d+) calls")
RE_NMI = re.compile(r"# (\S+): (\d+) rounds .*, (\d+) unregistrations, (\d+) found an NMI")


def run(stem, cfg, cpus, kvm, seconds):
    tests = "bench_module_load,nmi_handler_stress"
    if stem == "busted":
        tests = "bench_module_load,nmi_handler_expect_failure"
    elif cpus > 1:
        tests += ",module_unload_stress"
    r = boot(name=f"test-{cfg}", defconfig=cfg, boot="kernel", cpus=cpus,
                  cmdline=f"ktest={tests} module_stress.duration={seconds}", timeout=300,
                  kvm=kvm, label=f"modbench-smp{cpus}")
    row = {"variant": stem, "status": r.status, "accel": accel_desc(r)}
    for b in r.console.bench:
        if b.get("bench") == "module_load":
            row.update(b)
    m = RE_STRESS.search(r.log)
    if m:
        row["loads"], row["calls"] = int(m.group(2)), int(m.group(3))
    m = RE_NMI.search(r.log)
    if m:
        row["unregisters"], row["violations"] = int(m.group(3)), int(m.group(4))
    return row


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cpus", type=int, default=4)
    ap.add_argument("--variants", default="")
    ap.add_argument("--kvm", default="0")
    ap.add_argument("--seconds", type=int, default=2)
    a = ap.parse_args()
    todo = dict(available(a.cpus))
    todo.update({s: c for s, c in available(1) if s == "tiny"})	# -smp 1 only
    todo["busted"] = "rcu_busted_defconfig"
    if a.variants:
        todo = {s: c for s, c in todo.items() if s in a.variants.split(",")}
    print(f"{'variant':12} {'cpus':>4} {'load us':>8} {'unload us':>10} {'of it GP':>9} "
          f"{'free us':>8} {'stress loads':>12} {'calls':>8} {'NMI unreg':>9} {'GP missed NMI':>13}")
    for stem, cfg in todo.items():
        cpus = 1 if stem == "tiny" else a.cpus
        row = run(stem, cfg, cpus, a.kvm, a.seconds)
        print(f"{row.get('variant', stem):12} {cpus:4} {row.get('load_us', '-'):>8} "
              f"{row.get('unload_us', '-'):>10} {row.get('unload_gp_us', '-'):>9} "
              f"{row.get('unload_free_us', '-'):>8} {row.get('loads', '-'):>12} "
              f"{row.get('calls', '-'):>8} {row.get('unregisters', '-'):>9} "
              f"{row.get('violations', '-'):>13}"
              + ("" if row["status"] == "pass" else f"  ({row['status']})")
              + f"  {row['accel']}", flush=True)


if __name__ == "__main__":
    main()
