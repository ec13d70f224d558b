/*
 * Bottom halves off and on: the softirq-disable count.
 *
 * The count lives in preempt_count (include/preempt.h, in steps of
 * SOFTIRQ_DISABLE_OFFSET), a core-layer word, so the locks
 * (spin_lock_bh(), write_lock_bh()) and RCU's rcu_read_lock_bh() can
 * take it without knowing what a softirq is. Both calls are defined by
 * the softirqs themselves (kernel/sched/softirq.c): local_bh_enable()
 * runs what became pending meanwhile, the one call up from this header
 * (docs/layers.md). The softirq API proper is include/softirq.h.
 */
#ifndef _BOTTOM_HALF_H
#define _BOTTOM_HALF_H

/* Nest: each call adds SOFTIRQ_DISABLE_OFFSET. Any context but hard IRQ. */
void local_bh_disable(void);
/* The outermost one runs this CPU's pending softirqs, unless in interrupt. */
void local_bh_enable(void);
/*
 * As local_bh_enable(), but what is pending is left to ksoftirqd (woken
 * if asleep) or the next irq_exit() instead of run here: for a caller
 * that only queued work for a softirq and must not pay for whatever else
 * is pending on its CPU (Linux's _local_bh_enable() skips it the same way).
 */
void local_bh_enable_defer(void);

#endif
