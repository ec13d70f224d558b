"""qs-rcu for xrcu, X-rcu (kernel/rcu/rcu_xrcu.c, seed 000 section 5.1, Figures
12-14 and 34-39): rcu_currbatch, rcu_maxbatch and the CPUs in rcu_cpumask that
still owe the current batch a quiescent state, then each CPU's counters,
its kernel timer and its nextlist, currlist and donelist."""
from quiescent import nr_cpus, per_cpu
import gdb
import rcu_common


def show():
    owing = rcu_common.cpumask_cpus(gdb.parse_and_eval("rcu_cpumask"))
    cur = int(gdb.parse_and_eval("rcu_currbatch"))
    mx = int(gdb.parse_and_eval("rcu_maxbatch"))
    jiffies = int(gdb.parse_and_eval("jiffies"))
    state = "in progress" if owing else ("idle" if mx < cur else "requested")
    print(f"x-rcu: rcu_currbatch {cur} rcu_maxbatch {mx} ({state}); jiffies {jiffies}")
    print(f"  CPUs that still owe batch {cur} a quiescent state (rcu_cpumask): "
          f"{' '.join(map(str, owing)) if owing else 'none'}")
    rcu_common.show_generic()
    for cpu in range(nr_cpus()):
        rd = per_cpu("rcu_data", cpu)
        timer = rd["timer"]
        entry = timer["entry"]
        armed = int(entry["next"]) != int(entry.address)
        expires = int(timer["expires"])
        when = (f"armed, fires in {expires - jiffies} jiffies" if armed
                else "not armed (or its handler is running now)")
        print(f"cpu{cpu}: qsctr {int(rd['qsctr'])} last_qsctr {int(rd['last_qsctr'])}"
              f"{' (invalid: not yet snapshotted)' if int(rd['last_qsctr']) == 0 else ''}"
              f" batch {int(rd['batch'])}; timer {when};"
              f" timer runs {int(rd['timer_runs'])}, idle quiescent states {int(rd['idle_qs'])}")
        rcu_common.print_list("nextlist", rd["nextlist"])
        rcu_common.print_list(f"currlist (waits for batch {int(rd['batch'])})", rd["currlist"])
        rcu_common.print_list("donelist", rd["donelist"])
