/* Run a benchmark loop on CPUs 0..k-1 at once (cpus_together.c). */
#ifndef QS_TEST_CPUS_TOGETHER_H
#define QS_TEST_CPUS_TOGETHER_H

#include <types.h>

/*
 * fn(arg) on CPUs 0..k-1, started together; returns the mean TSC cycles
 * it took a CPU. One caller at a time (ktests run one by one).
 */
u64 cpus_together(unsigned int k, void (*fn)(void *), void *arg);

#endif
