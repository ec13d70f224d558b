"""qs-rcu for ltimer, rcu-ltimer (kernel/rcu/rcu_ltimer.c, seed 000 Figures
21-23, 44-47): rcu_ctrlblk's batch numbers and the CPUs that still owe the
current batch a quiescent state, then each CPU's counters and callback
lists; with the realtime options of seed 003 (docs/rcu/realtime.md), each
CPU's donelist, its krcud's rcudlist and its RCU_plugticks."""
from quiescent import nr_cpus, per_cpu
import gdb
import rcu_common


def show():
    cb = gdb.parse_and_eval("rcu_ctrlblk")
    owing = rcu_common.cpumask_cpus(cb["rcu_cpu_mask"])
    cur, mx = int(cb["curbatch"]), int(cb["maxbatch"])
    state = "in progress" if owing else ("idle" if mx < cur else "requested")
    print(f"rcu-ltimer: curbatch {cur} maxbatch {mx} ({state})")
    print(f"  CPUs that still owe batch {cur} a quiescent state: "
          f"{' '.join(map(str, owing)) if owing else 'none'}")
    rcu_common.show_generic()
    for cpu in range(nr_cpus()):
        rd = per_cpu("rcu_data", cpu)
        print(f"cpu{cpu}: qsctr {int(rd['qsctr'])} last_qsctr {int(rd['last_qsctr'])}"
              f"{' (invalid: not yet snapshotted)' if int(rd['last_qsctr']) == 0 else ''}"
              f" batch {int(rd['batch'])}")
        rcu_common.print_list("nxtlist", rd["nxtlist"])
        rcu_common.print_list(f"curlist (waits for batch {int(rd['batch'])})", rd["curlist"])
        rcu_common.print_list("donelist (batch done, not yet invoked)", rd["donelist"])
        show_rt(cpu)


def show_rt(cpu):
    """krcud's list and the throttle's plug, where those options are built."""
    try:
        o = per_cpu("rcu_offload_data", cpu)
        task = int(o["krcud"])
        print(f"  krcud: {'task %#x' % task if task else 'not started'}, "
              f"offloaded {int(o['offloaded'])} in {int(o['offloads'])} hand-offs, "
              f"invoked {int(o['invoked'])}")
        rcu_common.print_list("rcudlist (waiting for krcud)", o["rcudlist"])
    except gdb.error:
        pass
    try:
        print(f"  RCU_plugticks {int(per_cpu('rcu_plugticks', cpu))}"
              f" (plugged {int(per_cpu('rcu_plugs', cpu))} times)")
    except gdb.error:
        pass
