/*
 * CONFIG_PROVE_RCU: RCU's rules checked the first time the code runs, not
 * when a stress test happens to hit the window (docs/rcu/checking.md;
 * Linux's lockdep_rcu_suspicious() and debug-objects for rcu_head are the
 * ideas, not the code).
 *
 * What "inside a read-side section" means is the same for every variant
 * here, so it is answered once:
 *   - an explicit rcu_read_lock(): rcu_read_depth() (read_side.h) is the
 *     per-CPU count, or rcu-preempt's per-task count, which follows the
 *     task when it is preempted and migrated;
 *   - an implicit one: preemption, softirqs or interrupts off, or running
 *     in an interrupt. Every variant's quiescent states are context
 *     switches, user mode and the idle loop (rcu-preempt's only voluntary
 *     switches), none of which can happen there, so such code cannot
 *     outlive a grace period that began before it.
 * The BH flavour asks for softirqs off (or hard IRQ context, which a
 * softirq cannot interrupt); the sched flavour for preemption off, or a
 * non-preemptible rcu_read_lock().
 *
 * Sleeping inside a non-sleepable section (synchronize_rcu(),
 * rcu_barrier(), anything that calls might_sleep()) is already
 * might_sleep()'s report: kernel/sched/might_sleep.c asks
 * rcu_read_side_check() (update.c), which sees the count that PROVE_RCU
 * turns on through RCU_DEBUG_READ. It is not repeated here.
 */
#include "rcu_internal.h"
#include <rcupdate.h>
#include <export.h>
#include <panic.h>
#include <printk.h>
#include <sched.h>
#include <smp.h>
#include <arch/irq.h>
#include <arch/cpu.h>
#include <ksyms.h>
#include <string.h>
#include <lockdep.h>
#include <srcu.h>

/* Before rcu_hook_init() there is one CPU, no other task and no grace
 * period: every access is safe, and current may not exist yet. */
static bool rcu_prove_ready;

static bool rcu_implicit_reader(void)
{
	return !READ_ONCE(rcu_prove_ready) || preempt_count() != 0 || irqs_disabled();
}

bool rcu_read_lock_held(void)
{
	return rcu_implicit_reader() || rcu_read_depth() > 0;
}
EXPORT_SYMBOL(rcu_read_lock_held);

bool rcu_read_lock_bh_held(void)
{
	return !READ_ONCE(rcu_prove_ready) ||
	       (preempt_count() & (SOFTIRQ_MASK | HARDIRQ_MASK | NMI_MASK)) || irqs_disabled();
}
EXPORT_SYMBOL(rcu_read_lock_bh_held);

bool rcu_read_lock_sched_held(void)
{
	return rcu_implicit_reader() ||
	       (!rcu_read_side_preemptible() && rcu_read_depth() > 0);
}
EXPORT_SYMBOL(rcu_read_lock_sched_held);

static unsigned long reports;

unsigned long rcu_prove_reports(void)
{
	return __atomic_load_n(&reports, __ATOMIC_RELAXED);
}
EXPORT_SYMBOL(rcu_prove_reports);

#ifdef CONFIG_PROVE_RCU

/*
 * Per call site once for the accessors (a flag at each site,
 * rcupdate.h); the other reports have no site to mark, so only the first
 * MAX_PRINTED of them print, as might_sleep()'s do. All are counted.
 */
#define MAX_PRINTED	5
static int printed;

static bool rcu_prove_count(void)
{
	__atomic_fetch_add(&reports, 1, __ATOMIC_RELAXED);
	return __atomic_fetch_add(&printed, 1, __ATOMIC_RELAXED) < MAX_PRINTED;
}

static void rcu_prove_context(void)
{
	struct task *p = current;

	printk("  task %s/%d on cpu%u: rcu_read_lock nesting %d, preempt_count %08x, irqs %s\n",
	       p ? p->name : "(none)", p ? p->pid : -1, smp_processor_id(), rcu_read_depth(),
	       preempt_count(), irqs_disabled() ? "off" : "on");
	/* Which locks were held says whether the condition named the wrong
	 * one or none was taken (empty without CONFIG_PROVE_LOCKING). */
#ifdef CONFIG_PROVE_LOCKING
	if (p)
		lockdep_print_held_locks(p);
#endif
	dump_stack();
}

void rcu_prove_suspicious(const char *file, int line, const char *what)
{
	__atomic_fetch_add(&reports, 1, __ATOMIC_RELAXED);
	printk("WARNING: suspicious rcu_dereference_check() usage\n");
	printk("  %s:%d: %s() %s\n", file, line, what,
	       !strcmp(what, "rcu_dereference_protected") ?
	       "and its condition (the update-side lock) is false" :
	       !strncmp(what, "srcu_", 5) ?
	       "outside a read-side section of its SRCU domain (this task's) and without its condition" :
	       "outside an RCU read-side section and without its condition");
	if (!strncmp(what, "srcu_", 5))
		srcu_prove_print_held(current);
	rcu_prove_context();
}
EXPORT_SYMBOL(rcu_prove_suspicious);

static void rcu_read_depth_reset(void)
{
#ifdef CONFIG_RCU_PREEMPT
	current->rcu_read_lock_nesting = 0;
#else
	cpu_local()->rcu_read_depth = 0;
#endif
}

/* read_side.h: the nesting went below zero. */
void rcu_prove_unbalanced_unlock(void)
{
	if (rcu_prove_count()) {
		printk("WARNING: rcu_read_unlock() without rcu_read_lock()\n");
		rcu_prove_context();
	}
	rcu_read_depth_reset();
}
EXPORT_SYMBOL(rcu_prove_unbalanced_unlock);

/* Return to user mode, or exit: no section may stay open past it. */
void rcu_prove_task_leaving(const char *where)
{
	int depth;

	if (!READ_ONCE(rcu_prove_ready))
		return;
	depth = rcu_read_depth();
	if (likely(depth == 0))
		return;
	if (rcu_prove_count()) {
		printk("WARNING: %s with an RCU read-side section open\n", where);
		rcu_prove_context();
	}
	/* Close them, so that a preemptible kernel's preempt_count is put
	 * back too (read_side.h): one bug, one report. */
	while (rcu_read_depth() > 0)
		rcu_read_unlock();
}

static const char *sym(void *fn)
{
	unsigned long off, size;
	const char *name = ksym_lookup((unsigned long)fn, &off, &size);

	return name ? name : "?";
}

/*
 * Every variant's call_rcu() asks first. A head queued twice would be
 * linked into a list while already on one (a cycle, or a lost callback),
 * so the second call is reported and refused, as Linux's debug-objects
 * does. The state is cleared just before the callback runs (invoke.c),
 * which may queue the head again.
 */
bool rcu_prove_queue(struct rcu_head *head, void (*func)(void *arg))
{
	if (unlikely(READ_ONCE(head->debug_state) == RCU_HEAD_QUEUED)) {
		if (rcu_prove_count()) {
			printk("WARNING: call_rcu() on an rcu_head already queued\n");
			printk("  head %p: queued for %s(), now for %s()\n", head,
			       sym((void *)head->func), sym((void *)func));
			rcu_prove_context();
		}
		return false;
	}
	head->debug_state = RCU_HEAD_QUEUED;
	kasan_record_queue(head, KASAN_QUEUED_BY_CALL_RCU);	/* for KASAN's reports */
	return true;
}

#endif

void rcu_prove_init(void)
{
	WRITE_ONCE(rcu_prove_ready, true);
}
