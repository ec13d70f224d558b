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
#include <panic.h>
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

/*
 * Calibration against the PIT, robust to a host that deschedules the vCPU.
 *
 * Timing an interval from "start the PIT" to "OUT2 went high" counts, in
 * the TSC, every host delay at either end: under load a guest read 2406
 * MHz for a 2300 MHz TSC (its clock then ran 4.6% slow, and a 300 ms
 * timeout measured 286 ms), and 3x off under a sanitizer build. Instead
 * the PIT's count is read between two TSC reads: the TSC at that count
 * lies between them, whatever the host did, so the narrowest such
 * bracket near each end of a 50 ms run pins the interval, with an error
 * bound of the two widths over the interval. Delays elsewhere cost
 * nothing.
 */
struct pit_reading {
	u64 tsc;		/* the middle of the bracket */
	u64 width;		/* its width, cycles: the reading's uncertainty */
	u32 count;
};

static void pit_reading(struct pit_reading *r)
{
	u64 a = rdtsc();

	r->count = pit_read_count();
	u64 b = rdtsc();
	r->tsc = a + (b - a) / 2;
	r->width = b - a;
}

#define CAL_FULL	0xffffu
#define CAL_HEAD	(PIT_HZ / 100)		/* a start reading: the first 10 ms */
#define CAL_TAIL	(PIT_HZ / 50)		/* an end reading: the last 20 ms */
#define CAL_STOP	(PIT_HZ / 2000)		/* stop 0.5 ms before terminal count */
#define CAL_ATTEMPTS	8
#define CAL_GOOD_PPM	200

/* One run of the PIT from CAL_FULL down: cycles per ms and the error bound
 * in parts per million, or false if no reading came at one end. */
static bool tsc_calibrate_once(u64 *khz, u64 *ppm)
{
	struct pit_reading r, head = { .width = ~0ULL }, tail = { .width = ~0ULL };

	pit_wait_start(CAL_FULL * 1000000ULL / PIT_HZ);
	for (;;) {
		pit_reading(&r);
		/* A reading followed by OUT2 still low came before the count
		 * wrapped; a host delay past terminal count ends the run. */
		if (pit_out_high())
			break;
		if (r.count >= CAL_FULL - CAL_HEAD && r.width < head.width)
			head = r;
		if (r.count <= CAL_TAIL && r.width < tail.width)
			tail = r;
		if (r.count <= CAL_STOP)
			break;
	}
	if (head.width == ~0ULL || tail.width == ~0ULL || tail.tsc <= head.tsc)
		return false;
	u64 cycles = tail.tsc - head.tsc, counts = head.count - tail.count;

	*khz = cycles * PIT_HZ / counts / 1000;
	*ppm = (head.width + tail.width) / 2 * 1000000 / cycles;
	return true;
}

void tsc_calibrate(void)
{
	u64 best_khz = 0, best_ppm = ~0ULL, khz, ppm;
	unsigned long flags = local_irq_save();
	int tries = 0;

	while (tries < CAL_ATTEMPTS && best_ppm > CAL_GOOD_PPM) {
		tries++;
		if (tsc_calibrate_once(&khz, &ppm) && ppm < best_ppm) {
			best_khz = khz;
			best_ppm = ppm;
		}
	}
	local_irq_restore(flags);
	if (!best_khz)
		panic("tsc: no PIT reading in %d runs: cannot calibrate", tries);
	tsc_khz = best_khz;
	tsc_mult = (1000000ULL << 32) / tsc_khz;
	tsc_boot = rdtsc() - 0;
	printk("tsc: %lu.%03lu MHz, within %lu ppm (%d PIT run%s)\n",
	       (unsigned long)(tsc_khz / 1000), (unsigned long)(tsc_khz % 1000),
	       (unsigned long)best_ppm, tries, tries == 1 ? "" : "s");
}
