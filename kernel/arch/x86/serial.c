/*
 * The 16550 UART on COM1: polled output, interrupt-driven input.
 * Output polls the line-status register, so it works before interrupts,
 * in panics and in NMI handlers. Input arrives on ISA IRQ 4, routed
 * through the IOAPIC (kernel/arch/x86/ioapic.c), into a small ring that
 * console_getc() drains.
 */
#include <printk.h>
#include <arch/io.h>
#include <arch/irq.h>
#include <spinlock.h>
#include <barrier.h>
#include <upcalls.h>

#define COM1		0x3f8
#define UART_THR	0	/* transmit holding (write) */
#define UART_RBR	0	/* receive buffer (read) */
#define UART_IER	1
#define UART_FCR	2
#define UART_LCR	3
#define UART_MCR	4
#define UART_LSR	5
#define LSR_DR		0x01
#define LSR_THRE	0x20

#define RX_RING		256

static volatile char rx_ring[RX_RING];
static volatile unsigned int rx_head, rx_tail;
static DEFINE_SPINLOCK(rx_lock);
unsigned long serial_rx_irqs;

void serial_init(void)
{
	outb(COM1 + UART_IER, 0x00);
	outb(COM1 + UART_LCR, 0x80);	/* DLAB: set the divisor */
	outb(COM1 + 0, 1);		/* 115200 baud */
	outb(COM1 + 1, 0);
	outb(COM1 + UART_LCR, 0x03);	/* 8N1 */
	outb(COM1 + UART_FCR, 0xc7);	/* FIFOs on, cleared, 14-byte threshold */
	outb(COM1 + UART_MCR, 0x0b);	/* DTR, RTS, OUT2 (OUT2 gates the IRQ line) */
}

/*
 * Wait for the transmitter before each byte, however long it takes: if
 * the host side is slow to drain (QEMU's I/O thread starved on a loaded
 * host), a byte written anyway lands in a full FIFO and QEMU's 16550
 * drops the oldest, garbling the console that tests parse. Without a
 * UART the port reads 0xff, THRE included, so this never waits; the
 * bound (minutes under TCG) only keeps a wedged UART from hanging us.
 */
void serial_putc(char c)
{
	for (unsigned long i = 0; i < (1UL << 32) && !(inb(COM1 + UART_LSR) & LSR_THRE); i++)
		cpu_relax();
	outb(COM1 + UART_THR, c);
}

static void serial_irq(struct pt_regs *regs, void *arg)
{
	unsigned long flags = spin_lock_irqsave(&rx_lock);

	serial_rx_irqs++;
	while (inb(COM1 + UART_LSR) & LSR_DR) {
		char c = inb(COM1 + UART_RBR);
		unsigned int next = (rx_head + 1) % RX_RING;

		if (console_sysrq(c))		/* Ctrl-T: kernel/core/sysrq.c */
			continue;
		if (next != rx_tail) {		/* full: drop, never block */
			rx_ring[rx_head] = c;
			rx_head = next;
		}
	}
	spin_unlock_irqrestore(&rx_lock, flags);
	console_input_notify();
}

int console_getc(void)
{
	int c = -1;
	unsigned long flags = spin_lock_irqsave(&rx_lock);

	if (rx_tail != rx_head) {
		c = (unsigned char)rx_ring[rx_tail];
		rx_tail = (rx_tail + 1) % RX_RING;
	}
	spin_unlock_irqrestore(&rx_lock, flags);
	return c;
}

void serial_enable_rx_irq(void)
{
	irq_request_isa(4, serial_irq, NULL, "serial");
	outb(COM1 + UART_IER, 0x01);	/* interrupt on received data */
}
