/*
 * poll (rcu-poll): Andrea Arcangeli's and Dipankar Sarma's RCU from the "-aa"
 * kernels and SUSE releases, as seed 000 describes it in section 5.3 and
 * Appendix A.3 (Figures 18-20 and 40-43).
 *
 * Data (the paper's names):
 *   rcu_lock                   the one lock, on everything below but the
 *                              per-CPU counters;
 *   rcu_nxtlist                callbacks not yet in a grace period (one
 *                              global list: Figure 18);
 *   rcu_curlist                callbacks waiting for the grace period in
 *                              progress;
 *   rcu_polling_in_progress    a grace period is being polled for;
 *   rcu_qsmask                 CPUs not yet seen to pass a quiescent state
 *                              since it began;
 *   rcu_quiescent_checkpoint[] each CPU's counter when it began;
 *   RCU_quiescent(cpu)         the per-CPU quiescent-state counter, the one
 *                              local increment in the scheduler (Figure 19);
 *   rcu_tasklet                the one tasklet (Figure 20).
 *
 * What drives it: call_rcu() schedules the tasklet (Figure 18). The
 * tasklet (Figure 20) either starts a grace period, rcu_prepare_polling()
 * (Figure 40: nxtlist -> curlist, snapshot every CPU's counter, force every
 * CPU to reschedule), or polls it, rcu_polling() (Figure 41: a CPU whose
 * counter moved has passed a quiescent state). When no CPU is left,
 * rcu_completion() (Figure 42) ends it, hands curlist to the callback
 * invoker (Figure 43; here kernel/rcu/invoke.c's rcu_invoke_callbacks())
 * and starts the next one if callbacks are waiting. While a grace period
 * runs, the tasklet re-schedules itself after every poll: polling is
 * continuous, no timer is involved, and no code runs at all when there are
 * no callbacks (Table 2: one local increment per context switch).
 *
 * Seed 000 Table 1 row: rcu-poll, batching yes; deduce quiescent states
 * from counters; polled by a tasklet; queuing global; quiescent states C
 * (context switch); safe from BH only ("IRQ unsafe by choice, in order to
 * eliminate the overhead of interrupt disabling and enabling").
 *
 * Where we differ from the figures, and why, numbered as in docs/rcu/poll.md:
 *
 * 1. Figure 40 marks every CPU *other than the current one*. Here the CPU
 *    running the tasklet owes a quiescent state too: our tasklet can run
 *    at irq_exit() over a kernel reader, or from local_bh_enable() inside
 *    rcu_read_lock(), and that reader may hold what the callback frees.
 *    The tasklet's own CPU passes a quiescent state quickly anyway: it is
 *    asked to reschedule like the others, and when the tasklet keeps
 *    re-polling it ends up in ksoftirqd, whose cond_resched() counts.
 * 2. Figure 42 invokes the callbacks with rcu_lock held; a callback that
 *    calls call_rcu() (torture's chained callbacks do) would deadlock on
 *    it. We splice curlist to a local list under the lock and invoke it
 *    after dropping the lock.
 * 3. The forced reschedule (force_cpu_reschedule() in the -aa patch) is
 *    need_resched plus the reschedule IPI (resched_cpu() in kernel/sched/core.c).
 *    Our reschedule IPI does nothing itself (scheduler_ipi()); whoever is
 *    interrupted acts on need_resched: the idle loop calls __schedule()
 *    even when it picks the idle task again, a CONFIG_KPREEMPT kernel
 *    preempts on the interrupt return, and a non-preemptive kernel thread
 *    at its next cond_resched(). Every __schedule() pass calls
 *    rcu_hook_context_switch(), whether or not it switches, so an idle CPU
 *    reports within one IPI. We also count each pass of the idle loop
 *    (rcu_hook_idle()): the idle task holds no read-side reference there,
 *    so that is a quiescent state in any preemption model.
 * 4. and 5. are the doc's alone: a change not made (the tasklet scheduled
 *    before local_bh_enable()) and the stall-age recheck, which is
 *    rcu_variant_stall_info() below.
 * 6. Figure 19's increment is followed by smp_mb() (poll_common.h): without
 *    it, the bump and a reader that begins after it form the
 *    store-buffering pattern with the poller's snapshot, and a grace
 *    period can end under that reader.
 * 7. call_rcu() from hard-IRQ context (or with interrupts disabled) is not
 *    what rcu-poll supports: rcu_lock is taken with interrupts on, so an
 *    interrupt that took it on a CPU whose tasklet holds it would
 *    deadlock. Such a call_rcu() prints a warning naming the problem, once,
 *    and its callback goes on a separate list under an irq-safe lock,
 *    which the tasklet moves to rcu_nxtlist: warned, never corrupted, and
 *    the callback still waits for a full grace period. The next normal
 *    call_rcu() moves it first, before appending its own: rcu_barrier()
 *    (update.c) counts on no callback overtaking an older one: appended
 *    ahead of the irqlist, its callbacks would run before those it must
 *    wait for (docs/rcu/poll.md). The normal path never disables
 *    interrupts; it takes rcu_irq_lock only when irqlist is not empty.
 * 8. call_rcu() ends its BH-off section without running pending softirqs
 *    (local_bh_enable_defer()): see the comment there.
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
	unsigned int cpu;

	if (list_empty(&rcu_nxtlist))
		return 1;
	BUG_ON(!list_empty(&rcu_curlist));
	list_splice_init(&rcu_nxtlist, &rcu_curlist);
	rcu_curlen = rcu_nxtlen;
	rcu_nxtlen = 0;
	rcu_stats_list_len(rcu_curlen);

	rcu_polling_in_progress = 1;
	rcu_gpnum++;
	rcu_gp_count_start();	/* before the snapshots */
	smp_mb();		/* the updaters' removals before the snapshots */
	for_each_online_cpu(cpu) {
		cpumask_set(cpu, &rcu_qsmask);
		rcu_quiescent_checkpoint[cpu] = READ_ONCE(RCU_quiescent(cpu));
		cpumask_set(cpu, force);
	}
	rcu_gp_begin(rcu_gpnum);	/* after the mask: gdb stops here to see it full */
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
	unsigned int cpu, nr = 0;

	qs_lock_shared(&rcu_lock);	/* the caller's: one lock for every poll */
	for_each_online_cpu(cpu) {
		if (!cpumask_test(cpu, &rcu_qsmask))
			continue;
		if (rcu_quiescent_checkpoint[cpu] != READ_ONCE(RCU_quiescent(cpu))) {
			cpumask_clear_cpu(cpu, &rcu_qsmask);
			qs_write_shared(&rcu_qsmask);
			/* What cpu wrote for it: its own counter (Figure 19). */
			qs_write_private(&RCU_quiescent(cpu));
			rcu_stats_qs();
			rcu_trace_qs(cpu);
			nr++;
		}
	}
	if (!cpumask_empty(&rcu_qsmask)) {
		if (nr)
			qs_report_done(nr);
		return 0;
	}
	smp_mb();		/* the counters read before the callbacks run */
	qs_write_shared(&rcu_polling_in_progress);	/* rcu_completion() */
	qs_write_shared(&rcu_curlist);
	if (nr)
		qs_report_done(nr);
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

/* From the tick, without rcu_lock: the rcu-poll family's (poll_common.h). */
bool rcu_variant_stall_info(struct rcu_stall_info *si)
{
	return rcu_poll_stall_info(si);
}

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
