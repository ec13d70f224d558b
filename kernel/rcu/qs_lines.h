/*
 * Counting the cache lines a quiescent state writes (qs_lines.c).
 *
 * Seed 000 section 6 and Table 2 count the memory references each design
 * adds; Tree RCU exists because rcu-ltimer's one bitmap and one lock are
 * written by every CPU at every quiescent state, so the lines holding them
 * bounce between all the CPUs. These annotations let a run count, per
 * design, which 64-byte lines the quiescent-state path writes: each store
 * the path makes to RCU state, and each lock it takes (an acquisition
 * writes the lock's line), is marked where it happens:
 *
 *   qs_write_private(&rdp->field)   this CPU's own data (per-CPU)
 *   qs_write_shared(&global)        data other CPUs write or read too
 *   qs_lock_shared(&lock)           a lock just acquired
 *   qs_report_done(n)               the report of n CPUs' quiescent
 *                                   states is complete: close the set
 *
 * A CPU's marks gather, as a set of distinct lines, until the next report
 * it makes; the report closes the set and counts it. So the writes a CPU
 * makes to note a quiescent state (a counter bumped at every context
 * switch) are counted once per report, however often they happen. A
 * report made for other CPUs (Tree RCU's kthread for idle CPUs) counts
 * the reporter's writes against the n quiescent states it reported.
 * Not counted: what every variant shares in this kernel (gp_sequence.c,
 * stats.c, the trace buffers) and the softirq, tasklet and timer
 * machinery that runs the path.
 *
 * Off (the default), each mark is one load and one predictable branch.
 */
#ifndef _KERNEL_RCU_QS_LINES_H
#define _KERNEL_RCU_QS_LINES_H

#include <compiler.h>
#include <types.h>

extern int qs_lines_on;

void qs_lines_note(const volatile void *addr, bool shared);
void qs_lines_report(unsigned int nr_qs);

static __always_inline void qs_write_private(const volatile void *addr)
{
	if (unlikely(READ_ONCE(qs_lines_on)))
		qs_lines_note(addr, false);
}

static __always_inline void qs_write_shared(const volatile void *addr)
{
	if (unlikely(READ_ONCE(qs_lines_on)))
		qs_lines_note(addr, true);
}

/* For a mark whose class must be worked out first: only when counting. */
static __always_inline bool qs_lines_counting(void)
{
	return unlikely(READ_ONCE(qs_lines_on));
}

/* Taking a lock writes its line, whoever held it last. */
#define qs_lock_shared(lock)	qs_write_shared(lock)

static __always_inline void qs_report_done(unsigned int nr_qs)
{
	if (unlikely(READ_ONCE(qs_lines_on)))
		qs_lines_report(nr_qs);
}

#endif
