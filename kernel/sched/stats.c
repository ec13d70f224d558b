/*
 * Per-CPU scheduler statistics (struct sched_stats in include/sched.h):
 * switches (voluntary and involuntary), preemptions, wake-ups, migrations
 * and idle time. sched_show_stats() prints them; gdb reads
 * runqueues.stats per CPU (tools/gdb/sched.py: qs-sched-stats).
 */
#include "sched.h"
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
