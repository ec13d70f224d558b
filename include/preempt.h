/*
 * preempt_count: one per-CPU word that says what context the CPU is in.
 *
 *   bits  0-7   preemption disabled (nesting depth; spinlocks count here)
 *   bits  8-15  softirq: bit 8 set while a softirq handler runs,
 *               +2*256 per local_bh_disable() level (as in Linux)
 *   bits 16-23  hardirq nesting
 *   bit  24     NMI
 *
 * It lives in struct cpu_local (%gs:32). The count is kept in every kernel,
 * preemptive or not, so that in_interrupt() and might_sleep() always work;
 * only CONFIG_KPREEMPT acts on it by rescheduling at preempt_enable().
 */
#ifndef _PREEMPT_H
#define _PREEMPT_H

#include <percpu.h>

#define PREEMPT_SHIFT	0
#define SOFTIRQ_SHIFT	8
#define HARDIRQ_SHIFT	16
#define NMI_SHIFT	24

#define PREEMPT_MASK	(0xffU << PREEMPT_SHIFT)
#define SOFTIRQ_MASK	(0xffU << SOFTIRQ_SHIFT)
#define HARDIRQ_MASK	(0xffU << HARDIRQ_SHIFT)
#define NMI_MASK	(0x1U << NMI_SHIFT)

#define PREEMPT_OFFSET		(1U << PREEMPT_SHIFT)
#define SOFTIRQ_OFFSET		(1U << SOFTIRQ_SHIFT)
#define SOFTIRQ_DISABLE_OFFSET	(2U * SOFTIRQ_OFFSET)
#define HARDIRQ_OFFSET		(1U << HARDIRQ_SHIFT)
#define NMI_OFFSET		(1U << NMI_SHIFT)

static __always_inline int preempt_count(void)
{
	int v;
	__asm__ __volatile__("movl %%gs:32, %0" : "=r"(v) :: "memory");
	return v;
}

static __always_inline void preempt_count_add(int v)
{
	__asm__ __volatile__("addl %0, %%gs:32" :: "ri"(v) : "memory", "cc");
}

static __always_inline void preempt_count_sub(int v)
{
	__asm__ __volatile__("subl %0, %%gs:32" :: "ri"(v) : "memory", "cc");
}

#define in_nmi()		(preempt_count() & NMI_MASK)
#define in_irq()		(preempt_count() & HARDIRQ_MASK)
#define in_softirq()		(preempt_count() & SOFTIRQ_MASK)
#define in_serving_softirq()	(preempt_count() & SOFTIRQ_OFFSET)
#define in_interrupt()		(preempt_count() & (HARDIRQ_MASK | SOFTIRQ_MASK | NMI_MASK))

/* Set by kernel/sched when it exists: reschedule if preemption is allowed. */
void preempt_schedule(void);

static __always_inline void preempt_disable(void)
{
	preempt_count_add(1);
	barrier();
}

static __always_inline void preempt_enable_no_resched(void)
{
	barrier();
	preempt_count_sub(1);
}

#ifdef CONFIG_KPREEMPT
static __always_inline void preempt_enable(void)
{
	barrier();
	preempt_count_sub(1);
	if (unlikely(preempt_count() == 0 && READ_ONCE(cpu_local()->need_resched)))
		preempt_schedule();
}
#else
#define preempt_enable()	preempt_enable_no_resched()
#endif

#endif
