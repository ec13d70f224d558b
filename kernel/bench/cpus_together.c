/*
 * Start a benchmark loop on CPUs 0..k-1 at the same moment, for the
 * read-side benchmarks that compare RCU with locks at 1..N CPUs.
 *
 * The other CPUs run it from the call-function IPI, with interrupts off,
 * so nothing interrupts a timed loop; the caller runs it with interrupts
 * off too: the same conditions on every CPU, and a lock the loop takes is
 * taken in hard-IRQ context on the others, so it must be taken with
 * interrupts off here (the lock validator reports the mix otherwise).
 * Each waits for one `go`, runs fn, and adds itself to `done`.
 *
 * The calls are sent without waiting, to every other CPU, and a CPU
 * outside the mask returns at once. But it may take its IPI late, after
 * the next run has put it in the mask; if that stale call then waited for
 * `go`, it would wait forever, because the sender spins for that same
 * call's slot (kernel/arch/x86/ipi.c) before it can give `go`. So each run
 * has a generation, written before the mask and passed as the call's
 * argument; a call reads the mask, then the generation, and a stale one
 * returns.
 */
#include "cpus_together.h"
#include <smp.h>
#include <barrier.h>
#include <arch/cpu.h>

static struct {
	volatile unsigned long gen;	/* which run a call belongs to */
	volatile int go, done;
	cpumask_t cpus;
	void (*fn)(void *);
	void *arg;
	u64 cycles[CONFIG_NR_CPUS];
} tg;

static void together_one(void *gen)
{
	unsigned int me = smp_processor_id();
	u64 t0;

	if (!cpumask_test(me, &tg.cpus))
		return;
	smp_rmb();	/* the mask, then the generation the sender wrote before it */
	if ((unsigned long)gen != tg.gen)
		return;
	while (!READ_ONCE(tg.go))
		cpu_relax();
	t0 = rdtsc_ordered();
	tg.fn(tg.arg);
	tg.cycles[me] = rdtsc_ordered() - t0;
	__atomic_fetch_add(&tg.done, 1, __ATOMIC_SEQ_CST);
}

u64 cpus_together(unsigned int k, void (*fn)(void *), void *arg)
{
	unsigned long gen = tg.gen + 1;
	unsigned int cpu;
	u64 sum = 0;

	WRITE_ONCE(tg.gen, gen);	/* before the mask: a stale call never sees its CPU in it */
	smp_wmb();
	cpumask_clear(&tg.cpus);
	for (unsigned int c = 0; c < k; c++)
		cpumask_set(c, &tg.cpus);
	tg.fn = fn;
	tg.arg = arg;
	tg.go = 0;
	tg.done = 0;
	smp_call_function(together_one, (void *)gen, false);
	tg.go = 1;
	unsigned long flags = local_irq_save();
	together_one((void *)gen);
	local_irq_restore(flags);
	while (READ_ONCE(tg.done) < (int)k)
		cpu_relax();
	for_each_cpu(cpu, &tg.cpus)
		sum += tg.cycles[cpu];
	return sum / k;
}
