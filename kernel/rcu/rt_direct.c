/*
 * Direct invocation, call_rcu_rt(): seed 003 section 4.2, Figures 9-12
 * (CONFIG_RCU_CALL_RT_DIRECT, which Kconfig allows only with NR_CPUS=1;
 * docs/rcu/realtime.md).
 *
 * On a uniprocessor, an updater that has unlinked an element, and that
 * knows no reference to it lives on its own call stack, may free it at
 * once: there is no other CPU to hold one. Such callers use call_rcu_rt()
 * instead of call_rcu() (the paper: the dcache's d_free() and the route
 * cache's rt_free()/rt_drop(), Figures 10 and 12), and no callbacks pile
 * up for the end of a grace period.
 *
 * What the caller must guarantee: no reader it could have interrupted
 * holds the element. An updater in softirq context interrupts process
 * context, so readers of structures updated from softirq must keep
 * softirqs off: rcu_read_lock_bh() (Figure 11, include/rcupdate.h). A hard
 * interrupt can interrupt even those readers, so from hard IRQ we fall
 * back to call_rcu() and warn once.
 *
 * Without the option (or with it switched off at run time), call_rcu_rt()
 * is call_rcu() (the weak definition in update.c; Figure 9 lines 9-14).
 */
#include "rcu_internal.h"
#include "rt.h"
#include <preempt.h>
#include <atomic.h>
#include <panic.h>
#include <printk.h>

_Static_assert(CONFIG_NR_CPUS == 1, "call_rcu_rt() direct invocation needs NR_CPUS=1");

bool rcu_direct_on = true;		/* run-time switch (rcu_rt_set_mode()) */
static atomic_long_t rcu_direct_calls;

/* Figure 9 lines 1-7. */
void call_rcu_rt(struct rcu_head *head, void (*func)(void *arg), void *arg)
{
	if (!READ_ONCE(rcu_direct_on) || WARN_ON_ONCE(in_irq())) {
		call_rcu(head, func, arg);
		return;
	}
	head->func = func;
	head->arg = arg;
	atomic_long_inc(&rcu_direct_calls);
	func(arg);
}

void rcu_direct_get_stats(struct rcu_rt_stats *s)
{
	s->direct += atomic_long_read(&rcu_direct_calls);
}
