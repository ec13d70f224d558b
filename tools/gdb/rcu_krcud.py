"""qs-rcu for krcud, the paper's rcu (kernel/rcu/rcu_krcud.c, seed 000
section 5.2, Appendix A.2, Figures 15-17): rcu_currbatch, rcu_maxbatch, the
CPUs in rcu_cpumask that still owe the current batch a quiescent state, the
CPUs in rcu_active_cpumask that hold callbacks, the one global rcu_timer,
then each CPU's counters, its krcud daemon and its nxtlist, curlist and
donelist."""
from quiescent import nr_cpus, per_cpu
import gdb
import rcu_common

TASK_STATES = {0: "running", 1: "sleeping", 2: "sleeping (uninterruptible)",
               4: "new", 8: "dead"}


def _timer_state(timer, jiffies):
    entry = timer["entry"]
    if int(entry["next"]) != int(entry.address):
        return f"armed, fires in {int(timer['expires']) - jiffies} jiffies"
    return "not armed (no callbacks anywhere, or its handler is running now)"


def _daemon(rd):
    task = rd["krcud_task"]
    if int(task) == 0:
        return "not started (before late init)"
    state = int(task["state"])
    return (f"{task['name'].string()} {TASK_STATES.get(state, hex(state))},"
            f" sema count {int(rd['krcud_sema']['count'])},"
            f" runs {int(rd['krcud_runs'])}, wake-ups {int(rd['krcud_wakeups'])}")


def show():
    owing = rcu_common.cpumask_cpus(gdb.parse_and_eval("rcu_cpumask"))
    active = rcu_common.cpumask_cpus(gdb.parse_and_eval("rcu_active_cpumask"))
    cur = int(gdb.parse_and_eval("rcu_currbatch"))
    mx = int(gdb.parse_and_eval("rcu_maxbatch"))
    jiffies = int(gdb.parse_and_eval("jiffies"))
    state = "in progress" if owing else ("idle" if mx < cur else "requested")
    print(f"rcu (krcud): rcu_currbatch {cur} rcu_maxbatch {mx} ({state}); jiffies {jiffies}")
    print(f"  CPUs that still owe batch {cur} a quiescent state (rcu_cpumask): "
          f"{' '.join(map(str, owing)) if owing else 'none'}")
    print(f"  CPUs holding callbacks (rcu_active_cpumask): "
          f"{' '.join(map(str, active)) if active else 'none'}")
    print(f"  rcu_timer: {_timer_state(gdb.parse_and_eval('rcu_timer'), jiffies)};"
          f" timeouts so far {int(gdb.parse_and_eval('rcu_timeouts'))}")
    rcu_common.show_generic()
    for cpu in range(nr_cpus()):
        rd = per_cpu("rcu_data", cpu)
        print(f"cpu{cpu}: qsctr {int(rd['qsctr'])} last_qsctr {int(rd['last_qsctr'])}"
              f"{' (invalid: not yet snapshotted)' if int(rd['last_qsctr']) == 0 else ''}"
              f" batch {int(rd['batch'])}; krcud: {_daemon(rd)}")
        rcu_common.print_list("nxtlist", rd["nxtlist"])
        rcu_common.print_list(f"curlist (waits for batch {int(rd['batch'])})", rd["curlist"])
        rcu_common.print_list("donelist", rd["donelist"])
