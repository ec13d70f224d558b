/*
 * busted: grace periods that end at once. call_rcu() invokes
 * the callback immediately, so synchronize_kernel() returns immediately
 * too. It exists to test the tests: rcutorture must report FAILURE on it
 * (a reader sees an element whose pipeline age advanced while it held it,
 * or freed memory). Never build it for anything else.
 *
 * Seed 000 Table 1 row, for contrast: no lists, no quiescent states,
 * nothing drives it because there is nothing to wait for. The doc is
 * docs/rcu/busted.md.
 */
#include "rcu_internal.h"
#include <rcu_hooks.h>
#include <printk.h>
#include <arch/cpu.h>

static unsigned long busted_gpnum;

/* Its name (docs/rcu/README.md), a string that gdb and the test runner
 * read from the ELF, and where the papers describe it (the boot line). */
const char rcu_variant_id[] = "busted";
const char rcu_variant_paper[] = "grace periods that end at once, to test the tests";

void call_rcu(struct rcu_head *head, void (*func)(void *arg), void *arg)
{
	unsigned long flags, gp;

	if (!rcu_prove_queue(head, func))
		return;	/* reported: queued already */
	flags = local_irq_save();
	gp = ++busted_gpnum;

	rcu_stats_queued(head);
	rcu_gp_count_start();
	rcu_gp_begin(gp);		/* a "grace period" with no waiting at all */
	rcu_gp_end(gp);
	local_irq_restore(flags);
	rcu_prove_dequeue(head);
	func(arg);
	WRITE_ONCE(this_cpu(rcu_cpu_stats).invoked, this_cpu(rcu_cpu_stats).invoked + 1);
}

/* No expedited grace period either: update.c's would wait for real. */
void synchronize_rcu_expedited(void)
{
	synchronize_kernel();
}

void rcu_hook_context_switch(bool voluntary) {}
void rcu_hook_tick(enum tick_context ctx) {}
void rcu_hook_idle(void) {}
void rcu_variant_init_cpu(unsigned int cpu) {}
void rcu_variant_init(void) {}
void rcu_variant_late_init(void) {}

bool rcu_variant_stall_info(struct rcu_stall_info *si)
{
	return false;
}

void rcu_variant_show_state(void)
{
	printk("rcu (busted): %lu fake grace periods\n", busted_gpnum);
}
