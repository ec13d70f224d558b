/*
 * ltimer (rcu-ltimer): the Linux 2.5 kernel's RCU, as seed 000 describes
 * it in section 5.4 and Appendix A.4 (Figures 21-23 and 44-47): per-CPU
 * callback lists and quiescent-state counters, and a per-CPU tasklet that
 * every local timer tick schedules, which moves this CPU's callbacks along
 * and reports its quiescent state. No daemon, no timer of its own: that is
 * the "ltimer" (local timer). The realtime options of seed 003 (rt.h)
 * change only how rcu_do_batch() invokes a done batch.
 *
 * The doc is docs/rcu/ltimer.md: the data in the paper's names, one
 * callback's walk, its row of seed 000 Table 1, and why a callback from
 * idle waits for two batches (the paper's rule, which we keep).
 */
#include "rcu_internal.h"
#include "batch.h"
#include "rt.h"
#include <rcu_hooks.h>
#include <sched.h>
#include <interrupt.h>
#include <spinlock.h>
#include <percpu.h>
#include <smp.h>
#include <printk.h>
#include <string.h>
#include <arch/cpu.h>

struct rcu_ctrlblk {
	spinlock_t mutex;		/* a spinlock, named as in the paper's figures;
				 * guards curbatch, maxbatch, rcu_cpu_mask */
	rcu_batch_t curbatch;		/* current batch number */
	rcu_batch_t maxbatch;		/* max requested batch number */
	cpumask_t rcu_cpu_mask;		/* CPUs that need to switch for curbatch */
};

struct rcu_data {
	long qsctr;			/* RCU_qsctr: quiescent states so far */
	long last_qsctr;		/* RCU_last_qsctr: snapshot, or INVALID */
	rcu_batch_t batch;		/* RCU_batch: the batch curlist waits for */
	struct list_head nxtlist;	/* RCU_nxtlist */
	struct list_head curlist;	/* RCU_curlist */
	struct list_head donelist;	/* RCU_donelist: batch done, not yet invoked */
	unsigned long nxtlen, curlen, donelen;	/* list lengths (statistics, gdb) */
	struct tasklet_struct tasklet;	/* RCU_tasklet */
};

struct rcu_ctrlblk rcu_ctrlblk = {
	.mutex = SPINLOCK_INIT("rcu_ctrlblk.mutex"),
	.curbatch = 1,
	.maxbatch = 0,
};
DEFINE_PER_CPU(struct rcu_data, rcu_data);

/* Its name (docs/rcu/README.md), a string that gdb and the test runner
 * read from the ELF, and where the papers describe it (the boot line). */
const char rcu_variant_id[] = "ltimer";
const char rcu_variant_paper[] = "rcu-ltimer, seed 000 section 5.4";

/* Figure 21. Interrupts off: the tasklet on this CPU also edits nxtlist. */
void call_rcu(struct rcu_head *head, void (*func)(void *arg), void *arg)
{
	unsigned long flags;
	struct rcu_data *rd;

	if (!rcu_prove_queue(head, func))
		return;	/* reported: queued already */

	head->func = func;
	head->arg = arg;
	flags = local_irq_save();
	rd = this_cpu_ptr(&rcu_data);
	list_add_tail(&head->list, &rd->nxtlist);
	rd->nxtlen++;
	rcu_stats_queued(head);
	local_irq_restore(flags);
}

/*
 * Figure 46: make sure a batch runs for newbatch. Start one (set the mask
 * of CPUs that owe it a quiescent state) unless one is running already or
 * every batch anyone asked for is done. rcu_ctrlblk.mutex held.
 */
static void rcu_reg_batch(rcu_batch_t newbatch)
{
	if (RCU_BATCH_LT(rcu_ctrlblk.maxbatch, newbatch))
		rcu_ctrlblk.maxbatch = newbatch;
	if (RCU_BATCH_LT(rcu_ctrlblk.maxbatch, rcu_ctrlblk.curbatch) ||
	    !cpumask_empty(&rcu_ctrlblk.rcu_cpu_mask))
		return;
	rcu_gp_count_start();	/* before any CPU can see the mask */
	cpumask_copy(&rcu_ctrlblk.rcu_cpu_mask, &cpu_online_mask);
	rcu_gp_begin(rcu_ctrlblk.curbatch);
}

/*
 * Figure 47: has this CPU passed a quiescent state since it noticed the
 * current batch? The first call after the batch starts only snapshots
 * qsctr; a later call that sees qsctr moved clears this CPU's bit, and the
 * CPU that clears the last bit ends the batch and starts the next if
 * needed. Called from the tasklet (softirq), interrupts on.
 */
static void rcu_check_quiescent_state(void)
{
	int cpu = smp_processor_id();
	struct rcu_data *rd = this_cpu_ptr(&rcu_data);

	if (!cpumask_test(cpu, &rcu_ctrlblk.rcu_cpu_mask))
		return;
	/*
	 * Races with the local timer interrupt: in the worst case we miss one
	 * quiescent state of this CPU, which only delays the batch (the
	 * paper's comment, Figure 47 lines 11-18).
	 */
	if (rd->last_qsctr == RCU_QSCTR_INVALID) {
		rd->last_qsctr = READ_ONCE(rd->qsctr);
		return;
	}
	if (READ_ONCE(rd->qsctr) == rd->last_qsctr)
		return;

	/* Every CPU's report takes the one lock and writes the one mask:
	 * the lines seed 000 section 6 says bounce. */
	spin_lock(&rcu_ctrlblk.mutex);
	if (!cpumask_test(cpu, &rcu_ctrlblk.rcu_cpu_mask)) {
		spin_unlock(&rcu_ctrlblk.mutex);
		return;
	}
	cpumask_clear_cpu(cpu, &rcu_ctrlblk.rcu_cpu_mask);
	rd->last_qsctr = RCU_QSCTR_INVALID;
	rcu_stats_qs();
	rcu_trace_qs(cpu);
	if (!cpumask_empty(&rcu_ctrlblk.rcu_cpu_mask)) {
		spin_unlock(&rcu_ctrlblk.mutex);
		return;
	}
	rcu_gp_end(rcu_ctrlblk.curbatch);
	/* Marked: rcu_check_callbacks() reads it without the mutex. */
	WRITE_ONCE(rcu_ctrlblk.curbatch, rcu_ctrlblk.curbatch + 1);
	rcu_reg_batch(rcu_ctrlblk.maxbatch);	/* the mask again, if it starts one */
	spin_unlock(&rcu_ctrlblk.mutex);
}

/*
 * Seed 003 Figures 4 and 14: invoke this CPU's donelist, from the tasklet
 * (softirq). Stop early
 *   - at bhlimit callbacks, if a real-time task is runnable here: the rest
 *     go to krcud (Figure 4 lines 14-17; rcu_bh_callback_limit() is
 *     Figure 5, "no limit" unless the option is on and krcud runs);
 *   - at rcumaxbatch callbacks, if a real-time task is runnable here: the
 *     rest stay on donelist, plugged for rcuplugticks ticks (Figure 14
 *     lines 13-17; section 4 says throttling, like krcud, needs to know
 *     whether a real-time task is runnable, though Figure 14 does not
 *     test it: without one, nobody is waiting, and an unconditional plug
 *     only slows every synchronize_kernel() behind a backlog).
 * While krcud still has callbacks of this CPU, the whole donelist goes to
 * it, so that callbacks run in the order they were queued (rt_offload.c).
 */
static void rcu_do_batch(struct rcu_data *rd)
{
	lockdep_assert_bh_disabled();	/* the tasklet: softirq limits apply */
	unsigned int cpu = smp_processor_id();
	unsigned long limit = rcu_bh_callback_limit(cpu);
	unsigned long maxbatch = rcu_throttle_maxbatch();
	unsigned long count = 0;

	if (rcu_offload_pending(cpu)) {
		rcu_offload(cpu, &rd->donelist, rd->donelen);
		rd->donelen = 0;
		return;
	}
	while (!list_empty(&rd->donelist)) {
		rcu_invoke_one(&rd->donelist);
		rd->donelen--;
		count++;
		if (list_empty(&rd->donelist))
			break;
		if (count >= limit && rq_has_rt_task(cpu)) {
			rcu_offload(cpu, &rd->donelist, rd->donelen);
			rd->donelen = 0;
			break;
		}
		if (count >= maxbatch && rq_has_rt_task(cpu)) {
			rcu_throttle_plug(cpu, &rd->tasklet);
			break;
		}
	}
	rcu_stats_batch(count);
}

/*
 * Figure 45: move this CPU's callbacks along. curlist's batch done ->
 * invoke it; curlist empty and nxtlist not -> nxtlist becomes curlist,
 * waiting for batch curbatch + 1, which is registered; then report a
 * quiescent state if there is one to report.
 */
static void rcu_check_callbacks(void)
{
	int cpu = smp_processor_id();
	struct rcu_data *rd = this_cpu_ptr(&rcu_data);

	/* Seed 003 Figure 15: a done batch joins the tail of donelist. */
	if (!list_empty(&rd->curlist) && RCU_BATCH_GT(READ_ONCE(rcu_ctrlblk.curbatch), rd->batch)) {
		list_splice_tail_init(&rd->curlist, &rd->donelist);
		rd->donelen += rd->curlen;
		rd->curlen = 0;
	}

	local_irq_disable();		/* call_rcu() adds to nxtlist from interrupts */
	if (!list_empty(&rd->nxtlist) && list_empty(&rd->curlist)) {
		list_splice_init(&rd->nxtlist, &rd->curlist);
		rd->curlen = rd->nxtlen;
		rd->nxtlen = 0;
		local_irq_enable();
		rcu_stats_list_len(rd->curlen);

		/* start the next batch of callbacks */
		spin_lock(&rcu_ctrlblk.mutex);
		rd->batch = rcu_ctrlblk.curbatch + 1;
		rcu_reg_batch(rd->batch);
		spin_unlock(&rcu_ctrlblk.mutex);
	} else {
		local_irq_enable();
	}
	rcu_check_quiescent_state();
	if (!list_empty(&rd->donelist) && !rcu_throttle_plugged(cpu))
		rcu_do_batch(rd);
}

static void rcu_adopt_orphans(struct rcu_data *rd);

/* Figure 44: the tasklet. Anything to do on this CPU? */
static void rcu_process_callbacks(unsigned long data)
{
	int cpu = smp_processor_id();
	struct rcu_data *rd = this_cpu_ptr(&rcu_data);

	rcu_adopt_orphans(rd);
	if ((!list_empty(&rd->curlist) && RCU_BATCH_GT(READ_ONCE(rcu_ctrlblk.curbatch), rd->batch)) ||
	    (list_empty(&rd->curlist) && !list_empty(&rd->nxtlist)) ||
	    (!list_empty(&rd->donelist) && !rcu_throttle_plugged(cpu)) ||
	    cpumask_test(cpu, &rcu_ctrlblk.rcu_cpu_mask))
		rcu_check_callbacks();
}

/* Figure 22: every context switch is a quiescent state (see read_side.h:
 * in a preemptive kernel no switch can happen inside a reader). */
void rcu_hook_context_switch(bool voluntary)
{
	struct rcu_data *rd = this_cpu_ptr(&rcu_data);

	rd->qsctr++;
}

/* Figure 23: user-mode and idle ticks are quiescent states; schedule
 * this CPU's tasklet unless it is already scheduled or running. */
void rcu_hook_tick(enum tick_context ctx)
{
	struct rcu_data *rd = this_cpu_ptr(&rcu_data);

	if (!rcu_this_cpu_ready())
		return;
	/* rcu_break: every tick counts, even one that interrupted a reader. */
	if (ctx == TICK_USER || ctx == TICK_IDLE || rcu_break) {
		rd->qsctr++;
	}
	rcu_throttle_tick(smp_processor_id());	/* seed 003: RCU_plugticks-- */
	if (!(READ_ONCE(rd->tasklet.state) &
	      ((1UL << TASKLET_STATE_SCHED) | (1UL << TASKLET_STATE_RUN))))
		tasklet_schedule(&rd->tasklet);
	rcu_check_stall();
}

void rcu_hook_idle(void)
{
}

void rcu_variant_init_cpu(unsigned int cpu)
{
	struct rcu_data *rd = per_cpu_ptr(&rcu_data, cpu);

	rd->qsctr = 1;
	rd->last_qsctr = RCU_QSCTR_INVALID;
	INIT_LIST_HEAD(&rd->nxtlist);
	INIT_LIST_HEAD(&rd->curlist);
	INIT_LIST_HEAD(&rd->donelist);
	rcu_offload_cpu_online(cpu);
	tasklet_init(&rd->tasklet, rcu_process_callbacks, 0);
}

/*
 * CPU hotplug (docs/hotplug.md), as Linux 2.6's rcupdate.c did it for
 * this design (rcu_offline_cpu): the dying CPU's bit leaves rcu_cpu_mask,
 * ending the batch if it was the last one owed, and its callbacks go to
 * the orphan list. We put them all, curlist and donelist included, on the
 * heir's nxtlist: they wait for a whole new batch, late but never early,
 * and no list is touched from two CPUs (the heir adopts the orphans in
 * its own tasklet). The dying CPU runs no reader now (the stopper
 * preempted whatever ran, and a switch is a quiescent state here).
 * Interrupts off; cpu_online_mask no longer has it, so a batch started
 * after we drop the mutex never waits for it.
 */
static struct list_head rcu_orphans = LIST_HEAD_INIT(rcu_orphans);
static unsigned long rcu_orphans_len;

bool rcu_variant_hotplug = true;

void rcu_variant_cpu_offline(unsigned int cpu)
{
	struct rcu_data *rd = per_cpu_ptr(&rcu_data, cpu);

	spin_lock(&rcu_ctrlblk.mutex);
	if (cpumask_test(cpu, &rcu_ctrlblk.rcu_cpu_mask)) {
		cpumask_clear_cpu(cpu, &rcu_ctrlblk.rcu_cpu_mask);
		rcu_stats_qs();
		rcu_trace_qs(cpu);
		if (cpumask_empty(&rcu_ctrlblk.rcu_cpu_mask)) {
			rcu_gp_end(rcu_ctrlblk.curbatch);
			/* Marked: rcu_check_callbacks() reads it without the mutex. */
	WRITE_ONCE(rcu_ctrlblk.curbatch, rcu_ctrlblk.curbatch + 1);
			rcu_reg_batch(rcu_ctrlblk.maxbatch);
		}
	}
	list_splice_tail_init(&rd->donelist, &rcu_orphans);
	list_splice_tail_init(&rd->curlist, &rcu_orphans);
	list_splice_tail_init(&rd->nxtlist, &rcu_orphans);
	rcu_orphans_len += rd->donelen + rd->curlen + rd->nxtlen;
	rd->donelen = rd->curlen = rd->nxtlen = 0;
	rd->last_qsctr = RCU_QSCTR_INVALID;
	spin_unlock(&rcu_ctrlblk.mutex);
}

/* The heir's tasklet: orphans join its nxtlist (interrupts off, as
 * call_rcu() edits nxtlist from interrupts). */
static void rcu_adopt_orphans(struct rcu_data *rd)
{
	if (list_empty(&rcu_orphans))
		return;
	local_irq_disable();
	spin_lock(&rcu_ctrlblk.mutex);
	list_splice_tail_init(&rcu_orphans, &rd->nxtlist);
	rd->nxtlen += rcu_orphans_len;
	rcu_orphans_len = 0;
	spin_unlock(&rcu_ctrlblk.mutex);
	local_irq_enable();
}

/* On the CPU that ran cpu_down(): adopt the orphans now (rcu_hooks.h). */
void rcu_variant_cpu_dead(unsigned int cpu)
{
	preempt_disable();
	rcu_adopt_orphans(this_cpu_ptr(&rcu_data));
	preempt_enable();
	(void)cpu;
}

void rcu_variant_cpu_reonline(unsigned int cpu)
{
	per_cpu_ptr(&rcu_data, cpu)->last_qsctr = RCU_QSCTR_INVALID;
}

void rcu_variant_init(void)
{
}

void rcu_variant_late_init(void)
{
	rcu_rt_late_init();	/* seed 003 Figure 6: start krcud */
}

/*
 * Called from the tick (stall.c). This CPU's tasklet may hold the mutex
 * with interrupts on, so only try it: a stall check skipped now is made
 * again at the next tick.
 */
bool rcu_variant_stall_info(struct rcu_stall_info *si)
{
	unsigned long flags = local_irq_save();

	if (!spin_trylock(&rcu_ctrlblk.mutex)) {
		local_irq_restore(flags);
		return false;
	}
	si->gpnum = rcu_ctrlblk.curbatch;
	cpumask_copy(&si->owing, &rcu_ctrlblk.rcu_cpu_mask);
	spin_unlock(&rcu_ctrlblk.mutex);
	local_irq_restore(flags);
	return !cpumask_empty(&si->owing);
}

void rcu_variant_show_state(void)
{
	unsigned int cpu;

	printk("rcu-ltimer: curbatch %ld maxbatch %ld rcu_cpu_mask %#lx\n",
	       rcu_ctrlblk.curbatch, rcu_ctrlblk.maxbatch, rcu_ctrlblk.rcu_cpu_mask.bits[0]);
	for_each_online_cpu(cpu) {
		struct rcu_data *rd = per_cpu_ptr(&rcu_data, cpu);
		printk("rcu-ltimer: cpu%u: qsctr %ld last_qsctr %ld batch %ld nxtlist %lu curlist %lu "
		       "donelist %lu\n", cpu, rd->qsctr, rd->last_qsctr, rd->batch, rd->nxtlen,
		       rd->curlen, rd->donelen);
	}
}
