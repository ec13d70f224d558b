/*
 * Console input: the serial port's receive interrupt, routed through the
 * IOAPIC, fills the ring that console_getc() drains. KTEST_MANUAL because
 * it needs someone to type: the host-side test writes a line to QEMU's
 * serial input after it sees the prompt below.
 */
#include <ktest.h>
#include <printk.h>
#include <time.h>
#include <arch/cpu.h>
#include <sched.h>
#include <compiler.h>

extern unsigned long serial_rx_irqs;

KTEST_MANUAL(console_read_line)
{
	char line[80];
	size_t n = 0;
	u64 deadline = ktime_get_ns() + 20 * NSEC_PER_SEC;
	unsigned long irqs0 = serial_rx_irqs;

	printk_raw("console: type a line and press enter\n");
	while (ktime_get_ns() < deadline) {
		int c = console_getc();
		if (c < 0) {
			safe_halt();		/* the receive interrupt wakes us */
			continue;
		}
		if (c == '\r' || c == '\n') {
			if (n)
				break;
			continue;
		}
		if (n < sizeof(line) - 1)
			line[n++] = c;
	}
	line[n] = 0;
	printk_raw("console: got '%s' (%lu receive interrupts)\n", line, serial_rx_irqs - irqs0);
	KT_EXPECT(t, n > 0, "no input arrived within 20 s");
	KT_EXPECT(t, serial_rx_irqs > irqs0, "input arrived without a receive interrupt");
}

/* Ctrl-T on the console prints the statistics (kernel/core/sysrq.c). */
KTEST_MANUAL(console_sysrq_stats)
{
	extern unsigned long sysrq_dumps;
	unsigned long d0 = READ_ONCE(sysrq_dumps);
	u64 deadline = ktime_get_ns() + 20 * NSEC_PER_SEC;

	printk_raw("console: press Ctrl-T\n");
	while (READ_ONCE(sysrq_dumps) == d0 && ktime_get_ns() < deadline)
		msleep(10);
	KT_EXPECT(t, READ_ONCE(sysrq_dumps) > d0, "no statistics dump within 20 s of the prompt");
}
