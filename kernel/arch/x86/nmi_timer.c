/*
 * A periodic NMI on every CPU, for sampling profilers (modules/nmiprof.c)
 * and for the NMI handler tests: the 8254 PIT's channel 0, free after
 * boot (kernel/time/pit.c uses channel 2), counts at `hz` in mode 2 (rate
 * generator), and the IOAPIC delivers its line, ISA IRQ 0, as an NMI to
 * all CPUs at once. An NMI arrives whatever the CPU is doing, interrupts
 * disabled included, so a profile sees the timer tick and every
 * interrupts-off region too, which the tick itself never could (the
 * reason oprofile used NMIs, seed 001).
 *
 * The local APIC timers stay the scheduler's ticks; the LAPIC's own NMI
 * modes would take them (LVT timer) or need a PMU (LVT perf counter),
 * which QEMU's TCG does not emulate.
 */
#include <nmi.h>
#include <smp.h>
#include <spinlock.h>
#include <errno.h>
#include <printk.h>
#include <arch/apic.h>
#include <arch/io.h>

#define PIT_HZ		1193182
#define PIT_CH0		0x40
#define PIT_CMD		0x43
#define NMI_TIMER_IRQ	0		/* ISA IRQ 0 (QEMU routes it to GSI 2) */

static DEFINE_SPINLOCK(nmi_timer_lock);
static unsigned int running_hz;
static volatile bool may_arrive;	/* from start until stop has drained */
static unsigned long unclaimed;

int nmi_timer_start(unsigned int hz)
{
	unsigned long flags;
	u32 div;
	int err;

	if (hz < 20 || hz > 10000)
		return -EINVAL;		/* 16-bit divisor; and 10 kHz is plenty */
	div = (PIT_HZ + hz / 2) / hz;
	flags = spin_lock_irqsave(&nmi_timer_lock);
	if (running_hz) {
		spin_unlock_irqrestore(&nmi_timer_lock, flags);
		return -EBUSY;
	}
	outb(PIT_CMD, 0x34);		/* channel 0, low then high byte, mode 2 */
	outb(PIT_CH0, div & 0xff);
	outb(PIT_CH0, div >> 8);
	WRITE_ONCE(may_arrive, true);
	err = ioapic_route_isa_nmi_all(NMI_TIMER_IRQ, true);
	if (err)
		WRITE_ONCE(may_arrive, false);
	else
		running_hz = hz;
	spin_unlock_irqrestore(&nmi_timer_lock, flags);
	if (!err)
		printk("nmi-timer: %u NMIs per second on every CPU (PIT channel 0, divisor %u)\n",
		       hz, div);
	return err;
}

static void nmi_timer_drain(void *arg)
{
}

void nmi_timer_stop(void)
{
	unsigned long flags = spin_lock_irqsave(&nmi_timer_lock);

	if (!running_hz) {
		spin_unlock_irqrestore(&nmi_timer_lock, flags);
		return;
	}
	ioapic_route_isa_nmi_all(NMI_TIMER_IRQ, false);
	outb(PIT_CMD, 0x30);		/* mode 0, no count: the output stays low */
	running_hz = 0;
	spin_unlock_irqrestore(&nmi_timer_lock, flags);
	/*
	 * An NMI already sent may still be pending on some CPU. A pending NMI
	 * is taken before any maskable interrupt, so once every CPU has run
	 * an IPI's function, none is left in flight.
	 */
	on_each_cpu(nmi_timer_drain, NULL, true);
	WRITE_ONCE(may_arrive, false);
}

unsigned int nmi_timer_hz(void)
{
	return READ_ONCE(running_hz);
}

bool nmi_timer_note_unclaimed(void)
{
	if (!READ_ONCE(may_arrive))
		return false;
	__atomic_fetch_add(&unclaimed, 1, __ATOMIC_RELAXED);
	return true;
}

unsigned long nmi_timer_unclaimed(void)
{
	return READ_ONCE(unclaimed);
}
