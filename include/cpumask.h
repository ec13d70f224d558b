/* CPU masks: one bit per CPU, CONFIG_NR_CPUS bits. */
#ifndef _CPUMASK_H
#define _CPUMASK_H

#include <atomic.h>

#define CPUMASK_LONGS	((CONFIG_NR_CPUS + 63) / 64)

typedef struct cpumask {
	unsigned long bits[CPUMASK_LONGS];
} cpumask_t;

static inline void cpumask_set(unsigned cpu, cpumask_t *m) { set_bit(cpu, m->bits); }
static inline void cpumask_clear_cpu(unsigned cpu, cpumask_t *m) { clear_bit(cpu, m->bits); }
static inline bool cpumask_test(unsigned cpu, const cpumask_t *m) { return test_bit(cpu, m->bits); }
static inline bool cpumask_test_and_clear(unsigned cpu, cpumask_t *m)
{ return test_and_clear_bit(cpu, m->bits); }

static inline void cpumask_clear(cpumask_t *m)
{
	for (int i = 0; i < CPUMASK_LONGS; i++)
		WRITE_ONCE(m->bits[i], 0);
}

static inline void cpumask_copy(cpumask_t *d, const cpumask_t *s)
{
	for (int i = 0; i < CPUMASK_LONGS; i++)
		WRITE_ONCE(d->bits[i], READ_ONCE(s->bits[i]));
}

static inline bool cpumask_empty(const cpumask_t *m)
{
	for (int i = 0; i < CPUMASK_LONGS; i++)
		if (READ_ONCE(m->bits[i]))
			return false;
	return true;
}

/* Bits set in a word (no libgcc: __builtin_popcount would call it). */
static inline unsigned hweight64(u64 w)
{
	w = w - ((w >> 1) & 0x5555555555555555ULL);
	w = (w & 0x3333333333333333ULL) + ((w >> 2) & 0x3333333333333333ULL);
	w = (w + (w >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (w * 0x0101010101010101ULL) >> 56;
}

static inline unsigned cpumask_weight(const cpumask_t *m)
{
	unsigned n = 0;
	for (int i = 0; i < CPUMASK_LONGS; i++)
		n += hweight64(READ_ONCE(m->bits[i]));
	return n;
}

/* Next set bit at or after `cpu`, CONFIG_NR_CPUS if none. */
static inline unsigned cpumask_next(unsigned cpu, const cpumask_t *m)
{
	for (; cpu < CONFIG_NR_CPUS; cpu++)
		if (cpumask_test(cpu, m))
			return cpu;
	return CONFIG_NR_CPUS;
}

#define for_each_cpu(cpu, m) \
	for ((cpu) = cpumask_next(0, (m)); (cpu) < CONFIG_NR_CPUS; \
	     (cpu) = cpumask_next((cpu) + 1, (m)))

#endif
