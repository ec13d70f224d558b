"""qs-rcu for taskq, rcu-taskq (kernel/rcu/rcu_taskq.c, seed 000 section 5.5, Figures
24-27): the one global wait list rcu_wait_list, the snapshot that
process_pending_rcus() (on keventd) is waiting for, the grace period in
progress with the CPUs whose krcud daemon was woken and has not answered,
and each daemon's last answered grace period and semaphore count."""
from quiescent import nr_cpus, per_cpu
import gdb
import rcu_common


def _mask_cpus(name):
    return rcu_common.cpumask_cpus(gdb.parse_and_eval(name))


def show():
    gpnum = int(gdb.parse_and_eval("rcu_gpnum"))
    waiter = int(gdb.parse_and_eval("rcu_gp_waiter_cpu"))
    ready = bool(int(gdb.parse_and_eval("rcu_taskq_ready")))
    state = f"in progress, wait_for_rcu() on cpu{waiter}" if waiter >= 0 else "idle"
    print(f"rcu-taskq: grace period {gpnum} ({state}); wait_list "
          f"{int(gdb.parse_and_eval('rcu_wait_len'))} current "
          f"{int(gdb.parse_and_eval('rcu_current_len'))}; rcu_task runs "
          f"{int(gdb.parse_and_eval('rcu_task_runs'))} starts "
          f"{int(gdb.parse_and_eval('rcu_task_starts'))}"
          f"{'' if ready else ' (keventd and krcud not up yet: callbacks only queue)'}")
    print(f"  rcu_sema count {int(gdb.parse_and_eval('rcu_sema')['count'])}, "
          f"daemons skipped (rcu_break) {int(gdb.parse_and_eval('rcu_krcud_skipped'))}")
    woken = _mask_cpus("rcu_gp_woken") if waiter >= 0 else []
    daemons = _mask_cpus("rcu_krcud_mask")
    owing = [c for c in woken if int(per_cpu("krcud_data", c)["gp"]) != gpnum]
    print(f"  CPUs whose krcud still owes grace period {gpnum} an answer: "
          f"{' '.join(map(str, owing)) if owing else 'none'}")
    rcu_common.show_generic()
    for cpu in range(nr_cpus()):
        if cpu not in daemons:
            print(f"cpu{cpu}: no krcud daemon")
            continue
        kd = per_cpu("krcud_data", cpu)
        if waiter == cpu:
            note = " (runs wait_for_rcu(): not woken, keventd itself is its quiescent state)"
        elif cpu in owing:
            note = " (woken, not yet run: owes a quiescent state)"
        elif cpu in woken:
            note = " (answered)"
        else:
            note = ""
        print(f"cpu{cpu}: krcud answered gp {int(kd['gp'])} runs {int(kd['runs'])} "
              f"krcud_sema {int(kd['sema']['count'])}{note}")
    rcu_common.print_list("rcu_wait_list (waits for the next grace period)",
                          gdb.parse_and_eval("rcu_wait_list"))
    cur = gdb.parse_and_eval("rcu_current")
    if int(cur):
        rcu_common.print_list(f"rcu_current_list (waits for grace period {gpnum})",
                              cur.dereference())
    else:
        print("    rcu_current_list: none being waited for")
