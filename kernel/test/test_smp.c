/*
 * SMP, interrupts and time: every CPU is online, takes its own ticks,
 * answers IPIs; idle CPUs' ticks are classified as idle; NMIs reach CPUs
 * that have interrupts disabled.
 */
#include <ktest.h>
#include <smp.h>
#include <tick.h>
#include <time.h>
#include <printk.h>
#include <arch/apic.h>
#include <arch/cpu.h>
#include <arch/irq.h>
#include <preempt.h>

KTEST(smp_all_cpus_online)
{
	unsigned int cpu;

	KT_EXPECT(t, num_online_cpus() == nr_cpu_ids, "%u of %u CPUs online",
		  num_online_cpus(), nr_cpu_ids);
	for_each_online_cpu(cpu)
		KT_EXPECT(t, per_cpu_ptr(&cpu_local_template, cpu)->cpu == cpu,
			  "CPU %u's per-CPU area says it is CPU %u", cpu,
			  per_cpu_ptr(&cpu_local_template, cpu)->cpu);
	kt_info("%u CPUs online", num_online_cpus());
}

/* Each CPU's tick count must grow by itself: its own LAPIC timer. */
KTEST(smp_every_cpu_ticks)
{
	unsigned long before[CONFIG_NR_CPUS];
	unsigned int cpu;
	unsigned long j0 = jiffies;

	for_each_online_cpu(cpu)
		before[cpu] = cpu_ticks(cpu);
	mdelay(100);
	for_each_online_cpu(cpu)
		kt_info("cpu%u: %lu ticks in 100 ms (HZ=%d)", cpu, cpu_ticks(cpu) - before[cpu], HZ);
	/*
	 * Liveness, not a rate: a host that starves a vCPU may hold its
	 * ticks back for a while, so give every CPU up to 5 s to take one.
	 */
	for_each_online_cpu(cpu) {
		for (int ms = 0; ms < 5000 && cpu_ticks(cpu) == before[cpu]; ms++)
			mdelay(1);
		KT_EXPECT(t, cpu_ticks(cpu) != before[cpu], "CPU %u took no tick in 5 s", cpu);
	}
	KT_EXPECT(t, jiffies != j0, "jiffies did not advance");
}

/* Idle CPUs halt in the idle loop: their ticks must be classified TICK_IDLE. */
KTEST(smp_idle_ticks_counted)
{
	unsigned long before[CONFIG_NR_CPUS];
	unsigned int cpu;

	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs an idle CPU besides the test's");
		return;
	}
	for_each_online_cpu(cpu)
		before[cpu] = cpu_tick_stats(cpu)->by_context[TICK_IDLE];
	mdelay(100);
	/*
	 * Liveness, not a rate: a host that starves a vCPU holds its ticks
	 * back, so each other CPU has up to 5 s (this one stays busy in
	 * mdelay meanwhile, for the check below) to take an idle tick.
	 */
	for_each_online_cpu(cpu) {
		if (cpu == smp_processor_id())
			continue;
		for (int ms = 0; ms < 5000 && cpu_tick_stats(cpu)->by_context[TICK_IDLE] == before[cpu]; ms++)
			mdelay(1);
		KT_EXPECT(t, cpu_tick_stats(cpu)->by_context[TICK_IDLE] > before[cpu],
			  "CPU %u took no idle tick in 5 s", cpu);
	}
	/* This CPU is busy in mdelay: its ticks since were kernel ticks. */
	KT_EXPECT(t, cpu_tick_stats(smp_processor_id())->by_context[TICK_IDLE] ==
		  before[smp_processor_id()], "a busy CPU counted idle ticks");
}

static unsigned long hits[CONFIG_NR_CPUS];
static int where[CONFIG_NR_CPUS];

static void record_hit(void *arg)
{
	unsigned int me = smp_processor_id();

	__atomic_fetch_add(&hits[me], 1, __ATOMIC_RELAXED);
	where[me] = in_irq() || me == (unsigned long)arg ? 1 : -1;
}

KTEST(smp_call_function_reaches_all)
{
	unsigned int cpu, me = smp_processor_id();

	for (int i = 0; i < CONFIG_NR_CPUS; i++)
		hits[i] = 0, where[i] = 0;
	on_each_cpu(record_hit, (void *)(unsigned long)me, true);
	for_each_online_cpu(cpu) {
		KT_EXPECT(t, hits[cpu] == 1, "CPU %u ran the function %lu times", cpu, hits[cpu]);
		KT_EXPECT(t, where[cpu] == 1, "CPU %u ran it outside the IPI handler", cpu);
	}
	/* Many calls, one target at a time, without waiting, then one wait. */
	for (int round = 0; round < 200; round++)
		for_each_online_cpu(cpu)
			smp_call_function_single(cpu, record_hit, (void *)(unsigned long)me, false);
	on_each_cpu(record_hit, (void *)(unsigned long)me, true);
	for_each_online_cpu(cpu)
		KT_EXPECT(t, hits[cpu] == 202, "CPU %u: %lu calls arrived, 202 sent", cpu, hits[cpu]);
	KT_EXPECT(t, smp_call_function_single(CONFIG_NR_CPUS, record_hit, NULL, true) != 0,
		  "a call to a CPU that does not exist was accepted");
}

static volatile int spinning;

static void spin_irqs_off(void *arg)
{
	unsigned long flags = local_irq_save();

	__atomic_fetch_add(&spinning, 1, __ATOMIC_SEQ_CST);
	while (READ_ONCE(*(volatile int *)arg))
		cpu_relax();
	__atomic_fetch_sub(&spinning, 1, __ATOMIC_SEQ_CST);
	local_irq_restore(flags);
}

/* An NMI gets through to a CPU spinning with interrupts disabled. */
KTEST(smp_nmi_backtrace)
{
	static volatile int hold;
	cpumask_t mask;
	unsigned int target = nr_cpu_ids - 1;

	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs two CPUs");
		return;
	}
	unsigned long b0 = nmi_backtraces_done(target);

	hold = 1;
	smp_call_function_single(target, spin_irqs_off, (void *)&hold, false);
	while (!READ_ONCE(spinning))
		cpu_relax();
	cpumask_clear(&mask);
	cpumask_set(target, &mask);
	nmi_trigger_backtrace(&mask);
	/*
	 * nmi_trigger_backtrace() gives up after a second; a vCPU the host
	 * holds longer takes the NMI later. Keep it spinning with interrupts
	 * off until its backtrace is out (up to 5 s), so that the NMI is
	 * what got through, and count only this test's backtrace.
	 */
	for (int ms = 0; ms < 5000 && nmi_backtraces_done(target) == b0; ms++)
		mdelay(1);
	hold = 0;
	while (READ_ONCE(spinning))
		cpu_relax();
	KT_EXPECT(t, nmi_backtraces_done(target) > b0, "CPU %u printed no NMI backtrace in 6 s",
		  target);
}

/* The tick and the TSC clock agree: 100 ms of jiffies is about 100 ms of ns. */
KTEST(time_clocks_agree)
{
	unsigned long j0 = jiffies;
	u64 t0 = ktime_get_ns();

	while (jiffies - j0 < (unsigned long)HZ / 5)
		cpu_relax();
	u64 dt = ktime_get_ns() - t0;
	kt_info("%lu jiffies took %lu us by the TSC", jiffies - j0, (unsigned long)(dt / 1000));
	/* Liveness only (timing is a benchmark's business): both clocks moved. */
	KT_EXPECT(t, dt > 0, "the TSC clock did not advance");
}

/* The serial port's receive interrupt is routed (IOAPIC) and unmasked. */
KTEST(irq_serial_routed)
{
	extern unsigned long serial_rx_irqs;
	kt_info("serial receive interrupts so far: %lu", serial_rx_irqs);
	KT_EXPECT(t, irq_vector_has_handler(VEC_IRQ_BASE + 4), "no handler on the serial vector");
}
