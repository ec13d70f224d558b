/*
 * might_sleep(): "the caller may block here". Blocking is a bug in atomic
 * context: with a spinlock held or preemption disabled (the switch would
 * leave the lock held, or break the caller's assumption that it stays on
 * this CPU), in a hard or soft interrupt (there is no task to put to
 * sleep), or with interrupts disabled. It warns whether or not this call
 * would actually have blocked, so that the bug shows on the first run,
 * not on the unlucky one.
 *
 * The warning prints (with a backtrace) the first MAX_PRINTED times; the
 * counter (might_sleep_warnings) counts every one, so tests can check it.
 * The non-sleepable RCU read-side sections plug in through
 * might_sleep_extra_check later.
 */
#include "sched.h"
#include <printk.h>
#include <arch/irq.h>
#include <arch/cpu.h>

#define MAX_PRINTED	5

static unsigned long warnings;
static int printed;
bool (*might_sleep_extra_check)(const char **why);

unsigned long might_sleep_warnings(void)
{
	return __atomic_load_n(&warnings, __ATOMIC_RELAXED);
}

static const char *atomic_reason(void)
{
	int pc = preempt_count();
	const char *why = NULL;

	if (pc & NMI_MASK)
		return "in NMI";
	if (pc & HARDIRQ_MASK)
		return "in hard interrupt";
	if (pc & SOFTIRQ_MASK)
		return "in softirq or with bottom halves disabled";
	if (pc & PREEMPT_MASK)
		return "with a spinlock held or preemption disabled";
	if (irqs_disabled())
		return "with interrupts disabled";
	if (might_sleep_extra_check && might_sleep_extra_check(&why))
		return why;
	return NULL;
}

void __might_sleep(const char *file, int line)
{
	const char *why = atomic_reason();
	struct task *p = current;

	if (likely(!why))
		return;
	__atomic_fetch_add(&warnings, 1, __ATOMIC_RELAXED);
	if (__atomic_fetch_add(&printed, 1, __ATOMIC_RELAXED) >= MAX_PRINTED)
		return;
	printk("WARNING: sleeping function called from invalid context at %s:%d\n", file, line);
	printk("  %s: preempt_count %08x, irqs %s, task %s/%d\n", why, preempt_count(),
	       irqs_disabled() ? "off" : "on", p ? p->name : "(none)", p ? p->pid : -1);
	dump_stack();
}
