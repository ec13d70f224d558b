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
	int round = atomic_read(&s->round);

	c2c_cell_pause(id);
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
