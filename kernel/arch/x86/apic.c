/*
 * The local APIC (xAPIC mode, memory-mapped): per-CPU interrupt delivery,
 * end-of-interrupt, inter-processor interrupts, and the per-CPU timer.
 *
 * The 8259 PICs are remapped out of the way and masked: every device
 * interrupt goes through the IOAPIC, every CPU's tick comes from its own
 * LAPIC timer. LINT1 on the boot CPU delivers NMIs.
 */
#include <arch/apic.h>
#include <arch/irq.h>
#include <arch/io.h>
#include <arch/cpu.h>
#include <mm.h>
#include <percpu.h>
#include <printk.h>
#include <panic.h>
#include <time.h>
#include <barrier.h>

#define APIC_ID		0x020
#define APIC_VER	0x030
#define APIC_TPR	0x080
#define APIC_EOI	0x0b0
#define APIC_SVR	0x0f0
#define APIC_ESR	0x280
#define APIC_ICR_LO	0x300
#define APIC_ICR_HI	0x310
#define APIC_LVT_TIMER	0x320
#define APIC_LVT_LINT0	0x350
#define APIC_LVT_LINT1	0x360
#define APIC_LVT_ERROR	0x370
#define APIC_TIMER_INIT	0x380
#define APIC_TIMER_CUR	0x390
#define APIC_TIMER_DIV	0x3e0

#define LVT_MASKED	(1U << 16)
#define LVT_PERIODIC	(1U << 17)
#define ICR_PENDING	(1U << 12)
#define ICR_ASSERT	(1U << 14)
#define ICR_LEVEL	(1U << 15)
#define DM_NMI		(4U << 8)
#define DM_INIT		(5U << 8)
#define DM_STARTUP	(6U << 8)

static volatile u8 __iomem *lapic;
static u32 timer_ticks_per_sec;		/* LAPIC timer counts per second (divide by 16) */

static inline u32 lapic_read(u32 reg) { return mmio_read32(lapic + reg); }
static inline void lapic_write(u32 reg, u32 v) { mmio_write32(lapic + reg, v); }

void lapic_eoi(void)
{
	lapic_write(APIC_EOI, 0);
}

u32 lapic_id(void)
{
	return lapic_read(APIC_ID) >> 24;
}

static void apic_error(struct pt_regs *regs, void *arg)
{
	lapic_write(APIC_ESR, 0);
	printk("APIC error: ESR=%#x\n", lapic_read(APIC_ESR));
}

static void pic_disable(void)
{
	/* Remap the 8259s to vectors 0x20-0x2f (a stray interrupt is then not
	 * mistaken for an exception), then mask every line. */
	outb(0x20, 0x11); outb(0xa0, 0x11);
	outb(0x21, 0x20); outb(0xa1, 0x28);
	outb(0x21, 0x04); outb(0xa1, 0x02);
	outb(0x21, 0x01); outb(0xa1, 0x01);
	outb(0x21, 0xff); outb(0xa1, 0xff);
}

/* Per-CPU part: every CPU, the boot CPU included. */
void lapic_init_cpu(void)
{
	u64 base = rdmsr(MSR_APIC_BASE);

	wrmsr(MSR_APIC_BASE, base | (1 << 11));		/* global enable */
	lapic_write(APIC_TPR, 0);
	lapic_write(APIC_LVT_TIMER, LVT_MASKED);
	lapic_write(APIC_LVT_LINT0, LVT_MASKED);
	lapic_write(APIC_LVT_LINT1, smp_processor_id() == 0 ? DM_NMI : LVT_MASKED);
	lapic_write(APIC_LVT_ERROR, VEC_APIC_ERROR);
	lapic_write(APIC_ESR, 0);
	lapic_write(APIC_ESR, 0);
	lapic_write(APIC_SVR, 0x100 | VEC_SPURIOUS);	/* software enable */
	lapic_eoi();
	cpu_local()->apic_id = lapic_id();
}

void lapic_init_bsp(u64 phys)
{
	pic_disable();
	lapic = ioremap(phys, 4096);
	irq_set_handler(VEC_APIC_ERROR, apic_error, NULL, "apic-error");
	lapic_init_cpu();
	printk("lapic: id %u, version %#x\n", lapic_id(), lapic_read(APIC_VER) & 0xff);
}

static void icr_send(u32 apic_id, u32 lo)
{
	unsigned long flags = local_irq_save();

	while (lapic_read(APIC_ICR_LO) & ICR_PENDING)
		cpu_relax();
	lapic_write(APIC_ICR_HI, apic_id << 24);
	lapic_write(APIC_ICR_LO, lo);
	local_irq_restore(flags);
}

void lapic_send_ipi(u32 apic_id, u32 vector) { icr_send(apic_id, vector | ICR_ASSERT); }
void lapic_send_nmi(u32 apic_id) { icr_send(apic_id, DM_NMI | ICR_ASSERT); }
void lapic_send_init(u32 apic_id) { icr_send(apic_id, DM_INIT | ICR_ASSERT | ICR_LEVEL); }
void lapic_send_sipi(u32 apic_id, u32 page) { icr_send(apic_id, DM_STARTUP | (page & 0xff)); }

/*
 * Measure the LAPIC timer against the TSC, calibrated just before
 * (kernel/time/tsc.c): read the timer's count between two TSC reads,
 * keep the narrowest of a burst of such readings at the start and at the
 * end of a 20 ms run, and divide. A host that deschedules the vCPU only
 * widens a bracket, which the narrowest one leaves out; timing the run
 * from "start" to "PIT done" instead counted every such delay, and under
 * load gave up to 2.9 times QEMU's 62.5 MHz, so the tick came that much
 * too slowly. Done once on the boot CPU; all LAPIC timers run at the same
 * bus frequency.
 */
struct lapic_reading {
	u64 tsc, width;
	u32 count;
};

static struct lapic_reading lapic_narrowest_reading(void)
{
	struct lapic_reading best = { .width = ~0ULL };

	for (int i = 0; i < 64; i++) {
		u64 a = rdtsc();
		u32 c = lapic_read(APIC_TIMER_CUR);
		u64 b = rdtsc();

		if (b - a < best.width)
			best = (struct lapic_reading){ a + (b - a) / 2, b - a, c };
	}
	return best;
}

#define LAPIC_CAL_MS		20
#define LAPIC_CAL_ATTEMPTS	8
#define LAPIC_CAL_GOOD_PPM	200

void lapic_timer_calibrate(void)
{
	u64 best_rate = 0, best_ppm = ~0ULL;
	int tries = 0;

	while (tries < LAPIC_CAL_ATTEMPTS && best_ppm > LAPIC_CAL_GOOD_PPM) {
		tries++;
		lapic_write(APIC_TIMER_DIV, 0x3);		/* divide by 16 */
		lapic_write(APIC_LVT_TIMER, LVT_MASKED);
		lapic_write(APIC_TIMER_INIT, 0xffffffff);
		struct lapic_reading head = lapic_narrowest_reading();
		while (rdtsc() - head.tsc < tsc_khz * LAPIC_CAL_MS)
			cpu_relax();
		struct lapic_reading tail = lapic_narrowest_reading();
		u64 cycles = tail.tsc - head.tsc, ppm;

		if (tail.count >= head.count)
			continue;			/* wrapped: a host delay of 68 s */
		ppm = (head.width + tail.width) / 2 * 1000000 / cycles;
		if (ppm < best_ppm) {
			best_ppm = ppm;
			best_rate = (u64)(head.count - tail.count) * tsc_khz * 1000 / cycles;
		}
	}
	lapic_write(APIC_TIMER_INIT, 0);
	if (!best_rate)
		panic("lapic: no timer reading in %d runs: cannot calibrate", tries);
	timer_ticks_per_sec = best_rate;
	printk("lapic: timer %u.%03u MHz (bus/16), %u counts per tick at HZ=%d, within %lu ppm "
	       "(%d run%s)\n", timer_ticks_per_sec / 1000000, (timer_ticks_per_sec / 1000) % 1000,
	       timer_ticks_per_sec / HZ, HZ, (unsigned long)best_ppm, tries, tries == 1 ? "" : "s");
}

/* Periodic tick on this CPU's LAPIC timer. */
void lapic_timer_start(void)
{
	lapic_write(APIC_TIMER_DIV, 0x3);
	lapic_write(APIC_LVT_TIMER, VEC_LOCAL_TIMER | LVT_PERIODIC);
	lapic_write(APIC_TIMER_INIT, timer_ticks_per_sec / HZ);
}

/* CPU hotplug: no more ticks on this CPU until lapic_timer_start(). */
void lapic_timer_stop(void)
{
	lapic_write(APIC_LVT_TIMER, LVT_MASKED);
	lapic_write(APIC_TIMER_INIT, 0);
}
