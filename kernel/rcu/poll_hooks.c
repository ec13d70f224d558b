/*
 * The scheduler hooks of the rcu-poll family (poll, kernel/rcu/rcu_poll.c,
 * and poll-percpu, rcu_poll_percpu.c), the same in both: every pass
 * through the scheduler and the idle loop is seed 000 Figure 19's
 * RCU_quiescent(cpu)++ (poll_common.h), and the tick only looks for
 * stalls, which rcu_variant_stall_info() describes from the polling
 * state both keep. Built with whichever of the two is chosen
 * (variants.mk). And the half of CPU hotplug that is the same in both: a
 * CPU going offline leaves rcu_qsmask.
 */
#include "poll_common.h"
#include <rcu_hooks.h>
#include <rcu_test.h>

void rcu_hook_context_switch(bool voluntary)
{
	rcu_poll_quiescent();
}

void rcu_hook_tick(enum tick_context ctx)
{
	/* rcu_break: every tick counts as a quiescent state, even one that
	 * interrupted a reader (broken on purpose, to test torture). */
	if (rcu_break) {
		long *q = this_cpu_ptr(&rcu_quiescent);
		WRITE_ONCE(*q, *q + 1);
	}
	if (READ_ONCE(rcu_polling_in_progress))
		rcu_check_stall();
}

/* The idle loop holds no read-side reference (rcu_poll.c, note 3). */
void rcu_hook_idle(void)
{
	rcu_poll_quiescent();
}

long *rcu_variant_remote_qs_counter(unsigned int cpu)
{
	return per_cpu_ptr(&rcu_quiescent, cpu);
}

/* Seed 000 Table 1: rcu-poll is "BH only", IRQ-unsafe by choice: its
 * call_rcu() from hard IRQ or with interrupts off warns and defers
 * (rcu_poll.c note 7, rcu_poll_percpu.c note E). */
bool rcu_call_rcu_irq_safe(void)
{
	return false;
}

/*
 * From the tick in hard-IRQ context: rcu_lock is not IRQ-safe (the tick
 * may have interrupted the tasklet holding it on this CPU), so read
 * without it. A torn view only makes a warning a little stale.
 */
bool rcu_variant_stall_info(struct rcu_stall_info *si)
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

/* Figure 40: every grace period sends every CPU a reschedule IPI as it
 * begins, so an expedited one is a normal one (update.c). */
bool rcu_variant_gp_forced(void)
{
	return true;
}

/*
 * CPU hotplug (docs/hotplug.md; seed 000 and seed 004 predate it). On the
 * dying CPU, interrupts off, after it left cpu_online_mask with a full
 * barrier: it runs no reader (the stopper switched out whatever ran, a
 * pass through the scheduler), so it leaves rcu_qsmask, as Linux 2.6's
 * rcu_offline_cpu() cleared the dying CPU's bit. Under rcu_lock, which
 * Figure 40 holds while it reads cpu_online_mask: a grace period either
 * started without this CPU or sees its bit go here. If that was the last
 * bit, the next poll (Figure 41) completes the grace period: the pollers
 * keep polling while one is in progress. The callbacks are each
 * variant's own (rcu_variant_cpu_dead()).
 */
bool rcu_variant_hotplug = true;

void rcu_variant_cpu_offline(unsigned int cpu)
{
	spin_lock(&rcu_lock);
	if (cpumask_test(cpu, &rcu_qsmask)) {
		cpumask_clear_cpu(cpu, &rcu_qsmask);
		rcu_stats_qs();
		rcu_trace_qs(cpu);
	}
	spin_unlock(&rcu_lock);
}
