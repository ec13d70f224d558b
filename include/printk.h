/*
 * printk: kernel messages on the serial console and in the log buffer.
 *
 * Each call prints whole lines, each prefixed with the time since boot
 * and the CPU number: "[    1.234567] cpu2: message". A call formats into
 * a private buffer first and then emits under one lock, so lines from
 * different CPUs never interleave. It may be called from any context,
 * interrupts and NMI included (see kernel/core/printk.c for how NMI and
 * panic avoid deadlocking on the lock).
 */
#ifndef _PRINTK_H
#define _PRINTK_H

#include <compiler.h>

#define LOG_BUF_SHIFT	17			/* 128 KiB */
#define LOG_BUF_SIZE	(1UL << LOG_BUF_SHIFT)

__printf(1, 2) int printk(const char *fmt, ...);
int vprintk(const char *fmt, va_list ap);
/* No prefix: for output that a program parses as a whole (KTAP, JSON). */
__printf(1, 2) int printk_raw(const char *fmt, ...);

#define pr_info(...)	printk(__VA_ARGS__)
#define pr_warn(fmt, ...) printk("WARNING: " fmt, ##__VA_ARGS__)
#define pr_err(fmt, ...) printk("ERROR: " fmt, ##__VA_ARGS__)

/* Console input (the serial port's receive interrupt fills a ring). */
int console_getc(void);			/* -1 if nothing is waiting */

/*
 * The console's request key (kernel/core/sysrq.c): called from the serial
 * receive interrupt for every character; returns true if it consumed it.
 */
bool console_sysrq(char c);

/* For panic: stop honouring the console lock (another CPU may hold it). */
void printk_bust_lock(void);
void printk_unbust_lock(void);

/* The log, readable from gdb: log_buf[0 .. log_len % LOG_BUF_SIZE). */
extern char log_buf[LOG_BUF_SIZE];
extern unsigned long log_len;

void serial_init(void);
void serial_putc(char c);
void serial_enable_rx_irq(void);

#endif
