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
#include <cmdline.h>
#include <errno.h>

volatile unsigned long jiffies __tick_line;
static DEFINE_PER_CPU(struct tick_stats, tick_stats);
/* gdb and the tests read this one by name (tools/gdb/quiescent.py). */
DEFINE_PER_CPU(unsigned long, tick_count);


/*
 * make replay STOP=T (docs/replay.md, tools/replay.py): every CPU's tick
 * and every printk (before its line is out: a stop before a failure
 * lands, at the latest, just before its report) compare the time with
 * replay_stop_ns and call replay_stop(), where gdb waits, once it is
 * reached. The comparison is made whatever the value, with no "is a stop
 * set?" test first.
 *
 * The value comes on the command line as replay.stop= with exactly 20
 * decimal digits, which the deterministic mode always passes (all zeros:
 * never), so that a run asked to stop and the run it replays differ in
 * digits only: the parse below, the command line's copies and its echo
 * execute the same instructions for any digits. (gdb writing the value
 * instead would have to stop the run first, and QEMU moves the virtual
 * clock on to its next deadline when a stopped run is resumed.)
 */
u64 replay_stop_ns = ~0ULL;

__attribute__((noinline)) void replay_stop(void)
{
	barrier();	/* a body, so that gdb's breakpoint has an address to itself */
}

#define REPLAY_STOP_DIGITS 20

static int set_replay_stop(const char *v)
{
	u64 ns = 0;
	int i;

	if (!v)
		return -EINVAL;
	for (i = 0; i < REPLAY_STOP_DIGITS; i++) {
		if (v[i] < '0' || v[i] > '9')
			return -EINVAL;
		ns = ns * 10 + (u64)(v[i] - '0');
	}
	if (v[i])
		return -EINVAL;
	replay_stop_ns = ns - 1;	/* all zeros: ~0, never; no branch on the value */
	return 0;
}
CMDLINE_PARAM("replay.stop", set_replay_stop,
	      "replay.stop=<20 digits>: call replay_stop() at the first tick or printk at or "
	      "after that many ns, plus 1 (make replay STOP=; all zeros: never)");

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
