/*
 * What the trace points cost (BENCH lines, never asserted: docs/design.md):
 *
 *   off_cycles     one trace point with its category off (the load and the
 *                  not-taken branch every traced path pays), beside the same
 *                  loop without it
 *   on_cycles      one record written (interrupts off, cmpxchg, rdtsc, 32 bytes)
 *   switch_*       a context switch (two threads yielding to each other on
 *                  one CPU), with tracing off and with sched events on: the
 *                  ratio is what recording switches costs a switch
 * All in one boot, on one CPU, with interrupts off around the loops.
 */
#include <ktest.h>
#include <trace.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <arch/cpu.h>

#define LOOPS		200000
#define YIELDS		2000

static u64 loop_plain(void)
{
	unsigned long flags = local_irq_save();
	u64 t0 = rdtsc_ordered();

	for (unsigned long i = 0; i < LOOPS; i++)
		__asm__ __volatile__("" :: "r"(i) : "memory");
	t0 = rdtsc_ordered() - t0;
	local_irq_restore(flags);
	return t0;
}

static u64 loop_traced(void)
{
	unsigned long flags = local_irq_save();
	u64 t0 = rdtsc_ordered();

	for (unsigned long i = 0; i < LOOPS; i++) {
		__asm__ __volatile__("" :: "r"(i) : "memory");
		trace_event(TRACE_TEST, TR_TEST, i, i);
	}
	t0 = rdtsc_ordered() - t0;
	local_irq_restore(flags);
	return t0;
}

static volatile bool partner_stop;
static volatile unsigned long partner_runs;

static int partner(void *arg)
{
	while (!READ_ONCE(partner_stop)) {
		partner_runs++;
		yield();
	}
	return 0;
}

/*
 * Cycles per switch: this thread and a partner yield to each other; the
 * partner's runs in the window count the switches (two per run).
 */
static u64 switch_cycles(unsigned int cpu, unsigned long *switches)
{
	struct task *p;
	unsigned long runs;
	u64 t0;

	partner_stop = false;
	p = kthread_create_on_cpu(partner, NULL, cpu, "trbench");
	if (!p)
		return 0;
	wake_up_process(p);
	for (int i = 0; i < 100; i++)
		yield();
	runs = partner_runs;
	t0 = rdtsc();
	for (int i = 0; i < YIELDS; i++)
		yield();
	t0 = rdtsc() - t0;
	*switches = 2 * (partner_runs - runs);
	partner_stop = true;
	kthread_join(p);
	return *switches ? t0 / *switches : 0;
}

KTEST(bench_trace)
{
	u64 plain = ~0ULL, off = ~0ULL, on = ~0ULL, sw_off, sw_on;
	unsigned long n_off = 0, n_on = 0;
	unsigned int cpu;

	trace_stop();
	for (int r = 0; r < 3; r++) {		/* the best of three: the host is noisy */
		plain = MIN(plain, loop_plain());
		off = MIN(off, loop_traced());
	}
	KT_ASSERT(t, trace_start(TRACE_TEST, QS_TRACE_OVERWRITE) == 0, "start");
	for (int r = 0; r < 3; r++)
		on = MIN(on, loop_traced());
	trace_stop();

	preempt_disable();
	cpu = smp_processor_id();
	preempt_enable();
	set_cpus_allowed_one(current, cpu);
	/* Alternating, the best of five each: the host is shared and noisy. */
	sw_off = sw_on = ~0ULL;
	for (int r = 0; r < 5; r++) {
		unsigned long n;
		u64 c = switch_cycles(cpu, &n);

		if (c && c < sw_off)
			sw_off = c, n_off = n;
		KT_ASSERT(t, trace_start(TRACE_SCHED, QS_TRACE_OVERWRITE) == 0, "start");
		c = switch_cycles(cpu, &n);
		trace_stop();
		if (c && c < sw_on)
			sw_on = c, n_on = n;
	}
	kt_info("switches timed: %lu untraced, %lu traced", n_off, n_on);
	KT_ASSERT(t, n_off && n_on, "no partner thread, or it never ran");
	bench_json("{\"bench\":\"trace\",\"cpus\":%u,\"loop_cycles\":%lu,"
		   "\"off_cycles\":%lu,\"on_cycles\":%lu,\"switch_off_cycles\":%lu,"
		   "\"switch_on_cycles\":%lu,\"switch_on_off_ratio\":%lu.%02lu}",
		   num_online_cpus(), plain / LOOPS,
		   off > plain ? (off - plain) / LOOPS : 0, on > plain ? (on - plain) / LOOPS : 0,
		   sw_off, sw_on, sw_on / sw_off, (sw_on * 100 / sw_off) % 100);
	kt_info("a trace point costs %lu.%02lu cycles off and %lu on; a switch %lu cycles "
		"untraced, %lu traced", (off - MIN(off, plain)) / LOOPS,
		((off - MIN(off, plain)) * 100 / LOOPS) % 100,
		(on - MIN(on, plain)) / LOOPS, sw_off, sw_on);
}
