/*
 * The guest's side of the coherence plugin's channel (include/c2c_mark.h).
 */
#include <c2c_mark.h>
#include <cmdline.h>
#include <string.h>
#include <atomic.h>
#include <arch/cpu.h>
#include <barrier.h>
#include <percpu.h>
#include <syscall.h>
#include <uaccess.h>
#include <errno.h>
#include <uapi/c2c.h>

unsigned long c2c_enabled;
CMDLINE_ULONG("c2c", c2c_enabled, 0, 1,
	      "c2c=1: mark benchmark cells and kmalloc for the coherence plugin (default 0; make c2c)");

/*
 * The area the plugin watches: 257 byte addresses, on lines of their
 * own, so that the marks share no line with anything the plugin counts
 * (it does not count stores here; nothing loads them).
 */
volatile u8 c2c_mark_area[512] __aligned(512);

static atomic_t c2c_cells;
static DEFINE_PER_CPU(int, c2c_cell_open);

void c2c_step_wait(struct c2c_step *s, unsigned int id)
{
	int round;

	c2c_cell_pause(id);	/* before any look at the barrier's line */
	round = atomic_read(&s->round);
	if ((unsigned int)atomic_inc_return(&s->arrived) == s->threads) {
		atomic_set(&s->arrived, 0);
		atomic_inc(&s->round);
	} else {
		while (atomic_read(&s->round) == round)
			cpu_relax();
	}
	c2c_cell_resume(id);
}

bool c2c_in_cell(void)
{
	return this_cpu(c2c_cell_open);
}

unsigned int c2c_cell_id(void)
{
	return (unsigned int)atomic_inc_return(&c2c_cells) - 1;
}

void __c2c_mark(const char *fmt, ...)
{
	char buf[200];
	unsigned long flags;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(buf))
		n = sizeof(buf) - 1;
	/* one message at a time per CPU: the plugin assembles it per vCPU */
	flags = local_irq_save();
	for (int i = 0; i < n; i++)
		c2c_mark_area[(u8)buf[i]] = 0;
	c2c_mark_area[256] = 0;
	if (buf[0] == 'B' || buf[0] == 'R')
		this_cpu(c2c_cell_open) = 1;
	else if (buf[0] == 'E' || buf[0] == 'P')
		this_cpu(c2c_cell_open) = 0;
	local_irq_restore(flags);
}

/*
 * qs_c2c() (include/uapi/c2c.h): a user benchmark's cells. Why a system
 * call into the marks above rather than a marked instruction sequence the
 * plugin would recognise at any privilege level: interface version 1
 * shows the plugin a store's address but no register or value, so a user
 * sequence could carry the cell's number and label only by storing to an
 * address range of its own, which every process would have to map at the
 * same virtual address, and any program storing there by chance would
 * open cells. Through the kernel the marks are the ones the kernel's
 * benchmarks make, and user space can make only these five, not the
 * kmalloc log's. What it costs the measured loop: nothing inside it. A
 * cell opens at the begin mark's last store, after the call's entry, and
 * closes at the end mark's, before its exit; a step pauses the cell
 * before its barrier and resumes it after, so a round adds one system
 * call's entry and exit path to the cell's counts (private lines: the
 * caller's kernel stack and this CPU's data), not its wait.
 */
static struct c2c_step c2c_user_step;
static unsigned int c2c_user_steps __cacheline_aligned;	/* its threads, read-mostly */

static long sys_qs_c2c(struct pt_regs *r)
{
	unsigned long a = SYSCALL_ARG1(r), b = SYSCALL_ARG2(r);
	char label[QS_C2C_LABEL_MAX + 1];
	long n;

	if (!c2c_enabled)
		return -ENODEV;
	switch (SYSCALL_ARG0(r)) {
	case QS_C2C_CELL:
		return c2c_cell_id();
	case QS_C2C_STEPS:
		if (a < 1 || a > CONFIG_NR_CPUS)
			return -EINVAL;
		c2c_step_init(&c2c_user_step, a);
		WRITE_ONCE(c2c_user_steps, a);
		return 0;
	case QS_C2C_BEGIN:
		n = strncpy_from_user(label, (const char __user *)b, sizeof(label));
		if (n < 0)
			return n;
		if (n >= (long)sizeof(label))
			return -ENAMETOOLONG;
		for (long i = 0; i < n; i++)	/* the plugin's label ends at a newline */
			if (label[i] < ' ' || label[i] > '~')
				return -EINVAL;
		c2c_cell_begin((unsigned int)a, label);
		return 0;
	case QS_C2C_STEP:
		/* Not c2c_user_step.threads: that line is the barrier's, which
		 * the other CPUs write while this cell is still open. */
		if (!c2c_user_steps)
			return -EINVAL;
		c2c_step_wait(&c2c_user_step, (unsigned int)a);
		return 0;
	case QS_C2C_END:
		c2c_cell_end((unsigned int)a);
		return 0;
	default:
		return -EINVAL;
	}
}
SYSCALL_DEFINE(SYS_qs_c2c, sys_qs_c2c);
