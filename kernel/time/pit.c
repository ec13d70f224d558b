/*
 * The 8254 PIT, used only as a reference clock to calibrate the TSC and
 * the LAPIC timers at boot. Channel 2 is gated by port 0x61 bit 0 and its
 * output can be read at port 0x61 bit 5, so we can time an interval by
 * polling, with interrupts off and no IRQ routing.
 */
#include <time.h>
#include <arch/io.h>
#include <barrier.h>


void pit_wait_start(unsigned long us)
{
	u32 count = (u32)((u64)PIT_HZ * us / 1000000);
	u8 v = inb(0x61);

	outb(0x61, (v & ~0x02) | 0x01);	/* gate on, speaker off */
	outb(0x43, 0xb0);		/* channel 2, lobyte/hibyte, mode 0 */
	outb(0x42, count & 0xff);
	outb(0x42, count >> 8);
	/* Restart the count: mode 0 starts on the gate's rising edge. */
	v = inb(0x61);
	outb(0x61, v & ~0x01);
	outb(0x61, v | 0x01);
}

void pit_wait_end(void)
{
	while (!pit_out_high())
		cpu_relax();
}

/* OUT2 goes high at terminal count, and stays high until reprogrammed. */
bool pit_out_high(void)
{
	return inb(0x61) & 0x20;
}

/* Channel 2's count now: the latch command freezes both bytes at once. */
u32 pit_read_count(void)
{
	outb(0x43, 0x80);		/* counter latch, channel 2 */
	u8 lo = inb(0x42);
	u8 hi = inb(0x42);

	return lo | (u32)hi << 8;
}
