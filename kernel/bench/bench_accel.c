/*
 * What the accelerator makes of single instructions (BENCH "accel"
 * lines, never asserted): tools/qs/kvm.py boots this under KVM to tell a
 * KVM that runs kernel code on the core from one that interprets it.
 *
 *   ktest=bench_accel
 *
 *   add       independent register adds, 256 a loop pass
 *   loop      an empty counted loop, per pass
 *   rdtsc     one TSC read (a VM exit if the hypervisor traps it)
 *   pause     cpu_relax() (a VM exit if the hypervisor counts pause loops)
 *   lock_inc  a locked increment of a line this CPU holds
 *
 * On a core an add is a fraction of a nanosecond; TCG makes it a few
 * host instructions; a hypervisor that emulates the guest kernel makes
 * it a microsecond. Each figure is the best of three runs with
 * interrupts off, a few milliseconds of real time on a core.
 */
#include <ktest.h>
#include <time.h>
#include <barrier.h>
#include <arch/cpu.h>

#define ACCEL_RUNS	3
#define ACCEL_PASSES	256		/* adds: 256 x 256 = 65536 */
#define ACCEL_OPS	4096		/* the other operations */

static u64 accel_add(void)
{
	u64 a = 0, b = 0, c = 0, d = 0, t0 = rdtsc_ordered();

	for (int i = 0; i < ACCEL_PASSES; i++)
		__asm__ __volatile__(".rept 64\n\tadd $1, %0\n\tadd $1, %1\n\tadd $1, %2\n\tadd $1, %3\n\t.endr"
				     : "+r"(a), "+r"(b), "+r"(c), "+r"(d));
	return rdtsc_ordered() - t0;
}

static u64 accel_loop(void)
{
	u64 t0 = rdtsc_ordered();

	for (int i = 0; i < ACCEL_OPS; i++)
		__asm__ __volatile__("" ::: "memory");
	return rdtsc_ordered() - t0;
}

static u64 accel_rdtsc(void)
{
	u64 t0 = rdtsc_ordered(), sum = 0;

	for (int i = 0; i < ACCEL_OPS; i++)
		sum += rdtsc();
	__asm__ __volatile__("" :: "r"(sum));
	return rdtsc_ordered() - t0;
}

static u64 accel_pause(void)
{
	u64 t0 = rdtsc_ordered();

	for (int i = 0; i < ACCEL_OPS; i++)
		cpu_relax();
	return rdtsc_ordered() - t0;
}

static u64 accel_lock_inc(void)
{
	static unsigned int v __cacheline_aligned;
	u64 t0 = rdtsc_ordered();

	for (int i = 0; i < ACCEL_OPS; i++)
		__asm__ __volatile__("lock incl %0" : "+m"(v) :: "memory");
	return rdtsc_ordered() - t0;
}

static void accel_report(const char *op, u64 (*fn)(void), u64 count)
{
	u64 best = ~0ULL, ps;

	for (int r = 0; r < ACCEL_RUNS; r++) {
		unsigned long flags = local_irq_save();
		u64 c = fn();

		local_irq_restore(flags);
		if (c < best)
			best = c;
	}
	ps = cycles_to_ns(best * 1000) / count;
	bench_json("{\"bench\":\"accel\",\"op\":\"%s\",\"ps\":%lu,\"cycles_x100\":%lu,\"count\":%lu}",
		   op, (unsigned long)ps, (unsigned long)(best * 100 / count), (unsigned long)count);
	kt_info("%-9s %8lu.%03lu ns", op, (unsigned long)(ps / 1000), (unsigned long)(ps % 1000));
}

KTEST(bench_accel)
{
	accel_report("add", accel_add, ACCEL_PASSES * 256);
	accel_report("loop", accel_loop, ACCEL_OPS);
	accel_report("rdtsc", accel_rdtsc, ACCEL_OPS);
	accel_report("pause", accel_pause, ACCEL_OPS);
	accel_report("lock_inc", accel_lock_inc, ACCEL_OPS);
}
