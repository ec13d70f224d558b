/*
 * The scheduler hooks of the rcu-poll family (poll, kernel/rcu/rcu_poll.c,
 * and poll-percpu, rcu_poll_percpu.c), the same in both: every pass
 * through the scheduler and the idle loop is seed 000 Figure 19's
 * RCU_quiescent(cpu)++ (poll_common.h), and the tick only looks for
 * stalls. Built with whichever of the two is chosen (variants.mk).
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
