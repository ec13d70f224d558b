"""qs-rcu for sched, rcu-sched (kernel/rcu/rcu_sched.c, seed 000 section 5.6, Figures
28-32): the ring of per-CPU counters (each CPU's ring_count beside its
neighbour's, and who holds the token), finished_count (when the CPU's next
rcu_batch_done() is due), the pending count, and each CPU's two halves of
per-context queues (process, softirq, hard IRQ) with their callbacks."""
from quiescent import nr_cpus, per_cpu
import gdb
import rcu_common

CONTEXTS = ("process", "softirq", "irq")


def chain(head, limit=6):
    """(count, [func names]) of a singly linked chain through list.next."""
    rcu_head = gdb.lookup_type("struct rcu_head").pointer()
    count, shown = 0, []
    node = head
    while int(node) and count < 100000:
        h = node.cast(rcu_head)
        if len(shown) < limit:
            shown.append(f"{rcu_common.symbol_of(int(h['func']))}({int(h['arg']):#x})")
        count += 1
        node = h["list"]["next"]
    return count, shown


def show():
    ready = int(gdb.parse_and_eval("rcu_ring_ready"))
    pending = int(gdb.parse_and_eval("rcu_pending")["counter"])
    ncpus = int(gdb.parse_and_eval("rcu_ring_cpus"))
    leader = int(gdb.parse_and_eval("rcu_ring_leader"))
    gpnum = int(gdb.parse_and_eval("rcu_sched_gpnum"))
    gp_open = int(gdb.parse_and_eval("rcu_sched_gp_open"))
    gp_start = int(gdb.parse_and_eval("rcu_sched_gp_start"))
    print(f"rcu-sched: rcu_pending {pending}; ring of {ncpus} CPUs"
          f"{'' if ready else ' (not built yet)'}, leader cpu{leader}; "
          f"round {gpnum} {'open since the leader was at ' + str(gp_start) if gp_open else 'closed'}"
          f"{' (ends when the leader publishes ' + str(gp_start + ncpus + 1) + ')' if gp_open else ''}")
    rcu_common.show_generic()
    holders = []
    for cpu in range(nr_cpus()):
        rb = per_cpu("rcu_batch", cpu)
        nxt = int(rb["ring_prev_cpu"])
        mine = int(rb["ring_count"])
        theirs = int(per_cpu("rcu_batch", nxt)["ring_count"])
        due = int(rb["batch_due"])
        token = due or theirs + 1 != mine
        if token and (pending or gp_open):
            holders.append(cpu)
        q = int(rb["queueing"])
        print(f"cpu{cpu}: ring_count {mine} (prev cpu{nxt}: {theirs}) "
              f"finished_count {int(rb['finished_count'])}"
              f"{' batch due' if due else ''}"
              f"{' <- holds the token' if token and (pending or gp_open) else ''}; "
              f"rcu_batch_done() {int(rb['batches'])} times, kicks {int(rb['kicks'])}, "
              f"busy token ticks {int(rb['token_ticks'])}")
        for half, label in ((q, "queueing"), (1 - q, "waiting")):
            for ctx in range(len(CONTEXTS)):
                n, shown = chain(rb["head"][half][ctx])
                if n:
                    print(f"    head[{half}][{ctx}] ({label}, {CONTEXTS[ctx]}): {n} callback"
                          f"{'s' if n != 1 else ''}: {', '.join(shown)}"
                          f"{' ...' if n > len(shown) else ''}")
    if pending or gp_open:
        print(f"  CPUs that can advance now (the ring waits on them): "
              f"{' '.join(map(str, holders)) if holders else 'none'}")
