"""qs-rcu for poll, rcu-poll (kernel/rcu/rcu_poll.c, seed 000 section 5.3, Figures
18-20 and 40-43): whether a grace period is being polled for, the polling mask
rcu_qsmask (CPUs not yet seen to pass a quiescent state), each CPU's
quiescent counter against its snapshot rcu_quiescent_checkpoint[], and the
one global pair of callback lists."""
import gdb
import rcu_common


def show():
    gpnum = int(gdb.parse_and_eval("rcu_gpnum"))
    polling = int(gdb.parse_and_eval("rcu_polling_in_progress"))
    state = "polling" if polling else "idle"
    print(f"rcu-poll: grace period {gpnum} ({state}), "
          f"nxtlist {int(gdb.parse_and_eval('rcu_nxtlen'))} "
          f"curlist {int(gdb.parse_and_eval('rcu_curlen'))} "
          f"irqlist {int(gdb.parse_and_eval('rcu_irqlen'))}; "
          f"tasklet state {int(gdb.parse_and_eval('rcu_tasklet')['state']):#x}")
    rows = rcu_common.poll_snapshots(gpnum, polling)
    rcu_common.show_generic()
    for cpu, (q, c, note) in enumerate(rows):
        print(f"cpu{cpu}: RCU_quiescent {q} checkpoint {c}{note}")
    rcu_common.print_list("rcu_nxtlist (waits for the next grace period)",
                          gdb.parse_and_eval("rcu_nxtlist"))
    rcu_common.print_list(f"rcu_curlist (waits for grace period {gpnum})",
                          gdb.parse_and_eval("rcu_curlist"))
    rcu_common.print_list("rcu_irqlist (queued from IRQ context)",
                          gdb.parse_and_eval("rcu_irqlist"))
