/*
 * Softirqs: deferred interrupt work, run with interrupts enabled but in
 * "softirq context" (no sleeping), on the CPU that raised it.
 *
 * A hardware interrupt handler does the urgent part and raises a softirq
 * for the rest. Pending softirqs run:
 *   - on the way out of the last nested hardware interrupt (irq_exit);
 *   - at local_bh_enable(), when the outermost bh-disabled section ends;
 *   - in this CPU's ksoftirqd thread, when they keep coming back.
 * __do_softirq() makes at most MAX_SOFTIRQ_RESTART passes over the pending
 * set and hands the rest to ksoftirqd, so a softirq flood cannot starve
 * threads (seed 003 section 3 and 4.3: the 2.6 kernel's do_softirq). While a
 * softirq runs, the SOFTIRQ_OFFSET bit in preempt_count is set: a softirq
 * never runs twice at once on one CPU, and in_softirq() is true.
 *
 * local_bh_disable()/local_bh_enable() (include/bottom_half.h, so that the
 * locks need not include this header) nest through the softirq field of
 * preempt_count (in steps of SOFTIRQ_DISABLE_OFFSET, include/preempt.h);
 * rcu_read_lock_bh() is local_bh_disable() (seed 003 Figure 12).
 */
#ifndef _SOFTIRQ_H
#define _SOFTIRQ_H

#include <compiler.h>
#include <preempt.h>
#include <bottom_half.h>

enum {
	HI_SOFTIRQ,		/* high-priority tasklets */
	TIMER_SOFTIRQ,		/* kernel timers (kernel/sched/timer.c) */
	NET_TX_SOFTIRQ,
	NET_RX_SOFTIRQ,
	TASKLET_SOFTIRQ,	/* ordinary tasklets */
	RCU_SOFTIRQ,		/* RCU callback processing */
	TEST_SOFTIRQ,		/* for tests and benchmarks */
	NR_SOFTIRQS
};

#define MAX_SOFTIRQ_RESTART	10

typedef void (*softirq_action_t)(void);

void open_softirq(unsigned int nr, softirq_action_t action);
const char *softirq_name(unsigned int nr);

/* Mark nr pending on this CPU; any context. */
void raise_softirq(unsigned int nr);
/* The same, with interrupts already disabled. */
void raise_softirq_irqoff(unsigned int nr);
/*
 * Only mark it pending (interrupts disabled), never wake ksoftirqd: for
 * callers that hold scheduler locks, such as the RCU context-switch hook.
 * It runs at this CPU's next irq_exit() or local_bh_enable().
 */
void __raise_softirq_irqoff(unsigned int nr);
unsigned int local_softirq_pending(void);

/* Run this CPU's pending softirqs now, if not in interrupt context. */
void do_softirq(void);

/* Called by irq_exit() after the hardirq count is dropped, irqs off. */
void softirq_on_irq_exit(void);

/* Boot: the vectors; late: the per-CPU ksoftirqd threads. */
void softirq_init(void);
void ksoftirqd_start(void);

struct softirq_stats {
	unsigned long raised[NR_SOFTIRQS];
	unsigned long run[NR_SOFTIRQS];
	unsigned long do_softirq_calls;	/* __do_softirq entries */
	unsigned long restarts;		/* extra passes */
	unsigned long handed_to_ksoftirqd;	/* gave up after MAX_SOFTIRQ_RESTART */
	unsigned long ksoftirqd_runs;	/* passes made by ksoftirqd */
};
void softirq_get_stats(unsigned int cpu, struct softirq_stats *out);
void softirq_show_stats(void);

#endif
