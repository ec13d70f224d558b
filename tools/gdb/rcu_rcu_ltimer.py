"""qs-rcu for rcu-ltimer (kernel/rcu/ltimer.c, seed 000 Figures 21-23, 44-47):
rcu_ctrlblk's batch numbers and the CPUs that still owe the current batch a
quiescent state, then each CPU's counters and callback lists."""
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
