/*
 * The console request key: Ctrl-T (like BSD's SIGINFO key) on the serial
 * console prints the kernel's statistics: per-CPU scheduler counts and the
 * task list, interrupts, softirqs, timers, memory and RCU. Useful while a
 * test or a lab runs, before there is a shell.
 *
 * The key arrives in the serial receive interrupt; the printing is done by
 * a work item in process context, because some of it takes locks that an
 * interrupt must not wait for.
 */
#include <printk.h>
#include <workqueue.h>
#include <sched.h>
#include <softirq.h>
#include <timer.h>
#include <kmalloc.h>
#include <mm.h>
#include <rcupdate.h>
#include <smp.h>
#include <arch/irq.h>

#define SYSRQ_KEY	0x14		/* Ctrl-T */

unsigned long sysrq_dumps;		/* statistics dumps completed (tests) */

static void show_timers(void)
{
	unsigned int cpu;

	for_each_online_cpu(cpu) {
		struct timer_stats ts;
		timer_get_stats(cpu, &ts);
		printk("timers cpu%u: pending %lu added %lu fired %lu cascades %lu\n", cpu,
		       ts.pending, ts.added, ts.fired, ts.cascades);
	}
}

static void sysrq_work_fn(struct work_struct *w)
{
	printk("---- statistics (Ctrl-T) ----\n");
	sched_show_stats();
	show_tasks();
	show_interrupts();
	softirq_show_stats();
	show_timers();
	kmalloc_show_stats();
	pmm_show();
	rcu_show_stats();
	printk("---- end of statistics ----\n");
	WRITE_ONCE(sysrq_dumps, sysrq_dumps + 1);
}

static DECLARE_WORK(sysrq_work, sysrq_work_fn);

bool console_sysrq(char c)
{
	if (c != SYSRQ_KEY)
		return false;
	if (system_wq)
		schedule_work(&sysrq_work);
	return true;
}
