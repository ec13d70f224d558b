"""qs-rcu for poll-percpu (kernel/rcu/rcu_poll_percpu.c, seed 004 section 3:
rcu-poll of seed 000 section 5.3 with per-CPU callback lists): the global
polling state (grace period started, completed and wanted, the polling mask
rcu_qsmask), each CPU's quiescent counter against its snapshot
rcu_quiescent_checkpoint[], and each CPU's own nxtlist, curlist (with the
grace period it waits for), irqlist and tasklet."""
from quiescent import per_cpu
import gdb
import rcu_common


def show():
    gpnum = int(gdb.parse_and_eval("rcu_gpnum"))
    completed = int(gdb.parse_and_eval("rcu_completed"))
    wanted = int(gdb.parse_and_eval("rcu_gp_wanted"))
    polling = int(gdb.parse_and_eval("rcu_polling_in_progress"))
    state = "polling" if polling else "idle"
    print(f"rcu (poll-percpu): grace period {gpnum} ({state}), completed {completed}, "
          f"wanted {wanted}")
    rows = rcu_common.poll_snapshots(gpnum, polling)
    rcu_common.show_generic()
    for cpu, (q, c, note) in enumerate(rows):
        rd = per_cpu("rcu_poll_data", cpu)
        if not bool(per_cpu("rcu_cpu_ready", cpu)):
            print(f"cpu{cpu}: RCU_quiescent {q} (not online)")
            continue
        batch = int(rd["batch"])
        print(f"cpu{cpu}: RCU_quiescent {q} checkpoint {c}{note}; "
              f"nxtlist {int(rd['nxtlen'])} curlist {int(rd['curlen'])} "
              f"irqlist {int(rd['irqlen'])} tasklet state {int(rd['tasklet']['state']):#x}")
        rcu_common.print_list("nxtlist (waits for the next grace period)", rd["nxtlist"])
        done = " (done: invoked at this CPU's next tasklet run)" if completed - batch >= 0 else ""
        rcu_common.print_list(f"curlist (waits for grace period {batch}{done})", rd["curlist"])
        rcu_common.print_list("irqlist (queued from IRQ context)", rd["irqlist"])
