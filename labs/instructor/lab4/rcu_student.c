/*
 * student: Lab 4's model answer (not the graded reference, which is
 * rcu-poll itself: labs/README.md), the design that
 * labs/lab4-rcu-implementation/README.md guides to: a counter-based RCU
 * after rcu-poll (seed 000 section 5.3, Figures 18-20, 40-43) in the
 * paper's names (RCU_quiescent(cpu), rcu_nxtlist, rcu_curlist,
 * rcu_quiescent_checkpoint[], rcu_qsmask; all but the counters under
 * rcu_lock, with interrupts off: call_rcu() may come from an interrupt).
 *
 * Seed 000 Table 1 row: batching yes; quiescent states deduced from
 * counters; driven by the scheduling-clock tick; one global queue; QS C
 * (context switch), U (tick from user mode), I (idle); BH- and IRQ-safe.
 *
 * Departures: (1) no tasklet polls the counters and no IPI forces a
 * reschedule: each CPU compares its own counter with its snapshot at its
 * own tick, so a grace period lasts at least one tick (rcu-poll's ends in
 * microseconds); (2) as in kernel/rcu/poll_common.h, the counter's
 * increment is followed by smp_mb() (store buffering against the snapshot).
 *
 * CPU hotplug (docs/hotplug.md; not in the lab's contract, here so that
 * the answer survives torture.onoff): a CPU going down runs no reader, so
 * it leaves rcu_qsmask as its quiescent state, ending the grace period if
 * it was the last; rcu_start_gp() reads cpu_online_mask under rcu_lock, so
 * a grace period starts without it or sees it go. Global lists: none move.
 */
#include "rcu_internal.h"
#include <rcu_hooks.h>
#include <softirq.h>
#include <spinlock.h>
#include <percpu.h>
#include <smp.h>
#include <printk.h>
#include <arch/cpu.h>

const char rcu_variant_id[] = "student";
const char rcu_variant_paper[] = "Lab 4's counter-based RCU (seed 000 section 5.3)";

DEFINE_PER_CPU(long, rcu_quiescent);
#define RCU_quiescent(cpu)	(per_cpu(rcu_quiescent, cpu))

static spinlock_t rcu_lock = SPINLOCK_INIT("rcu_lock");
static LIST_HEAD(rcu_nxtlist);
static LIST_HEAD(rcu_curlist);
static LIST_HEAD(rcu_donelist);
static long rcu_quiescent_checkpoint[CONFIG_NR_CPUS];
static cpumask_t rcu_qsmask;
static unsigned long rcu_gpnum;
static int rcu_gp_active;

/* Figure 19, with the fence of poll_common.h. */
static void rcu_qs(void)
{
	long *q = this_cpu_ptr(&rcu_quiescent);

	WRITE_ONCE(*q, *q + 1);
	smp_mb();	/* the bump before any later reader's loads */
}

/* Figure 40: start a grace period if none runs and callbacks wait.
 * rcu_lock held. */
static void rcu_start_gp(void)
{
	unsigned int cpu;

	if (rcu_gp_active || list_empty(&rcu_nxtlist))
		return;
	rcu_gp_count_start();
	list_splice_tail_init(&rcu_nxtlist, &rcu_curlist);
	smp_mb();	/* the updaters' removals before the snapshots */
	for_each_online_cpu(cpu) {
		rcu_quiescent_checkpoint[cpu] = READ_ONCE(RCU_quiescent(cpu));
		cpumask_set(cpu, &rcu_qsmask);
	}
	rcu_gp_active = 1;
	rcu_gp_begin(++rcu_gpnum);
}

void call_rcu(struct rcu_head *head, void (*func)(void *arg), void *arg)
{
	unsigned long flags;

	head->func = func;
	head->arg = arg;
	flags = spin_lock_irqsave(&rcu_lock);
	list_add_tail(&head->list, &rcu_nxtlist);
	rcu_stats_queued(head);
	rcu_start_gp();
	spin_unlock_irqrestore(&rcu_lock, flags);
}

/* cpu has passed a quiescent state: clear it; the last one ends the grace
 * period (Figure 42) and says so. rcu_lock held, a grace period active. */
static bool rcu_cpu_quiet(unsigned int cpu)
{
	cpumask_clear_cpu(cpu, &rcu_qsmask);
	rcu_stats_qs();
	rcu_trace_qs(cpu);
	if (!cpumask_empty(&rcu_qsmask))
		return false;
	rcu_gp_active = 0;
	rcu_gp_end(rcu_gpnum);
	list_splice_tail_init(&rcu_curlist, &rcu_donelist);
	rcu_start_gp();
	return true;
}

/* Figure 41 for this CPU only: has it passed a quiescent state since the
 * snapshot? The last one to report ends the grace period (Figure 42). */
static void rcu_check_this_cpu(void)
{
	unsigned int cpu = smp_processor_id();
	bool done = false;
	unsigned long flags;

	if (!READ_ONCE(rcu_gp_active) || !cpumask_test(cpu, &rcu_qsmask))
		return;
	flags = spin_lock_irqsave(&rcu_lock);
	if (rcu_gp_active && cpumask_test(cpu, &rcu_qsmask) &&
	    READ_ONCE(RCU_quiescent(cpu)) != rcu_quiescent_checkpoint[cpu])
		done = rcu_cpu_quiet(cpu);
	spin_unlock_irqrestore(&rcu_lock, flags);
	if (done)
		raise_softirq(RCU_SOFTIRQ);
}

/* CPU hotplug (see the top): on the dying CPU, interrupts off, out of
 * cpu_online_mask; the softirq runs before it parks. */
bool rcu_variant_hotplug = true;

void rcu_variant_cpu_offline(unsigned int cpu)
{
	bool done = false;

	spin_lock(&rcu_lock);
	if (rcu_gp_active && cpumask_test(cpu, &rcu_qsmask))
		done = rcu_cpu_quiet(cpu);
	spin_unlock(&rcu_lock);
	if (done)
		raise_softirq(RCU_SOFTIRQ);
}

/* Figure 43: run what the ended grace periods released, without the lock
 * (a callback may call call_rcu()). */
static void rcu_student_softirq(void)
{
	LIST_HEAD(list);
	unsigned long flags = spin_lock_irqsave(&rcu_lock);

	list_splice_init(&rcu_donelist, &list);
	spin_unlock_irqrestore(&rcu_lock, flags);
	rcu_invoke_callbacks(&list);
}

void rcu_hook_context_switch(bool voluntary)
{
	rcu_qs();
}

void rcu_hook_tick(enum tick_context ctx)
{
	if (!rcu_this_cpu_ready())
		return;
	/* rcu_break: a tick that interrupted a reader counts too (broken on
	 * purpose, so that torture must catch it). */
	if (ctx == TICK_USER || ctx == TICK_IDLE || rcu_break)
		rcu_qs();
	rcu_check_this_cpu();
	if (READ_ONCE(rcu_gp_active))
		rcu_check_stall();
}

void rcu_hook_idle(void)
{
	rcu_qs();
}

void rcu_variant_init_cpu(unsigned int cpu)
{
}

void rcu_variant_init(void)
{
	open_softirq(RCU_SOFTIRQ, rcu_student_softirq);
}

void rcu_variant_late_init(void)
{
}

bool rcu_variant_stall_info(struct rcu_stall_info *si)
{
	unsigned long flags = spin_lock_irqsave(&rcu_lock);
	bool active = rcu_gp_active;

	si->gpnum = rcu_gpnum;
	cpumask_copy(&si->owing, &rcu_qsmask);
	spin_unlock_irqrestore(&rcu_lock, flags);
	return active && !cpumask_empty(&si->owing);
}

void rcu_variant_show_state(void)
{
	unsigned int cpu;

	printk("rcu (student): gpnum %lu active %d qsmask %#lx\n", rcu_gpnum, rcu_gp_active,
	       rcu_qsmask.bits[0]);
	for_each_online_cpu(cpu)
		printk("rcu (student): cpu%u: quiescent %ld checkpoint %ld\n", cpu,
		       RCU_quiescent(cpu), rcu_quiescent_checkpoint[cpu]);
}
