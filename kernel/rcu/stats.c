/*
 * RCU statistics, the same for every variant: a grace-period latency
 * histogram and the stall warnings given; per CPU, the callbacks queued
 * and invoked, the quiescent states the variant counted, the longest
 * callback list it reported and the largest batch invoked at once.
 *
 * They only count. No grace period waits on them, and the quiescent
 * states counted here are not reports to anyone: the grace-period counts
 * that the polled API rests on are gp_sequence.c's. Variants feed them
 * with rcu_internal.h's rcu_stats_*(); rcu_show_stats() prints them
 * (Ctrl-T, include/sysrq.h); tests read a few through include/rcu_test.h;
 * gdb reads rcu_gp_stats and rcu_cpu_stats by name
 * (tools/gdb/rcu_common.py).
 */
#include "rcu_internal.h"
#include <sysrq.h>
#include <smp.h>
#include <printk.h>
#include <string.h>
#include <arch/cpu.h>

DEFINE_PER_CPU(struct rcu_cpu_stats, rcu_cpu_stats);
struct rcu_gp_stats rcu_gp_stats;

/* From rcu_gp_end(): how long the grace period took. */
void rcu_stats_gp_latency(u64 ns)
{
	unsigned long us = ns / 1000;
	int b = 0;

	while (b < RCU_GP_HIST_BUCKETS - 1 && us >= (1UL << b))
		b++;
	rcu_gp_stats.hist[b]++;
	rcu_gp_stats.total_ns += ns;
	if (ns > rcu_gp_stats.max_ns)
		rcu_gp_stats.max_ns = ns;
}

void rcu_stats_list_len(unsigned long len)
{
	struct rcu_cpu_stats *s = this_cpu_ptr(&rcu_cpu_stats);

	if (len > s->longest_list)
		s->longest_list = len;
}

void rcu_stats_batch(unsigned long n)
{
	struct rcu_cpu_stats *s = this_cpu_ptr(&rcu_cpu_stats);

	if (n > s->max_batch)
		s->max_batch = n;
	rcu_trace_batch(n, 0);
}

unsigned long rcu_pending_callbacks(void)
{
	long queued = 0, invoked = 0;
	unsigned int cpu;

	/* Every CPU that ever ran: an offline CPU's counts still hold the
	 * callbacks it queued and invoked (CPU hotplug moved them on). */
	for_each_possible_cpu(cpu) {
		queued += READ_ONCE(per_cpu(rcu_cpu_stats, cpu).queued);
		invoked += READ_ONCE(per_cpu(rcu_cpu_stats, cpu).invoked);
	}
	return queued > invoked ? queued - invoked : 0;
}

u64 rcu_gp_total_ns(void)
{
	return READ_ONCE(rcu_gp_stats.total_ns);
}

unsigned long rcu_stall_warnings(void)
{
	return READ_ONCE(rcu_gp_stats.stalls);
}

/* For user space (kernel/proc): one CPU's callback counts. */
void rcu_cpu_callback_counts(unsigned int cpu, unsigned long *queued, unsigned long *invoked)
{
	*queued = READ_ONCE(per_cpu(rcu_cpu_stats, cpu).queued);
	*invoked = READ_ONCE(per_cpu(rcu_cpu_stats, cpu).invoked);
}

void rcu_show_stats(void)
{
	char line[300];
	unsigned int cpu;
	int n;
	unsigned long done = rcu_gp_completed();

	printk("rcu: %s: grace periods started %lu completed %lu, mean %lu us, max %lu us, stalls %lu\n",
	       rcu_variant_name(), rcu_gp_started(), done,
	       done ? (unsigned long)(rcu_gp_stats.total_ns / done / 1000) : 0,
	       (unsigned long)(rcu_gp_stats.max_ns / 1000), rcu_gp_stats.stalls);
	n = snprintf(line, sizeof(line), "rcu: grace-period latency (us, <2^i):");
	for (int b = 0; b < RCU_GP_HIST_BUCKETS; b++)
		if (rcu_gp_stats.hist[b])
			n += snprintf(line + n, sizeof(line) - n, " <%lu:%lu", 1UL << b,
				      rcu_gp_stats.hist[b]);
	printk("%s\n", line);
	for_each_possible_cpu(cpu) {
		struct rcu_cpu_stats *s = &per_cpu(rcu_cpu_stats, cpu);
		printk("rcu: cpu%u%s: queued %lu invoked %lu qs %lu longest list %lu largest batch %lu\n",
		       cpu, cpu_online(cpu) ? "" : " (offline)", s->queued, s->invoked, s->qs, s->longest_list, s->max_batch);
	}
}

/* Ctrl-T (include/sysrq.h): RCU's part, SRCU's domains included. */
static void rcu_sysrq_show(void)
{
	rcu_show_stats();
	srcu_show_domains();
}

static struct sysrq_report rcu_sysrq = { .name = "rcu", .show = rcu_sysrq_show };

void rcu_stats_init(void)
{
	sysrq_register_report(&rcu_sysrq);
}
