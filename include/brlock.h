/*
 * The big-reader lock (brlock) of Linux 2.4, which seed 001's hash-table
 * benchmark (Figures 1, 4, 5) sets against RCU.
 *
 * Each CPU has its own reader-writer lock in its own cache line. A reader
 * takes only its CPU's lock, so readers on different CPUs share no cache
 * line and scale; a writer must take every CPU's lock, in CPU order, so
 * writes cost O(NR_CPUS). Readers still execute atomic instructions, which
 * RCU readers do not.
 */
#ifndef _BRLOCK_H
#define _BRLOCK_H

#include <rwlock.h>
#include <percpu.h>

struct brlock {
	rwlock_t cpu_lock[CONFIG_NR_CPUS];	/* rwlock_t is cache-line aligned */
};

#define DEFINE_BRLOCK(x)	struct brlock x

/* The reader remembers which CPU's lock it took: it may not migrate
 * (preemption is off) but be explicit anyway. */
static __always_inline unsigned int br_read_lock(struct brlock *b)
{
	unsigned int cpu;

	preempt_disable();
	cpu = smp_processor_id();
	arch_read_lock(&b->cpu_lock[cpu]);
	return cpu;
}

static __always_inline void br_read_unlock(struct brlock *b, unsigned int cpu)
{
	arch_read_unlock(&b->cpu_lock[cpu]);
	preempt_enable();
}

void br_write_lock(struct brlock *b);
void br_write_unlock(struct brlock *b);
void brlock_init(struct brlock *b);

#endif
