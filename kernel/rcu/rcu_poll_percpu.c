/*
 * poll-percpu (per-CPU rcu-poll): the "modified rcu-poll algorithm" of
 * seed 004 section 3, rcu-poll with per-CPU callback lists: "each CPU
 * manipulates only its own list and callbacks always run on the CPU that
 * registered them". The grace-period machinery is rcu-poll's (seed 000
 * section 5.3, Figures 18-20 and 40-43, as kernel/rcu/rcu_poll.c has it);
 * seed 004 prints no code, so the per-CPU half is ours, shaped like
 * rcu-ltimer's per-CPU lists (seed 000 Figures 21 and 44-47).
 *
 * The doc is docs/rcu/poll-percpu.md: the data, what drives it (the
 * tasklet's steps, numbered as in rcu_process_callbacks()), one
 * callback's walk, its row of seed 000 Table 1, CPU hotplug and the
 * broken mode (rcu_break=1). The notes the code cites by letter
 * ("note E") are its "What differs from rcu-poll, and why"; "rcu_poll.c
 * note N" is docs/rcu/poll.md's "Where we differ from the figures".
 */
#include "rcu_internal.h"
#include "batch.h"
#include "poll_common.h"
#include <rcu_hooks.h>
#include <interrupt.h>
#include <softirq.h>
#include <spinlock.h>
#include <percpu.h>
#include <preempt.h>
#include <sched.h>
#include <smp.h>
#include <printk.h>
#include <panic.h>
#include <string.h>
#include <arch/cpu.h>
#include <time.h>

/* Figure 19: RCU_quiescent(cpu)++ in the scheduler (poll_common.h). */
DEFINE_PER_CPU(long, rcu_quiescent);

struct rcu_poll_data {
	struct list_head nxtlist;	/* not yet in a grace period */
	struct list_head curlist;	/* waiting for grace period `batch` */
	unsigned long batch;		/* the grace period curlist waits for */
	unsigned long nxtlen, curlen;	/* list lengths (statistics, gdb) */
	struct list_head irqlist;	/* call_rcu() from hard IRQ: note E */
	unsigned long irqlen;
	struct tasklet_struct tasklet;	/* this CPU's rcu_tasklet */
};
DEFINE_PER_CPU(struct rcu_poll_data, rcu_poll_data);

spinlock_t rcu_lock = SPINLOCK_INIT("rcu_lock");
int rcu_polling_in_progress;
unsigned long rcu_gpnum;			/* grace periods started */
unsigned long rcu_completed;			/* grace periods completed */
unsigned long rcu_gp_wanted;			/* highest batch any CPU waits for */
cpumask_t rcu_qsmask;
long rcu_quiescent_checkpoint[CONFIG_NR_CPUS];

/* Its name (docs/rcu/README.md), a string that gdb and the test runner
 * read from the ELF, and where the papers describe it (the boot line). */
const char rcu_variant_id[] = "poll-percpu";
const char rcu_variant_paper[] = "per-CPU rcu-poll, seed 004 section 3";

/* call_rcu() from hard IRQ or with interrupts off: note E above. */
static void call_rcu_irq(struct rcu_head *head)
{
	static bool warned;
	struct rcu_poll_data *rd;
	unsigned long flags;

	if (!warned) {
		warned = true;
		printk("rcu (poll-percpu): BUG: call_rcu(%p, %p) from %s: poll-percpu is BH-safe but not "
		       "IRQ-safe (seed 000 Table 1); the callback is deferred through this CPU's irqlist\n",
		       head, head->func, in_irq() ? "hard-IRQ context" : "a region with interrupts off");
		WARN_ON_ONCE(1);
	}
	flags = local_irq_save();
	rd = this_cpu_ptr(&rcu_poll_data);
	list_add_tail(&head->list, &rd->irqlist);
	WRITE_ONCE(rd->irqlen, rd->irqlen + 1);
	tasklet_hi_schedule(&rd->tasklet);
	local_irq_restore(flags);
}

/* Move this CPU's irqlist to the tail of its nxtlist. BH off, or in the
 * tasklet; the interrupts that fill irqlist are masked only meanwhile. */
static void rcu_take_irqlist(struct rcu_poll_data *rd)
{
	unsigned long flags = local_irq_save();

	list_splice_tail_init(&rd->irqlist, &rd->nxtlist);
	rd->nxtlen += rd->irqlen;
	WRITE_ONCE(rd->irqlen, 0);
	local_irq_restore(flags);
}

/* Figure 18, per CPU (notes A, B): BH off, no lock, no interrupt masking. */
void call_rcu(struct rcu_head *head, void (*func)(void *arg), void *arg)
{
	struct rcu_poll_data *rd;

	if (!rcu_prove_queue(head, func))
		return;	/* reported: queued already */

	head->func = func;
	head->arg = arg;
	rcu_stats_queued(head);
	if (unlikely(in_irq() || irqs_disabled())) {
		call_rcu_irq(head);
		return;
	}
	preempt_disable();		/* the list and the tasklet of one CPU */
	rd = this_cpu_ptr(&rcu_poll_data);
	local_bh_disable();
	if (unlikely(READ_ONCE(rd->irqlen)))
		rcu_take_irqlist(rd);	/* keep this CPU's callbacks in order */
	list_add_tail(&head->list, &rd->nxtlist);
	rd->nxtlen++;
	/* Without running this CPU's polling tasklet here: rcu_poll.c's
	 * call_rcu() says why (seed 000 section 5.3, Figure 18). */
	local_bh_enable_defer();
	/*
	 * After local_bh_enable(), as in Figure 18 and rcu_poll.c: from process
	 * context this wakes ksoftirqd rather than running the tasklet before
	 * the caller's next statement (docs/rcu/poll.md, note 4).
	 */
	if (!test_bit(TASKLET_STATE_SCHED, &rd->tasklet.state))	/* rcu_poll.c says why */
		tasklet_hi_schedule(&rd->tasklet);
	preempt_enable();
}


/*
 * Figure 40: if some CPU wants a grace period that has not started, start
 * it: mark every online CPU (rcu_poll.c note 1) and snapshot its counter. The
 * CPUs to force through a reschedule are returned in *force; the caller
 * sends the IPIs after dropping rcu_lock. rcu_lock held, none in progress.
 */
static void rcu_prepare_polling(cpumask_t *force)
{
	if (!RCU_BATCH_LT(rcu_gpnum, rcu_gp_wanted))
		return;
	rcu_gpnum++;
	WRITE_ONCE(rcu_polling_in_progress, 1);
	rcu_poll_snapshot_cpus(force);	/* poll_common.h */
}

/*
 * Figure 42: the grace period is over. Publish it in rcu_completed (each
 * CPU's tasklet takes its own curlist from there: note C) and start the
 * next one if some CPU wants it. rcu_lock held.
 */
static void rcu_completion(cpumask_t *force)
{
	smp_mb();		/* the counters read before anyone sees completion */
	WRITE_ONCE(rcu_polling_in_progress, 0);
	rcu_gp_end(rcu_gpnum);
	smp_store_release(&rcu_completed, rcu_gpnum);
	rcu_prepare_polling(force);
}

/*
 * Figure 41: clear the bit of every CPU whose counter has moved since the
 * snapshot; when none is left, the grace period is complete. rcu_lock
 * held, a grace period in progress.
 */
static void rcu_polling(cpumask_t *force)
{
	if (rcu_poll_scan_cpus())	/* poll_common.h */
		rcu_completion(force);
}

/* Figure 43's input: this CPU's curlist, if its grace period is over. */
static void rcu_take_done(struct rcu_poll_data *rd, struct list_head *done)
{
	if (list_empty(&rd->curlist))
		return;
	if (RCU_BATCH_LT(smp_load_acquire(&rcu_completed), rd->batch))
		return;
	smp_mb();		/* completion seen before the callbacks free anything */
	list_splice_init(&rd->curlist, done);
	rd->curlen = 0;
}

/* Figure 20, per CPU: this CPU's tasklet body. */
static void rcu_process_callbacks(unsigned long data)
{
	lockdep_assert_bh_disabled();	/* the tasklet */
	struct rcu_poll_data *rd = this_cpu_ptr(&rcu_poll_data);
	LIST_HEAD(done);
	cpumask_t force;
	unsigned int cpu;

	cpumask_clear(&force);
	if (READ_ONCE(rd->irqlen))
		rcu_take_irqlist(rd);

	/* 1. Poll the grace period in progress (note D). */
	if (!list_empty(&rd->curlist) && READ_ONCE(rcu_polling_in_progress) &&
	    spin_trylock(&rcu_lock)) {
		if (rcu_polling_in_progress)
			rcu_polling(&force);
		spin_unlock(&rcu_lock);
	}

	/* 2. This CPU's callbacks whose grace period is over (note C). */
	rcu_take_done(rd, &done);

	/* 3. Figure 40: nxtlist into the next grace period, started if none runs. */
	if (list_empty(&rd->curlist) && !list_empty(&rd->nxtlist)) {
		spin_lock(&rcu_lock);
		list_splice_init(&rd->nxtlist, &rd->curlist);
		rd->curlen = rd->nxtlen;
		rd->nxtlen = 0;
		rd->batch = rcu_gpnum + 1;
		if (RCU_BATCH_LT(rcu_gp_wanted, rd->batch))
			rcu_gp_wanted = rd->batch;
		if (!rcu_polling_in_progress)
			rcu_prepare_polling(&force);
		spin_unlock(&rcu_lock);
		rcu_stats_list_len(rd->curlen);
	}

	for_each_cpu(cpu, &force)
		resched_cpu(cpu);	/* the -aa patch's force_cpu_reschedule() */
	if (!list_empty(&done))
		rcu_invoke_callbacks(&done);	/* here: the CPU that queued them */
	if (!list_empty(&rd->curlist) || !list_empty(&rd->nxtlist) || READ_ONCE(rd->irqlen))
		tasklet_hi_schedule(&rd->tasklet);
}

/* Figure 19: every pass through the scheduler is a quiescent state. */
/* The scheduler, tick and idle hooks: kernel/rcu/poll_hooks.c. */

/*
 * CPU hotplug (docs/rcu/poll-percpu.md): the dying CPU left rcu_qsmask
 * (poll_hooks.c). Here, on the CPU that ran cpu_down() (a task,
 * interrupts on, the hotplug lock held), its three lists join the tail
 * of this CPU's nxtlist, oldest first (curlist, nxtlist, irqlist: the
 * order they were queued in), behind this CPU's own irqlist: each of
 * them waits for a grace period that begins after now, late but never
 * early, and every CPU's callbacks stay in the order rcu_barrier()
 * relies on. Seed 004's "callbacks always run on the CPU that registered
 * them" cannot hold for a CPU that is gone.
 */
void rcu_variant_cpu_dead(unsigned int cpu)
{
	struct rcu_poll_data *dead = per_cpu_ptr(&rcu_poll_data, cpu), *rd;

	preempt_disable();		/* this CPU's lists and its tasklet */
	rd = this_cpu_ptr(&rcu_poll_data);
	local_bh_disable();		/* its tasklet edits the same lists */
	if (READ_ONCE(rd->irqlen))
		rcu_take_irqlist(rd);
	list_splice_tail_init(&dead->curlist, &rd->nxtlist);
	list_splice_tail_init(&dead->nxtlist, &rd->nxtlist);
	list_splice_tail_init(&dead->irqlist, &rd->nxtlist);
	rd->nxtlen += dead->curlen + dead->nxtlen + dead->irqlen;
	dead->curlen = dead->nxtlen = 0;
	WRITE_ONCE(dead->irqlen, 0);
	local_bh_enable();
	if (!test_bit(TASKLET_STATE_SCHED, &rd->tasklet.state))	/* rcu_poll.c says why */
		tasklet_hi_schedule(&rd->tasklet);
	preempt_enable();
}

/* The lists and the tasklet only: the counter is static, and a CPU that
 * comes online after a snapshot holds no old reference. */
void rcu_variant_init_cpu(unsigned int cpu)
{
	struct rcu_poll_data *rd = per_cpu_ptr(&rcu_poll_data, cpu);

	INIT_LIST_HEAD(&rd->nxtlist);
	INIT_LIST_HEAD(&rd->curlist);
	INIT_LIST_HEAD(&rd->irqlist);
	tasklet_init(&rd->tasklet, rcu_process_callbacks, 0);
}

void rcu_variant_init(void)
{
}

void rcu_variant_late_init(void)
{
}

/* rcu_variant_stall_info(), from the tick: the rcu-poll family's (poll_hooks.c). */

void rcu_variant_show_state(void)
{
	unsigned int cpu;

	printk("rcu (poll-percpu): gpnum %lu completed %lu wanted %lu polling_in_progress %d qsmask %#lx\n",
	       rcu_gpnum, rcu_completed, rcu_gp_wanted, rcu_polling_in_progress,
	       rcu_qsmask.bits[0]);
	for_each_online_cpu(cpu) {
		struct rcu_poll_data *rd = per_cpu_ptr(&rcu_poll_data, cpu);

		printk("rcu (poll-percpu): cpu%u: quiescent %ld checkpoint %ld%s nxtlist %lu curlist %lu (batch %lu) irqlist %lu tasklet state %#lx\n",
		       cpu, RCU_quiescent(cpu), rcu_quiescent_checkpoint[cpu],
		       cpumask_test(cpu, &rcu_qsmask) ? " (owes a quiescent state)" : "",
		       rd->nxtlen, rd->curlen, rd->batch, rd->irqlen, rd->tasklet.state);
	}
}
