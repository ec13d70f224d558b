/*
 * Per-CPU scheduler statistics (struct sched_stats in include/sched.h):
 * switches (voluntary and involuntary), preemptions, wake-ups, migrations
 * and idle time. sched_show_stats() prints them, and Ctrl-T with the
 * tasks, softirqs and timers (include/sysrq.h); gdb reads runqueues.stats
 * per CPU (tools/gdb/sched.py: qs-sched-stats).
 */
#include "sched.h"
#include <softirq.h>
#include <timer.h>
#include <sysrq.h>
#include <upcalls.h>
#include <workqueue.h>
#include <smp.h>
#include <time.h>
#include <printk.h>
#include <string.h>
#include <arch/cpu.h>

void sched_get_stats(unsigned int cpu, struct sched_stats *out)
{
	struct rq *rq = cpu_rq(cpu);
	unsigned long flags = spin_lock_irqsave(&rq->lock);
	u64 idle = rq->idle_tsc;

	*out = rq->stats;
	if (rq->curr == rq->idle)
		idle += rdtsc() - rq->idle_enter_tsc;	/* the open interval */
	spin_unlock_irqrestore(&rq->lock, flags);
	out->idle_ns = cycles_to_ns(idle);
}

void sched_show_stats(void)
{
	unsigned int cpu;
	struct sched_stats s;

	printk("sched: cpu  switches   voluntary involuntary  preempt(irq/en)  wakeups(remote)  migr(in/out/pulls)  idle_ms\n");
	for_each_online_cpu(cpu) {
		sched_get_stats(cpu, &s);
		printk("sched: %3u %9lu %11lu %11lu %8lu/%-8lu %8lu/%-8lu %6lu/%lu/%lu %9lu\n",
		       cpu, s.nr_switches, s.nvcsw, s.nivcsw, s.preempt_irq, s.preempt_enable,
		       s.wakeups, s.remote_wakeups, s.migrations_in, s.migrations_out,
		       s.balance_pulls, (unsigned long)(s.idle_ns / 1000000));
	}
}

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

/* Ctrl-T (include/sysrq.h): the scheduler's part. */
static void sched_sysrq_show(void)
{
	cpu_hotplug_show();
	sched_show_stats();
	show_tasks();
	softirq_show_stats();
	show_timers();
}

static struct sysrq_report sched_sysrq = { .name = "sched", .show = sched_sysrq_show };

void sched_register_sysrq(void)
{
	sysrq_register_report(&sched_sysrq);
}

/* The console keys' dumps, from a worker (include/upcalls.h). */
static void sysrq_work_fn(struct work_struct *w)
{
	sysrq_run();
}

static DECLARE_WORK(sysrq_work, sysrq_work_fn);

bool sysrq_schedule(void)
{
	if (!system_wq)
		return false;
	schedule_work(&sysrq_work);
	return true;
}
