/*
 * tiny (Tiny RCU): RCU for a machine with one CPU (the idea of Linux's
 * kernel/rcu/tiny.c), the simplest baseline.
 *
 * With one CPU, the CPU's quiescent state is the whole grace period: once
 * it passes one, no reader that began before can still be running. So
 * there is one list of callbacks and no counters: at each quiescent state
 * (a context switch, a tick from user mode or from the idle loop) every
 * callback queued so far is moved to the done list and RCU_SOFTIRQ is
 * raised to invoke them. No locks (interrupts are masked around the lists),
 * no IPIs, no tasklets, no daemons.
 *
 * Seed 000 Table 1 has no row for it; in its terms: one global list, QS
 * C/I/U, driven by the scheduler and the tick, BH- and IRQ-safe.
 * It needs CONFIG_NR_CPUS=1 (Kconfig enforces it). The doc is
 * docs/rcu/tiny.md.
 */
#include "rcu_internal.h"
#include <rcu_hooks.h>
#include <softirq.h>
#include <percpu.h>
#include <printk.h>
#include <arch/cpu.h>
#include <lockdep.h>

STATIC_ASSERT(CONFIG_NR_CPUS == 1);

struct rcu_tiny_ctrlblk {
	struct list_head waitlist;	/* queued, waiting for the next QS */
	struct list_head donelist;	/* past a QS: to be invoked */
	unsigned long waitlen, donelen;
	unsigned long gpnum;		/* grace periods begun */
};

struct rcu_tiny_ctrlblk rcu_tiny_ctrlblk;

/* Its name (docs/rcu/README.md), a string that gdb and the test runner
 * read from the ELF, and where the papers describe it (the boot line). */
const char rcu_variant_id[] = "tiny";
const char rcu_variant_paper[] = "Tiny RCU, after Linux's kernel/rcu/tiny.c";

void call_rcu(struct rcu_head *head, void (*func)(void *arg), void *arg)
{
	unsigned long flags;

	if (!rcu_prove_queue(head, func))
		return;	/* reported: queued already */

	head->func = func;
	head->arg = arg;
	flags = local_irq_save();
	if (list_empty(&rcu_tiny_ctrlblk.waitlist)) {
		rcu_gp_count_start();
		rcu_gp_begin(++rcu_tiny_ctrlblk.gpnum);	/* waits for the next QS */
	}
	list_add_tail(&head->list, &rcu_tiny_ctrlblk.waitlist);
	rcu_tiny_ctrlblk.waitlen++;
	rcu_stats_queued(head);
	local_irq_restore(flags);
}

/* A quiescent state: everything waiting is now safe to invoke. */
static void rcu_qs(void)
{
	unsigned long flags = local_irq_save();

	if (!list_empty(&rcu_tiny_ctrlblk.waitlist)) {
		rcu_stats_qs();
		rcu_trace_qs(smp_processor_id());
		rcu_stats_list_len(rcu_tiny_ctrlblk.waitlen);
		list_splice_tail_init(&rcu_tiny_ctrlblk.waitlist, &rcu_tiny_ctrlblk.donelist);
		rcu_tiny_ctrlblk.donelen += rcu_tiny_ctrlblk.waitlen;
		rcu_tiny_ctrlblk.waitlen = 0;
		rcu_gp_end(rcu_tiny_ctrlblk.gpnum);
		/* No ksoftirqd wake-up: the context-switch hook runs with the
		 * run-queue lock held. The next irq_exit() runs it. */
		__raise_softirq_irqoff(RCU_SOFTIRQ);
	}
	local_irq_restore(flags);
}

static void rcu_tiny_softirq(void)
{
	lockdep_assert_bh_disabled();	/* RCU_SOFTIRQ */
	LIST_HEAD(list);

	local_irq_disable();
	list_splice_init(&rcu_tiny_ctrlblk.donelist, &list);
	rcu_tiny_ctrlblk.donelen = 0;
	local_irq_enable();
	rcu_invoke_callbacks(&list);
}

void rcu_hook_context_switch(bool voluntary)
{
	rcu_qs();
}

void rcu_hook_tick(enum tick_context ctx)
{
	if (ctx == TICK_USER || ctx == TICK_IDLE)
		rcu_qs();
	rcu_check_stall();
}

void rcu_hook_idle(void)
{
}

void rcu_variant_init_cpu(unsigned int cpu)
{
}

void rcu_variant_init(void)
{
	INIT_LIST_HEAD(&rcu_tiny_ctrlblk.waitlist);
	INIT_LIST_HEAD(&rcu_tiny_ctrlblk.donelist);
	open_softirq(RCU_SOFTIRQ, rcu_tiny_softirq);
}

void rcu_variant_late_init(void)
{
}

bool rcu_variant_stall_info(struct rcu_stall_info *si)
{
	si->gpnum = rcu_tiny_ctrlblk.gpnum;
	cpumask_clear(&si->owing);
	if (!list_empty(&rcu_tiny_ctrlblk.waitlist))
		cpumask_set(0, &si->owing);
	return !cpumask_empty(&si->owing);
}

void rcu_variant_show_state(void)
{
	printk("rcu (tiny): gpnum %lu waitlist %lu donelist %lu\n", rcu_tiny_ctrlblk.gpnum,
	       rcu_tiny_ctrlblk.waitlen, rcu_tiny_ctrlblk.donelen);
}
