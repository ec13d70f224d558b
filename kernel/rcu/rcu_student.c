/*
 * student: your own RCU implementation, Lab 4. Its doc is the handout,
 * labs/lab4-rcu-implementation/README.md: the design it guides you to
 * (counter-based, after rcu-poll: seed 000 section 5.3, Figures 18-20 and
 * Appendix A.3, Figures 40-43; docs/papers.md), step by step, and what the
 * rest of kernel/rcu expects of a variant (rcu_internal.h). Build it with
 * `make run RCU=student` (KPREEMPT=1 for the preemptible kernel) and judge
 * it with `make grade LAB=4`.
 *
 * As handed out, this file is a SKELETON and deliberately WRONG: call_rcu()
 * runs the callback at once, so synchronize_kernel() returns at once too
 * and no grace period is ever counted. The kernel boots, but the API tests
 * see no grace period and rcutorture reports FAILURE: the skeleton scores 0.
 *
 * Seed 000 Table 1 row of your design: fill in (batching, how quiescent
 * states are deduced, what drives it, queuing, which quiescent states,
 * BH/IRQ safety).
 *
 * Where you depart from the paper, and why: fill in. Keep this comment
 * within 25 lines (tests/test_openers.py); reasoning about one line goes
 * beside that line.
 */
#include "rcu_internal.h"
#include <rcu_hooks.h>
#include <softirq.h>
#include <spinlock.h>
#include <percpu.h>
#include <smp.h>
#include <printk.h>
#include <arch/cpu.h>

/* Its name (docs/rcu/README.md), a string that gdb and the test runner
 * read from the ELF, and the boot line's description of it. */
const char rcu_variant_id[] = "student";
const char rcu_variant_paper[] = "Lab 4's counter-based RCU (seed 000 section 5.3)";

/*
 * Step 1 (handout): the data, with the paper's names. For example:
 *   DEFINE_PER_CPU(long, rcu_quiescent);        each CPU's QS counter
 *   static spinlock_t rcu_lock = SPINLOCK_INIT("rcu_lock");
 *   static LIST_HEAD(rcu_nxtlist);              waiting for a grace period
 *   static LIST_HEAD(rcu_curlist);              in the current one
 *   static long rcu_quiescent_checkpoint[CONFIG_NR_CPUS];
 *   static cpumask_t rcu_qsmask;                CPUs that still owe one
 *   static unsigned long rcu_gpnum;             grace periods begun
 */
static unsigned long student_calls;	/* call_rcu() calls, for show_state */

/*
 * Step 2: queue the callback; start a grace period if none is running.
 * TODO: the skeleton runs func(arg) at once, with no grace period at all.
 */
void call_rcu(struct rcu_head *head, void (*func)(void *arg), void *arg)
{
	if (!rcu_prove_queue(head, func))
		return;	/* reported: queued already */
	head->func = func;
	head->arg = arg;
	student_calls++;
	rcu_stats_queued(head);
	rcu_prove_dequeue(head);
	func(arg);			/* WRONG: readers may still hold arg */
	WRITE_ONCE(this_cpu(rcu_cpu_stats).invoked, this_cpu(rcu_cpu_stats).invoked + 1);
}

/*
 * Step 3: the quiescent states. In both preemption models a context
 * switch cannot happen inside a reader (kernel/rcu/read_side.h), so
 * every switch counts.
 * TODO: count a quiescent state on this CPU.
 */
void rcu_hook_context_switch(bool voluntary)
{
}

/*
 * Step 4: the tick. TICK_USER and TICK_IDLE are quiescent states,
 * TICK_KERNEL is not (it may have interrupted a reader) unless rcu_break
 * is set. Then: has every CPU passed one since the snapshot? If so, end
 * the grace period and raise RCU_SOFTIRQ. Call rcu_check_stall() here.
 * TODO: all of it.
 */
void rcu_hook_tick(enum tick_context ctx)
{
}

/* Step 3: a pass of the idle loop holds no reference: a quiescent state.
 * TODO. */
void rcu_hook_idle(void)
{
}

/* Step 5: each CPU's data, on that CPU before its first tick. */
void rcu_variant_init_cpu(unsigned int cpu)
{
}

/* Step 5: boot, before other CPUs run: e.g. open_softirq(RCU_SOFTIRQ, ...). */
void rcu_variant_init(void)
{
}

void rcu_variant_late_init(void)
{
}

/* Step 6: which CPUs still owe the grace period in progress a quiescent
 * state (stall.c prints them). TODO: the skeleton never reports one. */
bool rcu_variant_stall_info(struct rcu_stall_info *si)
{
	return false;
}

/* Your data, for stall warnings and Ctrl-T. */
void rcu_variant_show_state(void)
{
	printk("rcu (student): skeleton, %lu callbacks run at once\n", student_calls);
}
