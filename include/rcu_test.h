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

#endif
