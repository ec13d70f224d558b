/*
 * The batch machinery X-rcu (rcu_xrcu.c) and rcu (rcu_krcud.c) share
 * (batch_common.h, which also holds the list steps of Figures 35 and 36):
 * the global batch state, Figure 39's rcu_reg_batch(),
 * the reporting half of Figure 37, the tick and idle hooks (in both, the
 * work is done elsewhere, by per-CPU timers or by daemons, and the tick
 * only watches for stalls), the stall report, and the orphaned callbacks
 * of CPU hotplug. Built with whichever of the two is chosen (variants.mk).
 */
#include "rcu_internal.h"
#include "batch_common.h"
#include <rcu_hooks.h>
#include <smp.h>
#include <arch/cpu.h>

spinlock_t rcu_lock = SPINLOCK_INIT("rcu_lock");
rcu_batch_t rcu_currbatch = 1;		/* rcu_lock */
rcu_batch_t rcu_maxbatch = 0;		/* rcu_lock */
cpumask_t rcu_cpumask;			/* rcu_lock */

/*
 * Figure 39: publicize the start of a new batch, if one is needed and none
 * is running: every online CPU then owes it a quiescent state. rcu_lock
 * held.
 */
void rcu_reg_batch(rcu_batch_t newbatch)
{
	if (RCU_BATCH_LT(rcu_maxbatch, newbatch))
		rcu_maxbatch = newbatch;
	if (RCU_BATCH_LT(rcu_maxbatch, rcu_currbatch) || !cpumask_empty(&rcu_cpumask))
		return;
	rcu_gp_count_start();	/* before any CPU can see the mask */
	rcu_preempt_orphans_swap();	/* rcu-preempt: the next batch's orphans are ours */
	cpumask_copy(&rcu_cpumask, &cpu_online_mask);
	rcu_gp_begin(rcu_currbatch);
}

/*
 * Clear cpu's bit (all: every bit) in rcu_cpumask; the CPU that clears the
 * last bit ends the batch and starts the next one if anyone asked for it
 * (Figure 37 lines 40-44). rcu_lock held, cpu's bit set.
 *
 * rcu-preempt: the last bit stays while tasks counted on a CPU now
 * offline still hold the batch (rcu_preempt_orphans_quiet()): the CPU
 * keeps owing it and its daemon looks again next period; a dying CPU's
 * last bit passes to the boot CPU, which never goes down, and which then
 * notices the batch afresh (its last_qsctr is RCU_QSCTR_INVALID: it
 * reported). Returns false if the bit stayed.
 */
static bool rcu_batch_cpu_quiet(unsigned int cpu, bool all)
{
	cpumask_t rest;

	cpumask_copy(&rest, &rcu_cpumask);
	cpumask_clear_cpu(cpu, &rest);
	if (!all && cpumask_empty(&rest) && !rcu_preempt_orphans_quiet()) {
		if (cpu_online(cpu))
			return false;
		cpumask_clear_cpu(cpu, &rcu_cpumask);
		cpumask_set(0, &rcu_cpumask);
		return true;
	}
	if (all)
		cpumask_clear(&rcu_cpumask);
	else
		cpumask_clear_cpu(cpu, &rcu_cpumask);
	rcu_stats_qs();
	rcu_trace_qs(cpu);
	if (!cpumask_empty(&rcu_cpumask))
		return true;	/* All CPUs haven't gone through a quiescent state */
	rcu_gp_end(rcu_currbatch);
	WRITE_ONCE(rcu_currbatch, rcu_currbatch + 1);	/* read without rcu_lock */
	rcu_reg_batch(rcu_maxbatch);	/* the mask again, if it starts one */
	return true;
}

/* Figure 37's report: cpu's bit may have gone meanwhile (rcu_break's all). */
void rcu_batch_report_qs(unsigned int cpu, long *last_qsctr, bool all)
{
	spin_lock(&rcu_lock);
	if (!cpumask_test(cpu, &rcu_cpumask)) {
		spin_unlock(&rcu_lock);
		return;
	}
	if (rcu_batch_cpu_quiet(cpu, all)) {
		*last_qsctr = RCU_QSCTR_INVALID;
	}
	spin_unlock(&rcu_lock);
}

/* The timers or the daemons do the work; the tick only watches for stalls. */
void rcu_hook_tick(enum tick_context ctx)
{
	if (!rcu_this_cpu_ready())
		return;
	rcu_check_stall();
	(void)ctx;
}

void rcu_hook_idle(void)
{
}

/*
 * From the tick (hard interrupt). rcu_lock is taken with interrupts on (by
 * X-rcu's timers, krcud's tasklet and daemons), so only try it: a tick
 * that finds it held skips this look, the next one will see.
 */
bool rcu_variant_stall_info(struct rcu_stall_info *si)
{
	unsigned long flags = local_irq_save();

	if (!spin_trylock(&rcu_lock)) {
		local_irq_restore(flags);
		return false;
	}
	si->gpnum = rcu_currbatch;
	cpumask_copy(&si->owing, &rcu_cpumask);
	spin_unlock(&rcu_lock);
	local_irq_restore(flags);
	return !cpumask_empty(&si->owing);
}

/*
 * CPU hotplug. The dying CPU's bit leaves rcu_cpumask, ending the batch
 * if it owed the last quiescent state: clearing it is its quiescent
 * state, legal because it runs no reader (the stopper preempted whatever
 * ran, and a switch is a quiescent state in both designs). Its lists
 * become orphans that a live CPU adopts onto its next list: a whole new
 * batch for each, late but never early; oldest first, so that each CPU's
 * callbacks keep the order rcu_barrier() relies on.
 */
static struct list_head rcu_orphans = LIST_HEAD_INIT(rcu_orphans);
static unsigned long rcu_orphans_len;

void rcu_batch_cpu_offline(unsigned int cpu, long *last_qsctr, struct list_head *donelist,
			   struct list_head *curlist, struct list_head *nextlist,
			   unsigned long len)
{
	spin_lock(&rcu_lock);
	/* rcu-preempt: its counted tasks first, while its bit still holds the batch */
	rcu_preempt_cpu_orphan(cpu, !cpumask_empty(&rcu_cpumask));
	if (cpumask_test(cpu, &rcu_cpumask))
		rcu_batch_cpu_quiet(cpu, false);
	list_splice_tail_init(donelist, &rcu_orphans);
	list_splice_tail_init(curlist, &rcu_orphans);
	list_splice_tail_init(nextlist, &rcu_orphans);
	rcu_orphans_len += len;
	*last_qsctr = RCU_QSCTR_INVALID;
	spin_unlock(&rcu_lock);
}

bool rcu_batch_have_orphans(void)
{
	return !list_empty(&rcu_orphans);
}

void rcu_batch_adopt_orphans(struct list_head *nextlist, unsigned long *nextlen)
{
	unsigned long flags;

	if (list_empty(&rcu_orphans))
		return;
	flags = local_irq_save();	/* call_rcu() edits nextlist from interrupts */
	spin_lock(&rcu_lock);
	list_splice_tail_init(&rcu_orphans, nextlist);
	*nextlen += rcu_orphans_len;
	rcu_orphans_len = 0;
	spin_unlock(&rcu_lock);
	local_irq_restore(flags);
}
