/*
 * Softirqs (include/softirq.h): the 2.6 kernel's design, which seed 003
 * section 3 describes and its realtime options (kernel/rcu/rt.h,
 * docs/rcu/realtime.md) build on.
 *
 * Each CPU has a pending bit mask. __do_softirq() snapshots and clears it
 * with interrupts off, then runs each pending action with interrupts on
 * and SOFTIRQ_OFFSET in preempt_count (so neither a nested interrupt's
 * exit nor local_bh_enable() starts a second pass on this CPU). Actions
 * raised meanwhile are picked up by the next pass; after
 * MAX_SOFTIRQ_RESTART passes the rest is left to ksoftirqd, a per-CPU
 * thread at normal priority, so that threads keep making progress.
 */
#include <trace.h>
#include <softirq.h>
#include <sched.h>
#include <percpu.h>
#include <printk.h>
#include <panic.h>
#include <smp.h>
#include <arch/cpu.h>

static softirq_action_t softirq_vec[NR_SOFTIRQS];
static const char *const softirq_names[NR_SOFTIRQS] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "TASKLET", "RCU", "TEST",
};

static DEFINE_PER_CPU(unsigned int, softirq_pending);
static DEFINE_PER_CPU(struct softirq_stats, softirq_stats);
static DEFINE_PER_CPU(struct task *, ksoftirqd);

const char *softirq_name(unsigned int nr)
{
	return nr < NR_SOFTIRQS ? softirq_names[nr] : "?";
}

void open_softirq(unsigned int nr, softirq_action_t action)
{
	BUG_ON(nr >= NR_SOFTIRQS);
	softirq_vec[nr] = action;
}

unsigned int local_softirq_pending(void)
{
	return READ_ONCE(this_cpu(softirq_pending));
}

static void wakeup_softirqd(void)
{
	struct task *t = this_cpu(ksoftirqd);

	if (t && READ_ONCE(t->state) != TASK_RUNNING)
		wake_up_process(t);
}

void __raise_softirq_irqoff(unsigned int nr)
{
	this_cpu(softirq_pending) |= 1U << nr;
	this_cpu(softirq_stats).raised[nr]++;
}

void raise_softirq_irqoff(unsigned int nr)
{
	__raise_softirq_irqoff(nr);
	/*
	 * Outside interrupt context nobody passes irq_exit() soon: let
	 * ksoftirqd run it (Linux does the same). In interrupt context the
	 * irq_exit() or local_bh_enable() we are inside will.
	 */
	if (!in_interrupt())
		wakeup_softirqd();
}

void raise_softirq(unsigned int nr)
{
	unsigned long flags = local_irq_save();

	raise_softirq_irqoff(nr);
	local_irq_restore(flags);
}

/* Interrupts disabled on entry and on return. */
static void __do_softirq(bool from_ksoftirqd)
{
	struct softirq_stats *st = this_cpu_ptr(&softirq_stats);
	int restart = MAX_SOFTIRQ_RESTART;
	unsigned int pending = this_cpu(softirq_pending);

	preempt_count_add(SOFTIRQ_OFFSET);
	st->do_softirq_calls++;
	if (from_ksoftirqd)
		st->ksoftirqd_runs++;
	for (;;) {
		this_cpu(softirq_pending) = 0;
		local_irq_enable();
		for (unsigned int nr = 0; pending; nr++, pending >>= 1) {
			if (!(pending & 1))
				continue;
			trace_event(TRACE_SOFTIRQ, TR_SOFTIRQ_ENTRY, nr, 0);
			if (softirq_vec[nr])
				softirq_vec[nr]();
			else		/* raised before open_softirq(): a boot-order bug */
				WARN_ON_ONCE(1);
			st->run[nr]++;
			trace_event(TRACE_SOFTIRQ, TR_SOFTIRQ_EXIT, nr, 0);
		}
		local_irq_disable();
		pending = this_cpu(softirq_pending);
		if (!pending || --restart == 0)
			break;
		st->restarts++;
	}
	preempt_count_sub(SOFTIRQ_OFFSET);
	if (pending) {
		st->handed_to_ksoftirqd++;
		wakeup_softirqd();
	}
}

void do_softirq(void)
{
	unsigned long flags;

	if (in_interrupt())
		return;
	flags = local_irq_save();
	if (this_cpu(softirq_pending))
		__do_softirq(false);
	local_irq_restore(flags);
}

void softirq_on_irq_exit(void)
{
	if (!in_interrupt() && this_cpu(softirq_pending))
		__do_softirq(false);
}

void local_bh_disable(void)
{
	preempt_count_add(SOFTIRQ_DISABLE_OFFSET);
	barrier();
}

void local_bh_enable(void)
{
	WARN_ON_ONCE(in_irq());
	barrier();
	/* Keep preemption off while the pending softirqs run. */
	preempt_count_sub(SOFTIRQ_DISABLE_OFFSET - 1);
	if (!in_interrupt() && local_softirq_pending())
		do_softirq();
	preempt_enable();
}

void local_bh_enable_defer(void)
{
	WARN_ON_ONCE(in_irq());
	barrier();
	preempt_count_sub(SOFTIRQ_DISABLE_OFFSET - 1);
	/* Preemption still off: this CPU's ksoftirqd, woken if asleep. */
	if (!in_interrupt() && local_softirq_pending())
		wakeup_softirqd();
	preempt_enable();
}

/*
 * ksoftirqd/N: runs the softirqs that __do_softirq() gave up on, as a
 * normal-priority thread, so a flood competes with other threads instead
 * of starving them.
 */
static int ksoftirqd_fn(void *arg)
{
	for (;;) {
		local_irq_disable();
		if (!this_cpu(softirq_pending)) {
			/* State first, then interrupts on: a raise from here
			 * on sees it and wakes us (no lost wake-up). */
			WRITE_ONCE(current->state, TASK_INTERRUPTIBLE);
			local_irq_enable();
			schedule();
			continue;
		}
		__do_softirq(true);
		local_irq_enable();
		cond_resched();
	}
	return 0;
}

void ksoftirqd_start(void)
{
	unsigned int cpu;

	for_each_online_cpu(cpu) {
		struct task *t = kthread_create_on_cpu(ksoftirqd_fn, NULL, cpu, "ksoftirqd/%u", cpu);
		BUG_ON(!t);
		per_cpu(ksoftirqd, cpu) = t;
		wake_up_process(t);
	}
}

void softirq_get_stats(unsigned int cpu, struct softirq_stats *out)
{
	*out = per_cpu(softirq_stats, cpu);
}

void softirq_show_stats(void)
{
	unsigned int cpu;

	for_each_online_cpu(cpu) {
		struct softirq_stats *s = &per_cpu(softirq_stats, cpu);
		printk("softirq cpu%u: passes %lu restarts %lu to-ksoftirqd %lu ksoftirqd-passes %lu\n",
		       cpu, s->do_softirq_calls, s->restarts, s->handed_to_ksoftirqd,
		       s->ksoftirqd_runs);
		for (int nr = 0; nr < NR_SOFTIRQS; nr++)
			if (s->raised[nr] || s->run[nr])
				printk("  %-8s raised %lu run %lu\n", softirq_names[nr],
				       s->raised[nr], s->run[nr]);
	}
}

void softirq_init(void)
{
}
