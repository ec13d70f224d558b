/*
 * The console request key: Ctrl-T (like BSD's SIGINFO key) on the serial
 * console prints the kernel's statistics: interrupts and memory, which
 * the core keeps, then what each subsystem above it registered
 * (include/sysrq.h: the scheduler its run queues, tasks, softirqs and
 * timers; RCU its grace periods and callbacks). Useful while a test or a
 * lab runs, before there is a shell.
 *
 * The key arrives in the serial receive interrupt; the printing is done by
 * a work item in process context, because some of it takes locks that an
 * interrupt must not wait for.
 *
 * Ctrl-Y dumps the trace buffers (include/trace.h) the same way, without
 * stopping them: the records of the moment, for tools/timeline.py.
 */
#include <sysrq.h>
#include <printk.h>
#include <workqueue.h>
#include <kmalloc.h>
#include <mm.h>
#include <trace.h>
#include <arch/irq.h>

#define SYSRQ_KEY	0x14		/* Ctrl-T */
#define TRACE_KEY	0x19		/* Ctrl-Y */

unsigned long sysrq_dumps;		/* statistics dumps completed (tests) */

/* Registered at boot, on the boot CPU, before the work queues run. */
static struct sysrq_report *sysrq_reports, **sysrq_tail = &sysrq_reports;

void sysrq_register_report(struct sysrq_report *r)
{
	r->next = NULL;
	*sysrq_tail = r;
	sysrq_tail = &r->next;
}

static void sysrq_work_fn(struct work_struct *w)
{
	printk("---- statistics (Ctrl-T) ----\n");
	show_interrupts();
	kmalloc_show_stats();
	pmm_show();
	for (struct sysrq_report *r = sysrq_reports; r; r = r->next)
		r->show();
	printk("---- end of statistics ----\n");
	WRITE_ONCE(sysrq_dumps, sysrq_dumps + 1);
}

static DECLARE_WORK(sysrq_work, sysrq_work_fn);

static void trace_key_fn(struct work_struct *w)
{
	trace_dump();
}

static DECLARE_WORK(trace_key_work, trace_key_fn);

bool console_sysrq(char c)
{
	if (c == TRACE_KEY) {
		if (system_wq)
			schedule_work(&trace_key_work);
		return true;
	}
	if (c != SYSRQ_KEY)
		return false;
	if (system_wq)
		schedule_work(&sysrq_work);
	return true;
}
