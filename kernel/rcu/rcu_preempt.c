/*
 * preempt (rcu-preempt): Dipankar Sarma's prototype of read-copy update
 * for a preemptible kernel, as seed 000 describes it in section 5.7 and
 * Figure 33. It is krcud's algorithm (rcu_krcud.c, seed 000 section 5.2)
 * with readers that may be preempted, and so must track tasks, not CPUs:
 * a task preempted for the first time since its last voluntary switch
 * counts itself on its CPU's counters, and uncounts itself at its next
 * voluntary switch, on whatever CPU it runs then; a CPU reports a batch's
 * quiescent state once it has switched voluntarily and the tasks it
 * counted before the batch are gone. This file holds what section 5.7
 * adds; variants.mk builds it with rcu_krcud.c (and CPU hotplug's part in
 * rcu_preempt_hotplug.c).
 *
 * The doc is docs/rcu/preempt.md: the idea, the data in Figure 33's names,
 * one preempted reader's walk, its row of seed 000 Table 1, the broken
 * mode (rcu_break=1) and CPU hotplug. The notes the code cites by number
 * ("note 1") are its "What the paper leaves open, and what we decided".
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

/* read_side.h's inline read side reaches the depth at this offset. */
STATIC_ASSERT(offsetof(struct task, rcu_read_lock_nesting) == TASK_RCU_NESTING);

/*
 * rcu_read_lock() in this variant (kernel/rcu/read_side.h) does not
 * disable preemption: it only keeps the task's nesting depth, which CPU
 * offline (rcu_variant_task_may_freeze()) and might_sleep() read. It is
 * inline there; these are its out-of-line form (PROVE_RCU's unlock, and
 * whoever wants a function).
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
	this_cpu(rcu_preempt_data).puts++;
}

bool rcu_preempt_switch_is_qs(bool voluntary)
{
	lockdep_assert_irqs_disabled();	/* rcu_hooks.h: no migration after rpd() */
	struct rcu_preempt_data *d = rpd(smp_processor_id());
	struct task *t = current;
	bool held_over = d->holdover == t;

	d->holdover = NULL;		/* any switch ends it (note 1), after the look */
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
