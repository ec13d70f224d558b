/*
 * The rcu-poll family's quiescent-state counter (kernel/rcu/rcu_poll.c and
 * rcu_poll_percpu.c): seed 000 Figure 19's RCU_quiescent(cpu)++, "the one
 * local increment in the scheduler", which the polling CPU snapshots
 * (Figure 40) and compares (Figure 41).
 *
 * The increment is followed by smp_mb(), which Figure 19 does not show.
 * The poller's side is "remove the element; smp_mb(); read every CPU's
 * counter", this side is "bump the counter; begin a reader; load the
 * element": the store-buffering pattern. Without a fence here, x86 lets
 * the reader's load complete while the bump still sits in this CPU's
 * store buffer; the poller then snapshots the old count, later sees the
 * bump, and takes it for a quiescent state after its snapshot, although
 * it came before the reader that still holds the element
 * (kernel/test/test_rcu_litmus.c shows it under QEMU). With the fence,
 * either the poller's snapshot includes the bump, or the reader's load
 * sees the removal. The 2.4 scheduler that Figure 19 patched gave the
 * same order by accident of its locking; ours releases the run-queue lock
 * with a plain store, which orders nothing against later loads.
 */
#ifndef _KERNEL_RCU_POLL_QS_H
#define _KERNEL_RCU_POLL_QS_H

#include <percpu.h>
#include <barrier.h>

DECLARE_PER_CPU(long, rcu_quiescent);
#define RCU_quiescent(cpu)	(per_cpu(rcu_quiescent, cpu))

static inline void rcu_poll_quiescent(void)
{
	long *q = this_cpu_ptr(&rcu_quiescent);

	WRITE_ONCE(*q, *q + 1);
	smp_mb();	/* the bump before any later reader's loads (store buffering) */
}

#endif
