/*
 * Tree RCU's expedited grace periods, synchronize_rcu_expedited(): instead
 * of waiting for each CPU to pass a quiescent state in its own time, ask
 * every online CPU for one at once with a reschedule IPI (resched_cpu()).
 * It follows the idea of Linux's synchronize_sched_expedited() of the
 * v3.x-v4.x kernels (kernel/rcu/tree_exp.h), without its per-rcu_node
 * expedited masks: one mask of CPUs under one lock is enough here.
 *
 * The readers are non-preemptible (read_side.h), so a CPU's next pass
 * through the scheduler, through the idle loop, or a tick from user mode
 * or the idle loop, once it has seen the request, comes after every
 * reader it was running when the request was made. The reschedule IPI
 * makes that pass come soon: an idle CPU's loop calls the scheduler at
 * once, a preemptible kernel preempts at the reader's preempt_enable(),
 * a non-preemptive kernel thread switches at its next cond_resched().
 *
 * What it costs: an IPI to every online CPU and a forced pass through the
 * scheduler on each, where a normal grace period costs them nothing but
 * the tick's check; and it runs beside the normal grace periods without
 * counting in gp_sequence.c (rcu_gp_started()/rcu_gp_completed() count
 * only normal ones, which is all the polled API and torture's grace-period
 * check need). Concurrent callers are serialised by a mutex; Linux lets
 * them share one expedited grace period through a sequence counter.
 */
#include "rcu_internal.h"
#include "rcu_tree_exp.h"
#include <sched.h>
#include <mutex.h>
#include <wait.h>
#include <atomic.h>
#include <percpu.h>
#include <smp.h>
#include <softirq.h>
#include <arch/cpu.h>

static DEFINE_MUTEX(rcu_exp_mutex);
static DECLARE_WAIT_QUEUE_HEAD(rcu_exp_wq);
/* CPUs that still owe the expedited grace period in progress. */
atomic_t rcu_exp_left;
DEFINE_PER_CPU(int, rcu_exp_need);
unsigned long rcu_exp_count;		/* expedited grace periods completed */
static int rcu_exp_wake_needed;		/* the last report could not wake the caller */

/*
 * A quiescent state on this CPU (rcu_tree.c's rcu_qs() calls this): if an
 * expedited grace period waits for it, report. The fence orders this
 * CPU's earlier readers before the report (a locked decrement is one on
 * x86; smp_mb() says so for any CPU).
 */
static void rcu_exp_report(unsigned int cpu, bool can_wake)
{
	int *need = per_cpu_ptr(&rcu_exp_need, cpu);

	/*
	 * Exchange: the idle loop's report can be interrupted by the tick's,
	 * and an offline CPU's is made by the expediter or by the CPU going
	 * down, whichever sees the other (rcu_exp_cpu_offline()).
	 */
	if (!READ_ONCE(*need) || !__atomic_exchange_n(need, 0, __ATOMIC_SEQ_CST))
		return;
	smp_mb();	/* the readers before, the report after */
	if (!atomic_dec_and_test(&rcu_exp_left))
		return;
	if (can_wake) {
		wake_up(&rcu_exp_wq);
	} else {
		/* Under the run-queue lock or in the tick: the softirq wakes it. */
		unsigned long flags = local_irq_save();

		WRITE_ONCE(rcu_exp_wake_needed, 1);
		__raise_softirq_irqoff(RCU_SOFTIRQ);
		local_irq_restore(flags);
	}
}

void rcu_exp_qs(bool can_wake)
{
	rcu_exp_report(smp_processor_id(), can_wake);
}

/*
 * CPU hotplug (docs/hotplug.md): a CPU out of cpu_online_mask runs no
 * reader (its interrupts stay off from before it leaves the mask until
 * RCU knows it again, rcu_hooks.h), so it answers a request in flight
 * itself (interrupts off: no wake-up here; the softirq it raises waits
 * for its return, and rcu_variant_cpu_dead() wakes the caller from the
 * CPU that ran cpu_down()). A request made after it left cpu_online_mask
 * never asks it; one whose mask read raced with the clearing is answered
 * by the expediter (below), which may, for the same reason: each side
 * stores, then a full barrier, then reads what the other stored.
 */
void rcu_exp_cpu_offline(unsigned int cpu)
{
	rcu_exp_report(cpu, false);
}

/* From RCU_SOFTIRQ and the idle loop: wake the caller for a report that could not. */
void rcu_exp_wake_check(void)
{
	if (READ_ONCE(rcu_exp_wake_needed) && __atomic_exchange_n(&rcu_exp_wake_needed, 0,
								   __ATOMIC_SEQ_CST))
		wake_up(&rcu_exp_wq);
}

void synchronize_rcu_expedited(void)
{
	unsigned int cpu;

	might_sleep();
	mutex_lock(&rcu_exp_mutex);
	atomic_set(&rcu_exp_left, 1);		/* our own, dropped below */
	for_each_online_cpu(cpu) {
		atomic_inc(&rcu_exp_left);
		WRITE_ONCE(per_cpu(rcu_exp_need, cpu), 1);
	}
	/* The caller's updates and the requests before any CPU is asked. */
	smp_mb();
	for_each_online_cpu(cpu)
		resched_cpu(cpu);
	/* Asked, but gone offline since (pairs with the stopper's smp_mb()). */
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (!cpu_online(cpu))
			rcu_exp_report(cpu, false);
	atomic_dec(&rcu_exp_left);
	/*
	 * A report from the context-switch hook (run-queue lock held) or the
	 * tick wakes us through RCU_SOFTIRQ or the idle loop; look again every
	 * jiffy as well, in case that softirq waits for the next interrupt.
	 */
	while (atomic_read(&rcu_exp_left))
		wait_event_timeout(rcu_exp_wq, !atomic_read(&rcu_exp_left), 1);
	smp_mb();	/* every report before the caller's frees */
	rcu_exp_count++;
	mutex_unlock(&rcu_exp_mutex);
}
