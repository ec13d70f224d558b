/*
 * What the rcu-poll family (poll, kernel/rcu/rcu_poll.c, and poll-percpu,
 * rcu_poll_percpu.c) shares: the names of its polling state, its stall
 * report, and the quiescent-state counter, seed 000 Figure 19's
 * RCU_quiescent(cpu)++, "the one local increment in the scheduler", which
 * the polling CPU snapshots (Figure 40) and compares (Figure 41).
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
#ifndef _KERNEL_RCU_POLL_COMMON_H
#define _KERNEL_RCU_POLL_COMMON_H

#include "rcu_internal.h"
#include <percpu.h>
#include <spinlock.h>
#include <barrier.h>
#include <time.h>

DECLARE_PER_CPU(long, rcu_quiescent);
#define RCU_quiescent(cpu)	(per_cpu(rcu_quiescent, cpu))

static inline void rcu_poll_quiescent(void)
{
	long *q = this_cpu_ptr(&rcu_quiescent);

	WRITE_ONCE(*q, *q + 1);
	smp_mb();	/* the bump before any later reader's loads (store buffering) */
}

/*
 * The polling state both variants define under these names (Figures
 * 40-42): the last grace period started, whether one is being polled for,
 * and the CPUs not yet seen to pass a quiescent state since it began.
 */
extern spinlock_t rcu_lock;
extern unsigned long rcu_gpnum;
extern int rcu_polling_in_progress;
extern cpumask_t rcu_qsmask;

/*
 * Both variants' rcu_variant_stall_info(), from the tick in hard-IRQ
 * context: rcu_lock is not IRQ-safe (the tick may have interrupted the
 * tasklet holding it on this CPU), so read without it. A torn view only
 * makes a warning a little stale.
 */
static inline bool rcu_poll_stall_info(struct rcu_stall_info *si)
{
	unsigned int i;
	s64 age;

	si->gpnum = READ_ONCE(rcu_gpnum);
	/*
	 * These grace periods last tens of microseconds, so one may start on
	 * another CPU between stall.c's reading of the clock and of its start
	 * time; stall.c's age then names a grace period that has just begun.
	 * Recheck the age here, signed, after reading gpnum.
	 */
	smp_rmb();
	age = (s64)(ktime_get_ns() - READ_ONCE(rcu_gp_seq.start_ns));
	if (age < (s64)rcu_stall_timeout_ms() * 1000000)
		return false;
	for (i = 0; i < CPUMASK_LONGS; i++)
		si->owing.bits[i] = READ_ONCE(rcu_qsmask.bits[i]);
	return READ_ONCE(rcu_polling_in_progress) && !cpumask_empty(&si->owing);
}

#endif
