/*
 * CPU hotplug for rcu-preempt, seed 000 section 5.7's Figure 33 counters
 * on a CPU that goes away (the paper predates hotplug). krcud's machinery
 * (batch_common.c) already takes a dying CPU out of rcu_cpumask and
 * hands its callbacks on; what this file adds is the tasks preempted on
 * the dying CPU, still counted there: each is moved, its count with it,
 * to two global orphan counters that every batch waits for as it waits
 * for a CPU.
 *
 * The doc is docs/rcu/preempt.md, "CPU hotplug" (and docs/hotplug.md):
 * why the counters are not folded into a live CPU's as Linux's
 * rcupreempt.c did, the move's three steps, the orphan pair, the memory
 * ordering against rcu_read_unlock() elsewhere, and tasks that would
 * freeze.
 */
#include "rcu_internal.h"
#include "batch_common.h"
#include "rcu_preempt.h"
#include <atomic.h>
#include <percpu.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <printk.h>
#include <arch/cpu.h>

static atomic_t rcu_preempt_orphan_cntr[2];
static atomic_t *orphan_curr = &rcu_preempt_orphan_cntr[1];	/* rcu_lock */
static atomic_t *orphan_next = &rcu_preempt_orphan_cntr[0];	/* rcu_lock */
static unsigned long orphans_moved, orphan_swaps, orphan_holds;	/* statistics */
static int warned_orphans;

struct orphan_walk {
	struct rcu_preempt_data *d;	/* the dying CPU's counters */
	atomic_t *to;
	unsigned long moved;
};

static void orphan_one(struct task *p, void *arg)
{
	struct orphan_walk *w = arg;
	atomic_t *c = READ_ONCE(p->rcu_preempt_cntr);

	if (c != &w->d->rcu_preempt_cntr[0] && c != &w->d->rcu_preempt_cntr[1])
		return;
	if (p == current) {
		/* The stopper: it runs no reader (kernel/sched/hotplug.c). */
		rcu_preempt_put(p);
		return;
	}
	atomic_inc(w->to);	/* before the swap: never too low */
	if (__atomic_compare_exchange_n((atomic_t **)&p->rcu_preempt_cntr, &c, w->to, false,
					__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
		atomic_dec(c);	/* after the swap: never too low */
		w->moved++;
	} else {
		atomic_dec(w->to);	/* its put came first and dropped c */
	}
}

/*
 * On the dying CPU, interrupts off, rcu_lock held, before it leaves
 * rcu_cpumask (batch_common.c): nothing runs here but the stopper, and no
 * batch can begin or end while we move. Tasks enter the task list before
 * they first run, and leave it with interrupts off up to their last
 * switch (task_exit()), so a task counted here that the walk misses is
 * on its way through that last switch on another CPU: rcu_preempt_cpu_dead()
 * waits for it.
 */
void rcu_preempt_cpu_orphan(unsigned int cpu, bool gp)
{
	struct rcu_preempt_data *d = per_cpu_ptr(&rcu_preempt_data, cpu);
	struct orphan_walk w = { .d = d, .to = gp ? orphan_curr : orphan_next };

	lockdep_assert_irqs_disabled();
	WRITE_ONCE(d->offline, true);	/* no new count here (rcu_preempt_get()) */
	for_each_task(orphan_one, &w);
	d->holdover = NULL;
	d->orphaned += w.moved;
	orphans_moved += w.moved;
}

void rcu_preempt_orphans_swap(void)
{
	atomic_t *c = orphan_curr;

	if (atomic_read(c) != 0 && !warned_orphans++)
		printk("rcu-preempt: BUG: a batch starts with %d orphans still on curr\n",
		       atomic_read(c));
	orphan_curr = orphan_next;
	orphan_next = c;
	orphan_swaps++;
}

bool rcu_preempt_orphans_quiet(void)
{
	if (rcu_break)
		return true;
	if (atomic_read(orphan_curr) != 0) {
		orphan_holds++;
		return false;
	}
	smp_mb();	/* the zero before the batch ends: pairs with the put's decrement */
	return true;
}

/*
 * On the CPU that ran cpu_down(), the dying CPU parked: its counters must
 * be zero before it can come back and count again. A task the walk missed
 * (one between leaving the task list and its last switch, interrupts off,
 * on some other CPU) drops its count within microseconds; wait for it,
 * and say so if it never does.
 */
void rcu_preempt_cpu_dead(unsigned int cpu)
{
	struct rcu_preempt_data *d = per_cpu_ptr(&rcu_preempt_data, cpu);
	u64 t0 = ktime_get_ns();

	while (atomic_read(&d->rcu_preempt_cntr[0]) || atomic_read(&d->rcu_preempt_cntr[1])) {
		if (ktime_get_ns() - t0 > 1000000000ULL) {
			printk("rcu-preempt: WARNING: offline cpu%u still counts %d and %d tasks\n",
			       cpu, atomic_read(&d->rcu_preempt_cntr[0]),
			       atomic_read(&d->rcu_preempt_cntr[1]));
			break;
		}
		cpu_relax();
	}
}

/* On the CPU coming back, interrupts off, before its first switch. */
void rcu_preempt_cpu_reonline(unsigned int cpu)
{
	struct rcu_preempt_data *d = per_cpu_ptr(&rcu_preempt_data, cpu);

	d->holdover = NULL;
	smp_mb();	/* the counters seen at zero, then counting here again */
	WRITE_ONCE(d->offline, false);
}

/*
 * A task bound to the dying CPU stays on its run queue, frozen, until the
 * CPU returns (kernel/sched/hotplug.c). If it is counted (preempted since
 * its last voluntary switch), every batch waits for it until then: with
 * rcu_barrier() holding the hotplug lock while it waits, cpu_up() could
 * never come. So: a counted task outside any reader (nesting zero; it is
 * switched out, so it cannot enter one) is uncounted here, as its next
 * voluntary switch would; one preempted inside a reader must run on, and
 * the scheduler moves it to a live CPU, its affinity widened, as Linux
 * does for a task that can run nowhere else.
 */
bool rcu_variant_task_may_freeze(struct task *p)
{
	if (!READ_ONCE(p->rcu_preempt_cntr))
		return true;
	if (READ_ONCE(p->rcu_read_lock_nesting) > 0)
		return false;
	rcu_preempt_put(p);	/* its reader, if any, ended before it switched out */
	return true;
}

void rcu_preempt_show_orphans(void)
{
	printk("rcu-preempt: orphans: curr %d next %d; moved %lu swaps %lu holds %lu\n",
	       atomic_read(orphan_curr), atomic_read(orphan_next), orphans_moved, orphan_swaps,
	       orphan_holds);
}
