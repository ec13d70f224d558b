/*
 * poll (rcu-poll): Andrea Arcangeli's and Dipankar Sarma's RCU from the
 * "-aa" kernels, as seed 000 describes it in section 5.3 and Appendix A.3
 * (Figures 18-20 and 40-43): one global callback list under one lock, and
 * a tasklet that snapshots every CPU's quiescent-state counter, forces
 * every CPU through the scheduler by IPI and polls until each counter has
 * moved. No timer; nothing runs when there are no callbacks. BH-safe, not
 * IRQ-safe, as the paper chose.
 *
 * The doc is docs/rcu/poll.md: the data in the paper's names, one
 * callback's walk, its row of seed 000 Table 1, why call_rcu() from hard
 * IRQ is warned and deferred, CPU hotplug (poll_hooks.c) and the broken
 * mode (rcu_break=1). The notes the code cites by number ("note 7") are
 * its "Where we differ from the figures".
 */
#include "rcu_internal.h"
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

spinlock_t rcu_lock = SPINLOCK_INIT("rcu_lock");
LIST_HEAD(rcu_nxtlist);
LIST_HEAD(rcu_curlist);
unsigned long rcu_nxtlen, rcu_curlen;		/* list lengths (statistics, gdb) */
int rcu_polling_in_progress;
cpumask_t rcu_qsmask;
long rcu_quiescent_checkpoint[CONFIG_NR_CPUS];
unsigned long rcu_gpnum;			/* grace periods started */
static void rcu_process_callbacks(unsigned long data);
DECLARE_TASKLET(rcu_tasklet, rcu_process_callbacks, 0);

/* call_rcu() from hard IRQ or with interrupts off: see note 7 above. */
static spinlock_t rcu_irq_lock = SPINLOCK_INIT("rcu_irq_lock");
LIST_HEAD(rcu_irqlist);
unsigned long rcu_irqlen;

/* Its name (docs/rcu/README.md), a string that gdb and the test runner
 * read from the ELF, and where the papers describe it (the boot line). */
const char rcu_variant_id[] = "poll";
const char rcu_variant_paper[] = "rcu-poll, seed 000 section 5.3";

static void call_rcu_irq(struct rcu_head *head)
{
	static bool warned;
	unsigned long flags;

	if (!warned) {
		warned = true;
		printk("rcu-poll: BUG: call_rcu(%p, %p) from %s: rcu-poll is BH-safe but not "
		       "IRQ-safe (seed 000 Table 1); the callback is deferred through rcu_irqlist\n",
		       head, head->func, in_irq() ? "hard-IRQ context" : "a region with interrupts off");
		WARN_ON_ONCE(1);
	}
	flags = spin_lock_irqsave(&rcu_irq_lock);
	list_add_tail(&head->list, &rcu_irqlist);
	WRITE_ONCE(rcu_irqlen, rcu_irqlen + 1);
	spin_unlock_irqrestore(&rcu_irq_lock, flags);
}

/* Move what call_rcu_irq() queued to rcu_nxtlist. rcu_lock held. */
static void rcu_take_irqlist(void)
{
	unsigned long flags = spin_lock_irqsave(&rcu_irq_lock);

	list_splice_tail_init(&rcu_irqlist, &rcu_nxtlist);
	rcu_nxtlen += rcu_irqlen;
	WRITE_ONCE(rcu_irqlen, 0);
	spin_unlock_irqrestore(&rcu_irq_lock, flags);
}

/* Figure 18. BH off, not interrupts: the tasklet is the other user. */
void call_rcu(struct rcu_head *head, void (*func)(void *arg), void *arg)
{
	if (!rcu_prove_queue(head, func))
		return;	/* reported: queued already */
	head->func = func;
	head->arg = arg;
	rcu_stats_queued(head);
	if (unlikely(in_irq() || irqs_disabled())) {
		call_rcu_irq(head);
	} else {
		local_bh_disable();
		spin_lock(&rcu_lock);
		if (unlikely(READ_ONCE(rcu_irqlen)))
			rcu_take_irqlist();	/* older callbacks first: note 7 */
		list_add_tail(&head->list, &rcu_nxtlist);	/* the paper: list_add(); FIFO here */
		rcu_nxtlen++;
		spin_unlock(&rcu_lock);
		/*
		 * Figure 18's spin_unlock_bh(), less the softirqs it would run
		 * here: while a grace period is polled the tasklet re-schedules
		 * itself after every pass (seed 000 section 5.3: polled by a
		 * tasklet), so one is always pending on this CPU, and a plain
		 * local_bh_enable() ran MAX_SOFTIRQ_RESTART polls and handed
		 * the rest to ksoftirqd on every call_rcu(), tens of
		 * microseconds each. The polls still run, in ksoftirqd or at
		 * the next interrupt exit, as the comment below expects.
		 */
		local_bh_enable_defer();
	}
	/*
	 * As Figure 18: after spin_unlock_bh(). From process context this
	 * wakes ksoftirqd, which starts the grace period when this thread
	 * blocks or gives the CPU up (or the next interrupt exit runs it).
	 * Scheduling it before local_bh_enable() would run it at once, and a
	 * grace period could then end before the caller's next statement,
	 * which callers need not expect and kernel/test/test_rcu.c's
	 * rcu_stall_warning does not (docs/rcu/poll.md weighs the two).
	 * Already scheduled (while a grace period is polled it always is),
	 * its next run takes rcu_lock after our append and sees it: the
	 * test_and_set_bit() inside tasklet_hi_schedule() would find the
	 * same, with a locked instruction on every call.
	 */
	if (!test_bit(TASKLET_STATE_SCHED, &rcu_tasklet.state))
		tasklet_hi_schedule(&rcu_tasklet);
}


/*
 * Figure 40: if callbacks wait on rcu_nxtlist, start a grace period for
 * them: move them to rcu_curlist, mark every online CPU (note 1) and
 * snapshot its counter. The CPUs to force through a reschedule are
 * returned in *force; the caller sends the IPIs after dropping rcu_lock.
 * Returns 1 (stop polling) if there was nothing to do. rcu_lock held.
 */
static int rcu_prepare_polling(cpumask_t *force)
{
	if (list_empty(&rcu_nxtlist))
		return 1;
	BUG_ON(!list_empty(&rcu_curlist));
	list_splice_init(&rcu_nxtlist, &rcu_curlist);
	rcu_curlen = rcu_nxtlen;
	rcu_nxtlen = 0;
	rcu_stats_list_len(rcu_curlen);

	rcu_polling_in_progress = 1;
	rcu_gpnum++;
	rcu_poll_snapshot_cpus(force);	/* poll_common.h */
	return 0;
}

/*
 * Figure 42: the grace period is over. Hand rcu_curlist to the caller
 * (note 2) and start the next grace period if callbacks are waiting.
 * rcu_lock held.
 */
static int rcu_completion(struct list_head *done, cpumask_t *force)
{
	rcu_polling_in_progress = 0;
	rcu_gp_end(rcu_gpnum);
	list_splice_init(&rcu_curlist, done);
	rcu_curlen = 0;
	return rcu_prepare_polling(force);
}

/*
 * Figure 41: clear the bit of every CPU whose counter has moved since the
 * snapshot; when none is left, the grace period is complete. rcu_lock held.
 */
static int rcu_polling(struct list_head *done, cpumask_t *force)
{
	if (!rcu_poll_scan_cpus())	/* poll_common.h */
		return 0;
	smp_mb();		/* the counters read before the callbacks run */
	return rcu_completion(done, force);
}

/* Figure 20: the tasklet body. */
static void rcu_process_callbacks(unsigned long data)
{
	lockdep_assert_bh_disabled();	/* rcu_lock is taken without _bh here */
	LIST_HEAD(done);
	cpumask_t force;
	unsigned int cpu;
	int stop;

	cpumask_clear(&force);
	spin_lock(&rcu_lock);
	if (READ_ONCE(rcu_irqlen))
		rcu_take_irqlist();
	if (!rcu_polling_in_progress)
		stop = rcu_prepare_polling(&force);
	else
		stop = rcu_polling(&done, &force);
	spin_unlock(&rcu_lock);

	for_each_cpu(cpu, &force)
		resched_cpu(cpu);	/* the -aa patch's force_cpu_reschedule() */
	if (!list_empty(&done))
		rcu_invoke_callbacks(&done);
	if (!stop)
		tasklet_hi_schedule(&rcu_tasklet);
}

/* Figure 19: every pass through the scheduler is a quiescent state (see
 * read_side.h: in a preemptive kernel no switch can happen in a reader). */
/* The scheduler, tick and idle hooks: kernel/rcu/poll_hooks.c. */

/*
 * CPU hotplug: the dying CPU left rcu_qsmask (poll_hooks.c); its
 * callbacks are on the one global list already. The tasklet, if it was
 * queued there, has moved to a live CPU with the dead one's other
 * tasklets; schedule it here as well, so that a grace period the dying
 * CPU's bit was holding back is polled to its end at once.
 */
void rcu_variant_cpu_dead(unsigned int cpu)
{
	tasklet_hi_schedule(&rcu_tasklet);
	(void)cpu;
}

void rcu_variant_init_cpu(unsigned int cpu)
{
	/* Nothing per CPU to set up: the counter is static and a CPU that
	 * comes online after a snapshot holds no old reference. */
}

/* Everything is statically initialised, the tasklet included, so that a
 * call_rcu() before this point is safe too. */
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

	printk("rcu-poll: gpnum %lu polling_in_progress %d qsmask %#lx nxtlist %lu curlist %lu irqlist %lu tasklet state %#lx\n",
	       rcu_gpnum, rcu_polling_in_progress, rcu_qsmask.bits[0], rcu_nxtlen, rcu_curlen,
	       rcu_irqlen, rcu_tasklet.state);
	for_each_online_cpu(cpu)
		printk("rcu-poll: cpu%u: quiescent %ld checkpoint %ld%s\n",
		       cpu, RCU_quiescent(cpu), rcu_quiescent_checkpoint[cpu],
		       cpumask_test(cpu, &rcu_qsmask) ? " (owes a quiescent state)" : "");
}
