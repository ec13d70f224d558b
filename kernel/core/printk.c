/*
 * printk: format, prefix, then emit the whole message under one lock.
 *
 * The console lock is a raw ticket lock taken with interrupts off. Two
 * situations would deadlock on it: an NMI (or exception) arriving on the
 * CPU that holds it, and a panic on one CPU while another CPU holds it
 * and has been stopped. The owner check handles the first (the nested
 * printk goes ahead without the lock), printk_bust_lock() the second.
 */
#include <printk.h>
#include <string.h>
#include <spinlock.h>
#include <percpu.h>
#include <time.h>
#include <tick.h>

char log_buf[LOG_BUF_SIZE];
unsigned long log_len;

static spinlock_t console_lock = SPINLOCK_INIT("console_lock");
static volatile int console_owner = -1;
static volatile bool lock_busted;

void printk_bust_lock(void)
{
	lock_busted = true;
}

/* make replay STOP='s park (kernel/time/replay_stop.c) writes one line
 * past the lock, then gives it back to whoever held it. */
void printk_unbust_lock(void)
{
	lock_busted = false;
}

static void emit(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			serial_putc('\r');
		serial_putc(s[i]);
		log_buf[log_len++ % LOG_BUF_SIZE] = s[i];
	}
}

static void emit_locked(const char *s, size_t n)
{
	unsigned long flags = local_irq_save();
	int me = smp_processor_id();
	bool locked = false;

	if (console_owner != me && !lock_busted) {
		arch_spin_lock(&console_lock);
		console_owner = me;
		locked = true;
	}
	emit(s, n);
	if (locked) {
		console_owner = -1;
		arch_spin_unlock(&console_lock);
	}
	local_irq_restore(flags);
}

/* Format the message, then put the prefix in front of every line. */
int vprintk(const char *fmt, va_list ap)
{
	char msg[512], out[768];
	u64 ns = ktime_get_ns();
	size_t o = 0;
	int n = vsnprintf(msg, sizeof(msg), fmt, ap);
	bool at_line_start = true;

	replay_stop_check(ns);		/* make replay STOP=T (include/tick.h) */
	for (const char *p = msg; *p && o < sizeof(out) - 40; p++) {
		if (at_line_start) {
			o += snprintf(out + o, sizeof(out) - o, "[%5lu.%06lu] cpu%u: ",
				      (unsigned long)(ns / 1000000000),
				      (unsigned long)(ns % 1000000000) / 1000,
				      smp_processor_id());
			at_line_start = false;
		}
		out[o++] = *p;
		if (*p == '\n')
			at_line_start = true;
	}
	if (o && out[o - 1] != '\n' && o < sizeof(out))
		out[o++] = '\n';
	emit_locked(out, o);
	return n;
}

int printk(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vprintk(fmt, ap);
	va_end(ap);
	return n;
}

int printk_raw(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	emit_locked(msg, strnlen(msg, sizeof(msg)));
	return n;
}
