/*
 * The per-CPU tick (include/tick.h): each CPU's LAPIC timer interrupt.
 * CPU 0 also advances jiffies, the global tick count.
 */
#include <trace.h>
#include <tick.h>
#include <time.h>
#include <rcu_hooks.h>
#include <upcalls.h>
#include <arch/irq.h>
#include <arch/apic.h>
#include <percpu.h>
#include <preempt.h>
#include <printk.h>
#include <smp.h>

volatile unsigned long jiffies __tick_line;
static DEFINE_PER_CPU(struct tick_stats, tick_stats);
/* gdb and the tests read this one by name (tools/gdb/quiescent.py). */
DEFINE_PER_CPU(unsigned long, tick_count);



unsigned long cpu_ticks(unsigned int cpu)
{
	return READ_ONCE(per_cpu(tick_count, cpu));
}

const struct tick_stats *cpu_tick_stats(unsigned int cpu)
{
	return &per_cpu(tick_stats, cpu);
}

/*
 * What did this tick interrupt? Inside the handler, preempt_count holds
 * exactly one hardirq level (ours) unless we interrupted another
 * interrupt handler.
 */
static enum tick_context classify(struct pt_regs *regs)
{
	if (user_mode(regs))
		return TICK_USER;
	if (READ_ONCE(cpu_local()->in_idle) &&
	    (preempt_count() & (HARDIRQ_MASK | SOFTIRQ_MASK)) == HARDIRQ_OFFSET)
		return TICK_IDLE;
	return TICK_KERNEL;
}

static void tick_interrupt(struct pt_regs *regs, void *arg)
{
	struct tick_stats *ts = this_cpu_ptr(&tick_stats);
	enum tick_context ctx = classify(regs);

	if (smp_processor_id() == 0)
		WRITE_ONCE(jiffies, jiffies + 1);
	replay_stop_check(ktime_get_ns());
	ts->ticks++;
	ts->by_context[ctx]++;
	WRITE_ONCE(this_cpu(tick_count), this_cpu(tick_count) + 1);	/* cpu_ticks() */
	trace_event(TRACE_IRQ, TR_TICK, ctx, 0);
	scheduler_tick(ctx);
	rcu_hook_tick(ctx);
	if (ctx == TICK_USER)
		rcu_tasks_hook_qs();
}

void tick_start_this_cpu(void)
{
	lapic_timer_start();
}

void time_init(void)
{
	tsc_calibrate();
	lapic_timer_calibrate();
	irq_set_handler(VEC_LOCAL_TIMER, tick_interrupt, NULL, "timer");
	tick_start_this_cpu();
}
