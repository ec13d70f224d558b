/*
 * preempt (rcu-preempt): Dipankar Sarma's prototype of read-copy update
 * for a preemptible kernel, as seed 000 describes it in section 5.7 and
 * Figure 33. It is krcud's algorithm (kernel/rcu/rcu_krcud.c: per-CPU
 * lists, krcud daemons woken by a timeout armed only while callbacks
 * exist, the batch and rcu_cpumask machinery, seed 000 5.2) with read-side
 * critical sections that may be preempted, and so must track tasks, not
 * CPUs. This file holds what 5.7 adds; variants.mk builds it with
 * rcu_krcud.c.
 *
 * The key idea (5.7): "when a task returns from a voluntary context
 * switch (or is created), it is implicitly associated with the CPU that it
 * starts running on. No matter how many times the task is preempted ... it
 * remains affiliated with that CPU, even if it is migrated." Nothing is
 * done for a task until it is preempted: then it counts itself, once, on
 * its CPU's counters, and uncounts itself when it next switches
 * voluntarily, on whatever CPU it runs then.
 *
 * Data (Figure 33's names):
 *   rcu_preempt_cntr[2]   per CPU: two counts of preempted tasks
 *                         affiliated with this CPU;
 *   next_preempt_cntr     per CPU: points at the element that a task
 *                         preempted now increments (rcu_preempt_get());
 *   curr_preempt_cntr     per CPU: the other element: tasks first preempted
 *                         before this CPU noticed the current batch, which
 *                         must voluntarily switch before it can end;
 *   task->rcu_preempt_cntr     Figure 33's cpu_preempt_cntr: the counter
 *                         the task incremented, NULL if none; while it
 *                         is set, the CPU whose counter it is is the
 *                         task's affiliation.
 *
 * The affiliation needs no more record than that, and the scheduler keeps
 * none: it is fed by the context-switch hook alone. A running task changes
 * CPU only by switching out (it is migrated while switched out), so from
 * its return from a voluntary switch to its first preemption it runs on
 * one CPU, the one it is affiliated with: rcu_preempt_get() counts it
 * there, and the counter it holds names that CPU until its next voluntary
 * switch gives the affiliation up (rcu_preempt_put()).
 *
 * Quiescent states: voluntary context switches only (an involuntary one
 * can happen inside a reader). A CPU reports a quiescent state for a
 * batch when (a) it switched voluntarily since it noticed the batch
 * (rcu_krcud.c's qsctr and last_qsctr, counted here only for voluntary
 * switches) and (b) its curr_preempt_cntr is zero (rcu_check_quiescent_
 * state() "must check that all tasks preempted on this CPU prior to the
 * current grace period have voluntarily" switched). When a CPU notices a
 * new batch, it swaps next and curr (rcu_preempt_swap()).
 *
 * Seed 000 Table 1 prints rcu-preempt's row as "yes | counters | timers |
 * per-CPU | IC | yes", the same as X-rcu's, while the text says it is
 * "similar to rcu", which polls with daemons and counts context switches
 * only. We follow the text: daemons (krcud's machinery), and
 * voluntary context switches (C) as the quiescent states; the idle loop is
 * covered because waking a CPU's krcud is a voluntary switch there.
 * Table 2: 1 local per context switch (qsctr), and on preemption "6 local"
 * in the paper; ours is a few local loads and stores and one atomic
 * increment on the first preemption of a task, one atomic decrement on its
 * next voluntary switch.
 *
 * Where the paper is silent, and what we decided (docs/rcu/preempt.md):
 *   1. The task that is running on a CPU when that CPU swaps (notices a new
 *      batch) may already be inside a reader that began before the batch,
 *      yet its first preemption would count it on `next`, which this batch
 *      does not wait for; and a voluntary switch of another task on that
 *      CPU later would then let the CPU report. So the swap remembers that
 *      task (rcu_preempt_holdover), and if it is preempted before its
 *      next switch it counts itself on `curr`. Any switch on the CPU ends
 *      the holdover (the task either switched voluntarily, a quiescent
 *      state, or was counted), but only after the switch has looked at it.
 *      kernel/test/test_rcu_preempted_reader.c provokes the race on
 *      purpose (docs/rcu/preempt.md walks through it).
 *   2. A "switch" in which __schedule() keeps the same task (an
 *      involuntary pass with nothing else to run) still counts the task as
 *      preempted: the hook does not know the next task, and counting is
 *      only conservative (the task uncounts at its next voluntary switch).
 *   3. cond_resched() is a voluntary quiescent state in Quiescent
 *      (docs/scheduler.md): a reader must not call it, as it must not
 *      sleep. might_sleep() inside a reader warns (CONFIG_RCU_DEBUG_READ).
 *   4. A CPU whose curr counter is not yet zero simply re-checks at its
 *      daemon's next pass (every 50 ms while it owes the batch a
 *      quiescent state, rcu_krcud.c's rcu_timeout()).
 *
 * rcu_break=1 breaks this variant's own mechanism: an involuntary switch
 * counts as a quiescent state and the counters are ignored, so a batch can
 * end under a preempted reader.
 */
#include "rcu_internal.h"
#include "rcu_preempt.h"
#include <export.h>
#include <atomic.h>
#include <percpu.h>
#include <sched.h>
#include <smp.h>
#include <printk.h>
#include <arch/cpu.h>

/* struct rcu_preempt_data: rcu_preempt.h (rcu_preempt_hotplug.c reads it too). */
DEFINE_PER_CPU(struct rcu_preempt_data, rcu_preempt_data);
static int warned_swap;	/* the BUG line once */

/* Its name (docs/rcu/README.md), a string that gdb and the test runner
 * read from the ELF, and where the papers describe it (the boot line). */
const char rcu_variant_id[] = "preempt";
const char rcu_variant_paper[] = "rcu-preempt, seed 000 section 5.7";

static struct rcu_preempt_data *rpd(unsigned int cpu)
{
	return per_cpu_ptr(&rcu_preempt_data, cpu);
}

/* From rcu_krcud.c's rcu_variant_init_cpu(), before the CPU's first context switch
 * (the pointers point into this CPU's own per-CPU area). */
void rcu_preempt_init_cpu(unsigned int cpu)
{
	struct rcu_preempt_data *d = rpd(cpu);

	d->next_preempt_cntr = &d->rcu_preempt_cntr[0];
	d->curr_preempt_cntr = &d->rcu_preempt_cntr[1];
}

/* ---------------------------------------------------------------- read side */

/*
 * rcu_read_lock() in this variant (kernel/rcu/read_side.h) does not
 * disable preemption: it only keeps the task's nesting depth, which
 * might_sleep() reads (a reader must not switch voluntarily).
 */
void rcu_preempt_read_lock(void)
{
	current->rcu_read_lock_nesting++;
#ifdef CONFIG_KASAN
	if (current->rcu_read_lock_nesting == 1)
		current->rcu_read_since = rdtsc();
#endif
	barrier();
}

void rcu_preempt_read_unlock(void)
{
	barrier();
	current->rcu_read_lock_nesting--;
#ifdef CONFIG_PROVE_RCU
	if (unlikely(current->rcu_read_lock_nesting < 0))
		rcu_prove_unbalanced_unlock();	/* reports, puts it back to 0 */
#endif
}

int rcu_preempt_read_depth(void)
{
	return current->rcu_read_lock_nesting;
}

#ifdef CONFIG_KASAN
u64 rcu_read_section_start(void)
{
	return current->rcu_read_since;
}
#endif

/* rcu_read_lock() in a module of this build calls these (read_side.h). */
EXPORT_SYMBOL(rcu_preempt_read_lock);
EXPORT_SYMBOL(rcu_preempt_read_unlock);
EXPORT_SYMBOL(rcu_preempt_read_depth);

/* ---------------------------------------------------------------- the counters */

/*
 * Figure 33's rcu_preempt_get(): t is preempted for the first time since
 * its last voluntary switch: count it on its CPU's counters. It runs on the
 * CPU it is affiliated with (to have left that CPU it would have switched,
 * voluntarily or not, and either ends this stint or was counted), with
 * interrupts off in __schedule(); the counter it takes records the
 * affiliation.
 */
static void rcu_preempt_get(struct task *t, bool held_over)
{
	lockdep_assert_irqs_disabled();	/* from __schedule(): see above */
	unsigned int cpu = smp_processor_id();
	struct rcu_preempt_data *d = rpd(cpu);
	atomic_t *c;

	if (t->rcu_preempt_cntr || t->is_idle)
		return;
	/*
	 * An offline CPU runs only its stopper (kernel/sched/hotplug.c),
	 * which holds no reader: a count here would outlive the tasks that
	 * rcu_preempt_cpu_orphan() moved away, on no task's list.
	 */
	if (d->offline)
		return;
	if (held_over) {
		c = d->curr_preempt_cntr;	/* note 1 */
		d->holdover_gets++;
	} else {
		c = d->next_preempt_cntr;
	}
	atomic_inc(c);
	t->rcu_preempt_cntr = c;
	d->gets++;
}

/*
 * Figure 33's rcu_preempt_put(): t switches voluntarily, so it holds no
 * reader: uncount it from the counter it incremented, on whichever CPU it
 * runs now. atomic_dec() is a locked instruction, a full barrier: the
 * reader's accesses come before the count drops.
 *
 * The pointer is taken with an exchange, not a load and a store: CPU
 * hotplug (rcu_preempt_cpu_orphan(), on the dying CPU) may swing it to
 * an orphan counter at the same moment. Both are locked operations on
 * t->rcu_preempt_cntr, so exactly one of two things happens: the put
 * sees the old counter and the move then fails its compare-and-swap, or
 * the move wins and the put decrements the counter it moved t to.
 */
void rcu_preempt_put(struct task *t)
{
	atomic_t *c = READ_ONCE(t->rcu_preempt_cntr);

	if (!c)
		return;
	c = __atomic_exchange_n((atomic_t **)&t->rcu_preempt_cntr, NULL, __ATOMIC_SEQ_CST);
	if (!c)
		return;
	atomic_dec(c);
	/*
	 * The counter is the CPU's that t was preempted on: another's, if t
	 * has moved since, a line two CPUs write. Worked out only when
	 * counting: this runs at every voluntary switch.
	 */
	if (qs_lines_counting()) {
		struct rcu_preempt_data *d = rpd(smp_processor_id());

		qs_lines_note(c, c != &d->rcu_preempt_cntr[0] && c != &d->rcu_preempt_cntr[1]);
	}
	this_cpu(rcu_preempt_data).puts++;
}

bool rcu_preempt_switch_is_qs(bool voluntary)
{
	lockdep_assert_irqs_disabled();	/* rcu_hooks.h: no migration after rpd() */
	struct rcu_preempt_data *d = rpd(smp_processor_id());
	struct task *t = current;
	bool held_over = d->holdover == t;

	d->holdover = NULL;		/* any switch ends it (note 1), after the look */
	qs_write_private(&d->holdover);
	if (voluntary) {
		rcu_preempt_put(t);
		return true;
	}
	if (rcu_break)
		return true;		/* broken on purpose: preemption counts */
	rcu_preempt_get(t, held_over);
	return false;
}

/*
 * The CPU noticed a new batch (rcu_krcud.c's first look, with bottom halves
 * off on this CPU; interrupts off here so that no preemption comes between
 * the swap and the holdover). curr is zero: the CPU reported the previous
 * batch only with curr at zero, and after that report nothing increments
 * curr (the holdover ended with the switch the report needed).
 */
void rcu_preempt_swap(void)
{
	unsigned long flags = local_irq_save();
	struct rcu_preempt_data *d = rpd(smp_processor_id());
	atomic_t *c = d->curr_preempt_cntr;

	if (atomic_read(c) != 0 && !warned_swap++)
		printk("rcu-preempt: BUG: cpu%u swaps with %d tasks still on curr\n",
		       smp_processor_id(), atomic_read(c));
	d->curr_preempt_cntr = d->next_preempt_cntr;
	d->next_preempt_cntr = c;
	d->holdover = current;
	d->swaps++;
	qs_write_private(&d->curr_preempt_cntr);
	qs_write_private(&d->holdover);
	local_irq_restore(flags);
}

bool rcu_preempt_cpu_quiet(void)
{
	struct rcu_preempt_data *d = rpd(smp_processor_id());

	if (rcu_break)
		return true;
	if (atomic_read(d->curr_preempt_cntr) != 0)
		return false;
	smp_mb();		/* the count read before the callbacks run */
	return true;
}

void rcu_preempt_show_cpu(unsigned int cpu)
{
	struct rcu_preempt_data *d = rpd(cpu);
	int ci = d->curr_preempt_cntr == &d->rcu_preempt_cntr[0] ? 0 : 1;

	printk("rcu-preempt: cpu%u: rcu_preempt_cntr[%d] (curr) %d, [%d] (next) %d; "
	       "gets %lu (holdover %lu) puts %lu swaps %lu\n", cpu,
	       ci, atomic_read(&d->rcu_preempt_cntr[ci]), !ci,
	       atomic_read(&d->rcu_preempt_cntr[!ci]), d->gets, d->holdover_gets, d->puts,
	       d->swaps);
}
