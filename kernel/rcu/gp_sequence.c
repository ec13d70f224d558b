/*
 * The grace-period sequence, the same for every variant: each variant
 * reports here when each of its grace periods starts and ends, and the
 * rest of RCU reads the counts back.
 *
 *   rcu_gp_started()    grace periods begun since boot
 *   rcu_gp_completed()  grace periods ended since boot
 *
 * Every variant has at most one grace period in flight, so started is
 * completed or completed + 1. The polled API (update.c: a cookie is
 * started + 1, and it is done when completed reaches it) and rcutorture's
 * grace-period check (torture_readers.c: a grace period counted as
 * started after a reader began must not complete before the reader ends)
 * rest on two orders, each kept by a full barrier:
 *   - rcu_gp_count_start() counts the start the instant the grace period
 *     begins, before the variant marks, snapshots or asks any CPU: a
 *     reader that still reads the old count is one this grace period
 *     waits for;
 *   - rcu_gp_end() counts the end after everything the grace period
 *     covers.
 * rcu_gp_begin() comes between, once the variant has set the grace period
 * up (its CPUs marked): where gdb's qs-rcu-gp stops to show it (`break
 * rcu_gp_begin`, `break rcu_gp_end`), and where its latency (stats.c) and
 * its age for stall warnings (stall.c) start.
 */
#include "rcu_internal.h"
#include <time.h>
#include <trace.h>

struct rcu_gp_seq rcu_gp_seq;
/* The last grace period begun and the last ended, for gdb (~0UL: none yet). */
volatile unsigned long rcu_gp_current = ~0UL, rcu_gp_last_ended = ~0UL;

void rcu_gp_count_start(void)
{
	WRITE_ONCE(rcu_gp_seq.started, rcu_gp_seq.started + 1);
	smp_mb();	/* the start counted before any CPU is looked at */
	trace_event(TRACE_RCU, TR_GP_START, rcu_gp_seq.started, 0);
}

void __noinline rcu_gp_begin(unsigned long gpnum)
{
	WRITE_ONCE(rcu_gp_seq.start_ns, ktime_get_ns());	/* the stall check reads it on every CPU */
	WRITE_ONCE(rcu_gp_current, gpnum);
}

void __noinline rcu_gp_end(unsigned long gpnum)
{
	rcu_stats_gp_latency(ktime_get_ns() - rcu_gp_seq.start_ns);
	WRITE_ONCE(rcu_gp_last_ended, gpnum);
	smp_mb();	/* everything the grace period covers, before "completed" */
	trace_event(TRACE_RCU, TR_GP_END, rcu_gp_seq.completed + 1, gpnum);
	WRITE_ONCE(rcu_gp_seq.completed, rcu_gp_seq.completed + 1);
}

unsigned long rcu_gp_started(void)
{
	return READ_ONCE(rcu_gp_seq.started);
}

unsigned long rcu_gp_completed(void)
{
	return READ_ONCE(rcu_gp_seq.completed);
}

bool rcu_gp_in_progress(void)
{
	return rcu_gp_started() != rcu_gp_completed();
}
