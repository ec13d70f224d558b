"""qs-rcu for rcu-poll (kernel/rcu/poll.c, seed 000 section 5.3, Figures 18-20
and 40-43): whether a grace period is being polled for, the polling mask
rcu_qsmask (CPUs not yet seen to pass a quiescent state), each CPU's
quiescent counter against its snapshot rcu_quiescent_checkpoint[], and the
one global pair of callback lists."""
from quiescent import nr_cpus, per_cpu
import gdb
import rcu_common


def show():
    gpnum = int(gdb.parse_and_eval("rcu_gpnum"))
    polling = int(gdb.parse_and_eval("rcu_polling_in_progress"))
    owing = rcu_common.cpumask_cpus(gdb.parse_and_eval("rcu_qsmask"))
    state = "polling" if polling else "idle"
    print(f"rcu-poll: grace period {gpnum} ({state}), "
          f"nxtlist {int(gdb.parse_and_eval('rcu_nxtlen'))} "
          f"curlist {int(gdb.parse_and_eval('rcu_curlen'))} "
          f"irqlist {int(gdb.parse_and_eval('rcu_irqlen'))}; "
          f"tasklet state {int(gdb.parse_and_eval('rcu_tasklet')['state']):#x}")
    print(f"  rcu_qsmask (CPUs that still owe grace period {gpnum} a quiescent state): "
          f"{' '.join(map(str, owing)) if (polling and owing) else 'none'}")
    rcu_common.show_generic()
    checkpoint = gdb.parse_and_eval("rcu_quiescent_checkpoint")
    for cpu in range(nr_cpus()):
        q = int(per_cpu("rcu_quiescent", cpu))
        c = int(checkpoint[cpu])
        if polling and cpu in owing:
            note = " (owes: not moved since the snapshot)" if q == c else \
                   " (moved: clears at the next poll)"
        else:
            note = ""
        print(f"cpu{cpu}: RCU_quiescent {q} checkpoint {c}{note}")
    rcu_common.print_list("rcu_nxtlist (waits for the next grace period)",
                          gdb.parse_and_eval("rcu_nxtlist"))
    rcu_common.print_list(f"rcu_curlist (waits for grace period {gpnum})",
                          gdb.parse_and_eval("rcu_curlist"))
    rcu_common.print_list("rcu_irqlist (queued from IRQ context)",
                          gdb.parse_and_eval("rcu_irqlist"))
