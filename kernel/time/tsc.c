/*
 * The nanosecond clock: the TSC, calibrated against the PIT at boot.
 *
 * ns = (tsc - tsc_at_boot) * mult >> 32, with mult = 10^6 * 2^32 / tsc_khz:
 * one multiply (64x64 -> 128 bits, no division) per reading. Benchmarks
 * report both cycles and nanoseconds from this (docs/design.md, "Benchmarks").
 * QEMU keeps the TSCs of all vCPUs in step, so readings from different
 * CPUs can be compared.
 */
#include <time.h>
#include <arch/cpu.h>
#include <printk.h>
#include <barrier.h>

u64 tsc_khz;
static u64 tsc_boot;
static u64 tsc_mult;		/* ns per cycle, 32.32 fixed point */

u64 cycles_to_ns(u64 cycles)
{
	return (u64)(((unsigned __int128)cycles * tsc_mult) >> 32);
}

u64 ktime_get_ns(void)
{
	if (!tsc_mult)
		return 0;
	return cycles_to_ns(rdtsc() - tsc_boot);
}

void udelay(unsigned long us)
{
	if (!tsc_khz) {				/* before calibration: PIT */
		while (us) {
			unsigned long chunk = us > 50000 ? 50000 : us;
			pit_wait_start(chunk);
			pit_wait_end();
			us -= chunk;
		}
		return;
	}
	u64 end = rdtsc() + us * tsc_khz / 1000;
	while ((s64)(rdtsc() - end) < 0)
		cpu_relax();
}

void mdelay(unsigned long ms)
{
	while (ms--)
		udelay(1000);
}

/* Shortest of three 10 ms PIT intervals: interference only lengthens. */
void tsc_calibrate(void)
{
	u64 best = ~0ULL;
	unsigned long flags = local_irq_save();

	for (int i = 0; i < 3; i++) {
		pit_wait_start(10000);
		u64 t0 = rdtsc();
		pit_wait_end();
		u64 d = rdtsc() - t0;
		if (d < best)
			best = d;
	}
	local_irq_restore(flags);
	tsc_khz = best / 10;
	tsc_mult = (1000000ULL << 32) / tsc_khz;
	tsc_boot = rdtsc() - 0;
	printk("tsc: %lu.%03lu MHz\n", (unsigned long)(tsc_khz / 1000),
	       (unsigned long)(tsc_khz % 1000));
}
