/*
 * What the in-kernel tests and benchmarks (kernel/test) read of RCU beyond
 * its public API (include/rcupdate.h): counters and state that only a test
 * has reason to look at. kernel/rcu/rcu_internal.h, what the variants and
 * the rest of kernel/rcu share, stays private to kernel/rcu; the realtime
 * options' run-time switches are include/rcu_rt.h.
 */
#ifndef _RCU_TEST_H
#define _RCU_TEST_H

#include <rcupdate.h>
#include <cpumask.h>
#include <types.h>

/* Callbacks queued and not yet invoked, all CPUs (kernel/rcu/stats.c). */
unsigned long rcu_pending_callbacks(void);
/* Time spent in grace periods since boot, rcu_gp_begin() to rcu_gp_end(). */
u64 rcu_gp_total_ns(void);

/* Stall warnings (kernel/rcu/stall.c): the timeout, how many have been
 * given since boot, and the CPUs the last one named. */
unsigned long rcu_stall_timeout_ms(void);
unsigned long rcu_stall_warnings(void);
extern cpumask_t rcu_last_stall_mask;

/*
 * The per-CPU counter that other CPUs read to deduce this CPU's quiescent
 * states, in the variants that poll remote counters (poll and
 * poll-percpu: seed 000 Figure 19's RCU_quiescent); NULL in the others.
 * kernel/test/test_rcu_litmus.c runs the store-buffering litmus test
 * against it.
 */
long *rcu_variant_remote_qs_counter(unsigned int cpu);

/*
 * Cache lines written per quiescent-state report (kernel/rcu/qs_lines.c):
 * switched on and off at run time; the totals since it was last switched
 * on, summed over the CPUs (max_* the largest of one report).
 */
struct qs_lines_totals {
	unsigned long reports;		/* reports closed */
	unsigned long qs;		/* quiescent states they reported */
	unsigned long private_lines;	/* distinct per-CPU lines, summed over reports */
	unsigned long shared_lines;	/* distinct shared lines, summed over reports */
	unsigned long max_lines;	/* most lines one report wrote */
	unsigned long max_shared;	/* most shared lines one report wrote */
	unsigned long overflows;	/* marks past the set's size (not counted) */
	unsigned long shared_lines_seen;	/* distinct shared lines written */
	unsigned long max_writers;	/* most CPUs that wrote one in one grace period */
};
void qs_lines_enable(bool on);
void qs_lines_read(struct qs_lines_totals *t);
/* One marked line: its address, the reports that wrote it, by which CPUs. */
struct qs_lines_line {
	unsigned long addr;
	unsigned long reports;
	unsigned long writers;		/* a bit per CPU */
	bool shared;
};
bool qs_lines_line(unsigned int i, struct qs_lines_line *l);

#endif
