/*
 * RCU statistics, the same for every variant: grace periods started and
 * completed with a latency histogram, callbacks queued and invoked per CPU,
 * the longest callback list each CPU reported. Variants feed them through
 * rcu_internal.h; rcu_show_stats() prints them; gdb reads them by name
 * (tools/gdb/rcu.py).
 *
 * rcu_gp_begin() and rcu_gp_end() are also where to stop in gdb to watch a
 * grace period start and end: `break rcu_gp_begin`, `break rcu_gp_end`.
 */
#include "rcu_internal.h"
#include <time.h>
#include <smp.h>
#include <printk.h>
#include <string.h>
#include <arch/cpu.h>

DEFINE_PER_CPU(struct rcu_cpu_stats, rcu_cpu_stats);
struct rcu_gp_stats rcu_gp_stats;
/* The grace period being timed; the last one gdb saw start and end. */
volatile unsigned long rcu_gp_current = ~0UL, rcu_gp_last_ended = ~0UL;

/*
 * A grace period's start is told twice. rcu_gp_count_start() counts it
 * (rcu_gp_started()) at the instant it begins, before the variant marks,
 * snapshots or asks any CPU, with a full barrier: so a reader that still
 * reads the old count is one this grace period must wait for, which
 * rcutorture checks on every read (torture_readers.c) and the polled API
 * relies on (update.c). rcu_gp_begin() comes once the variant has set the
 * grace period up (its CPUs marked): where gdb's qs-rcu-gp stops to show
 * it, and where its latency starts.
 */
void rcu_gp_count_start(void)
{
	WRITE_ONCE(rcu_gp_stats.started, rcu_gp_stats.started + 1);
	smp_mb();	/* the start counted before any CPU is looked at */
}

void __noinline rcu_gp_begin(unsigned long gpnum)
{
	rcu_gp_stats.last_start_ns = ktime_get_ns();
	WRITE_ONCE(rcu_gp_current, gpnum);
}

void __noinline rcu_gp_end(unsigned long gpnum)
{
	u64 ns = ktime_get_ns() - rcu_gp_stats.last_start_ns;
	unsigned long us = ns / 1000;
	int b = 0;

	while (b < RCU_GP_HIST_BUCKETS - 1 && us >= (1UL << b))
		b++;
	rcu_gp_stats.hist[b]++;
	rcu_gp_stats.total_ns += ns;
	if (ns > rcu_gp_stats.max_ns)
		rcu_gp_stats.max_ns = ns;
	WRITE_ONCE(rcu_gp_last_ended, gpnum);
	smp_mb();	/* everything the grace period covers, before "completed" */
	WRITE_ONCE(rcu_gp_stats.completed, rcu_gp_stats.completed + 1);
}

unsigned long rcu_gp_started(void)
{
	return READ_ONCE(rcu_gp_stats.started);
}

unsigned long rcu_gp_completed(void)
{
	return READ_ONCE(rcu_gp_stats.completed);
}

bool rcu_gp_in_progress(void)
{
	return rcu_gp_started() != rcu_gp_completed();
}

void rcu_note_list_len(unsigned long len)
{
	struct rcu_cpu_stats *s = this_cpu_ptr(&rcu_cpu_stats);

	if (len > s->longest_list)
		s->longest_list = len;
}

/* Seed 000's rcu_invoke_callbacks(): unlink each head, then call it. */
/*
 * Counted one at a time, so that rcu_pending_callbacks() (queued - invoked)
 * does not lag a whole batch behind while a long batch runs. Callbacks run
 * in softirq or process context on this CPU: the counter stays this CPU's.
 */
void rcu_invoke_callbacks(struct list_head *list)
{
	struct rcu_cpu_stats *s = this_cpu_ptr(&rcu_cpu_stats);
	unsigned long n = 0;

	while (!list_empty(list)) {
		struct rcu_head *h = container_of(list->next, struct rcu_head, list);

		list_del(&h->list);
		h->func(h->arg);
		WRITE_ONCE(s->invoked, s->invoked + 1);
		n++;
	}
	if (n > s->max_batch)
		s->max_batch = n;
}

unsigned long rcu_pending_callbacks(void)
{
	long queued = 0, invoked = 0;
	unsigned int cpu;

	for_each_online_cpu(cpu) {
		queued += READ_ONCE(per_cpu(rcu_cpu_stats, cpu).queued);
		invoked += READ_ONCE(per_cpu(rcu_cpu_stats, cpu).invoked);
	}
	return queued > invoked ? queued - invoked : 0;
}

/* For user space (kernel/user): one CPU's callback counts. */
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
	unsigned long done = rcu_gp_stats.completed;

	printk("rcu: %s: grace periods started %lu completed %lu, mean %lu us, max %lu us, stalls %lu\n",
	       rcu_variant_name(), rcu_gp_stats.started, done,
	       done ? (unsigned long)(rcu_gp_stats.total_ns / done / 1000) : 0,
	       (unsigned long)(rcu_gp_stats.max_ns / 1000), rcu_gp_stats.stalls);
	n = snprintf(line, sizeof(line), "rcu: grace-period latency (us, <2^i):");
	for (int b = 0; b < RCU_GP_HIST_BUCKETS; b++)
		if (rcu_gp_stats.hist[b])
			n += snprintf(line + n, sizeof(line) - n, " <%lu:%lu", 1UL << b,
				      rcu_gp_stats.hist[b]);
	printk("%s\n", line);
	for_each_online_cpu(cpu) {
		struct rcu_cpu_stats *s = &per_cpu(rcu_cpu_stats, cpu);
		printk("rcu: cpu%u: queued %lu invoked %lu qs %lu longest list %lu largest batch %lu\n",
		       cpu, s->queued, s->invoked, s->qs, s->longest_list, s->max_batch);
	}
}

/*
 * One callback at a time, for a caller that decides after each one
 * whether to go on (the realtime options: seed 003 Figures 4 and 14).
 */
void rcu_invoke_one(struct list_head *list)
{
	struct rcu_cpu_stats *s = this_cpu_ptr(&rcu_cpu_stats);
	struct rcu_head *h = container_of(list->next, struct rcu_head, list);

	list_del(&h->list);
	h->func(h->arg);
	WRITE_ONCE(s->invoked, s->invoked + 1);
}

void rcu_note_batch(unsigned long n)
{
	struct rcu_cpu_stats *s = this_cpu_ptr(&rcu_cpu_stats);

	if (n > s->max_batch)
		s->max_batch = n;
}
