/*
 * Preemption: the two places where the kernel takes the CPU from a task
 * that did not ask to give it up (CONFIG_KPREEMPT only).
 *
 *   preempt_enable()   when the count drops to zero with need_resched set
 *                      (include/preempt.h calls preempt_schedule());
 *   interrupt return   irq_exit(), when the interrupted code could have
 *                      been preempted: preempt_count zero once the
 *                      handler's hardirq count is gone, and interrupts
 *                      were enabled in it (regs->rflags.IF).
 *
 * Both switches are involuntary (SM_PREEMPT): the task stays runnable,
 * even if it had already set a sleeping state (it will call schedule()
 * itself when it resumes), and RCU is told the switch was not a
 * quiescent state (seed 000 section 2.6).
 *
 * The non-preemptive kernel (CONFIG_KPREEMPT_NONE, Linux 2.4's
 * run-to-block) only sets need_resched; the switch waits for the task
 * to block, yield or call cond_resched().
 */
#include "sched.h"
#include <softirq.h>
#include <arch/irq.h>
#include <upcalls.h>
#include <arch/cpu.h>
#include <cmdline.h>
#include <printk.h>
#include <string.h>

#ifdef CONFIG_KPREEMPT
bool sched_preempt_active = true;
#else
bool sched_preempt_active;
#endif

/* The preemption model built in, as the banner, uname and torture print it. */
const char *preempt_model_name(void)
{
#ifdef CONFIG_KPREEMPT
	return "kpreempt";
#else
	return "none";
#endif
}

void sched_set_preempt(bool on)
{
#ifdef CONFIG_KPREEMPT
	WRITE_ONCE(sched_preempt_active, on);
#endif
}

#ifdef CONFIG_KPREEMPT
static int set_preempt_param(const char *val)
{
	if (!val)
		return -1;
	if (!strcmp(val, "none"))
		sched_set_preempt(false);
	else if (!strcmp(val, "full"))
		sched_set_preempt(true);
	else
		return -1;
	return 0;
}
CMDLINE_PARAM("kpreempt", set_preempt_param,
	      "kpreempt=none|full: in a CONFIG_KPREEMPT kernel, start without or with preemption");
#endif

static inline bool may_preempt(void)
{
	struct task *p = current;

	return READ_ONCE(sched_preempt_active) && p && !p->is_idle &&
	       !hotplug_holds_preemption(p);
}

/* From preempt_enable(): the count just reached zero and need_resched is set. */
void preempt_schedule(void)
{
#ifdef CONFIG_KPREEMPT
	if (preempt_count() || irqs_disabled() || !may_preempt())
		return;
	do {
		this_rq()->stats.preempt_enable++;
		__schedule(SM_PREEMPT);
	} while (need_resched());
#endif
}

#ifdef CONFIG_KPREEMPT
/* From the interrupt return path, interrupts off; they stay off. */
static void preempt_schedule_irq(void)
{
	do {
		this_rq()->stats.preempt_irq++;
		__schedule(SM_PREEMPT);
	} while (need_resched());
}
#endif

/* Around every hardware interrupt (kernel/arch/x86/idt.c, include/upcalls.h). */
void irq_enter(void)
{
	preempt_count_add(HARDIRQ_OFFSET);
}

void irq_exit(struct pt_regs *regs)
{
	preempt_count_sub(HARDIRQ_OFFSET);

	/*
	 * Softirqs run here: after the hardirq count is gone (so a nested
	 * interrupt's exit does not start a second pass), before any
	 * preemption, as in Linux's irq_exit() (kernel/sched/softirq.c).
	 */
	softirq_on_irq_exit();

	if (user_mode(regs)) {
		/* Back to user mode: every model reschedules here (user code
		 * holds no kernel reference, so it counts as voluntary), and
		 * the process layer ends a killed process. */
		user_return_work(regs);
		return;
	}
	if (!need_resched() || preempt_count() || !(regs->rflags & X86_EFLAGS_IF))
		return;
#ifdef CONFIG_KPREEMPT
	if (may_preempt())
		preempt_schedule_irq();
#endif
}
