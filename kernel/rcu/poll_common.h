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
#include <smp.h>
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
 * the CPUs not yet seen to pass a quiescent state since it began, and
 * each CPU's counter as it was then.
 */
extern spinlock_t rcu_lock;
extern unsigned long rcu_gpnum;
extern int rcu_polling_in_progress;
extern cpumask_t rcu_qsmask;
extern long rcu_quiescent_checkpoint[CONFIG_NR_CPUS];

/*
 * Figure 40's loop, after the caller has numbered the new grace period:
 * mark every online CPU (rcu_poll.c note 1), snapshot its counter, and
 * add it to *force, the CPUs the caller sends a reschedule IPI once it
 * has dropped rcu_lock. rcu_lock held. Which callbacks wait for this
 * grace period, and where, is each variant's own.
 */
static inline void rcu_poll_snapshot_cpus(cpumask_t *force)
{
	unsigned int cpu;

	rcu_gp_count_start();	/* before the snapshots */
	smp_mb();		/* the updaters' removals before the snapshots */
	for_each_online_cpu(cpu) {
		cpumask_set(cpu, &rcu_qsmask);
		rcu_quiescent_checkpoint[cpu] = READ_ONCE(RCU_quiescent(cpu));
		cpumask_set(cpu, force);
	}
	rcu_gp_begin(rcu_gpnum);	/* after the mask: gdb stops here to see it full */
}

/*
 * Figure 41's loop: clear the bit of every CPU whose counter has moved
 * since the snapshot. True when none is left: the grace period is over,
 * and the caller completes it (Figure 42, each variant's own). rcu_lock
 * held, a grace period in progress.
 */
static inline bool rcu_poll_scan_cpus(void)
{
	unsigned int cpu;

	for_each_online_cpu(cpu) {
		if (!cpumask_test(cpu, &rcu_qsmask))
			continue;
		if (rcu_quiescent_checkpoint[cpu] != READ_ONCE(RCU_quiescent(cpu))) {
			cpumask_clear_cpu(cpu, &rcu_qsmask);
			rcu_stats_qs();
			rcu_trace_qs(cpu);
		}
	}
	return cpumask_empty(&rcu_qsmask);
}

#endif
