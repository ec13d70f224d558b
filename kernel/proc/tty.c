/*
 * The console as a terminal for user programs: fd 0 reads lines from the
 * serial port, fds 1 and 2 write to it.
 *
 * Reading is line at a time, as a Unix terminal in canonical mode: typed
 * characters are echoed, backspace erases, Enter (CR or LF) ends the line,
 * Ctrl-D on an empty line is end of file. The serial receive interrupt
 * fills a ring (kernel/arch/x86/serial.c) and wakes readers through
 * console_input_notify(); one reader at a time owns the line being edited.
 */
#include "proc.h"
#include <printk.h>
#include <mutex.h>
#include <string.h>

#define LINE_MAX	256
#define CHUNK		256

static DECLARE_WAIT_QUEUE_HEAD(tty_wait);
static DEFINE_MUTEX(tty_read_lock);
static char line[LINE_MAX];
static size_t line_len;

/* From the serial receive interrupt (include/upcalls.h). */
void console_input_notify(void)
{
	wake_up_all(&tty_wait);
}

/* The next typed character; sleeps until there is one. -EINTR if interrupted. */
static int tty_getc(void)
{
	for (;;) {
		DEFINE_WAIT(w);
		int c = console_getc();

		if (c >= 0)
			return c;
		prepare_to_wait(&tty_wait, &w, TASK_INTERRUPTIBLE);
		c = console_getc();
		if (c < 0 && !signal_pending(current))
			schedule();
		finish_wait(&tty_wait, &w);
		if (c >= 0)
			return c;
		if (signal_pending(current))
			return -EINTR;
	}
}

/* Edit a line until Enter or Ctrl-D; returns its length (with the '\n'). */
static long tty_edit_line(void)
{
	line_len = 0;
	for (;;) {
		int c = tty_getc();

		if (c < 0)
			return c;
		if (c == '\r' || c == '\n') {
			line[line_len++] = '\n';
			printk_raw("\n");
			return line_len;
		}
		if (c == 4) {			/* Ctrl-D */
			if (!line_len)
				return 0;
			continue;
		}
		if (c == 0x7f || c == '\b') {
			if (line_len) {
				line_len--;
				printk_raw("\b \b");
			}
			continue;
		}
		if (c < ' ' || line_len >= LINE_MAX - 1)
			continue;
		line[line_len++] = c;
		printk_raw("%c", c);
	}
}

long tty_read(char __user *buf, size_t n)
{
	long len;

	if (!n)
		return 0;
	if (!access_ok(buf, n))
		return -EFAULT;
	mutex_lock(&tty_read_lock);
	len = tty_edit_line();
	if (len > 0) {
		if ((size_t)len > n)
			len = n;		/* the rest of the line is dropped */
		if (copy_to_user(buf, line, len))
			len = -EFAULT;
	}
	mutex_unlock(&tty_read_lock);
	return len;
}

long tty_write(const char __user *buf, size_t n)
{
	char chunk[CHUNK];
	size_t done = 0;

	while (done < n) {
		size_t c = MIN(n - done, sizeof(chunk));

		if (copy_from_user(chunk, buf + done, c))
			return done ? (long)done : -EFAULT;
		printk_raw("%.*s", (int)c, chunk);
		done += c;
	}
	return done;
}
