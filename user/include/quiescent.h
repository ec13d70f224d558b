/*
 * Quiescent's own calls, for the shell and the test programs: statistics,
 * the process list, power-off, rdtsc. The ABI itself (numbers, structures)
 * is the kernel's include/uapi/quiescent.h, on the include path.
 */
#ifndef _USER_QUIESCENT_H
#define _USER_QUIESCENT_H

#include "../../include/uapi/quiescent.h"	/* the ABI, shared with the kernel */

int qs_stats(struct qs_stats *s, int flags);
int qs_ps(struct qs_procinfo *buf, int max);
int poweroff(int code);
/* RCU work on demand: QS_RCU_SYNC, QS_RCU_CALL (n callbacks), QS_RCU_BARRIER. */
long qs_rcu(int op, unsigned long n);
long qs_cpu(long op, unsigned long cpu);
/* The task list under test: QS_TASKLIST_MODE, QS_TASKLIST_KTHREADS (user/bin/psstorm). */
long qs_tasklist(long op, long arg);
/* The index-th file of the initrd; -1 (ENOENT) past the last. */
int qs_readdir(int index, struct qs_dirent *d);
/*
 * Before a program takes its allocation baseline: fill the semaphore
 * table to SEMMNI sets and empty it. Its array grows when full and is
 * kept (grow_ary(), kernel/ipc/util.c, as on Linux), so a run that later
 * holds more sets at once than any before would otherwise swap it for a
 * larger one, more bytes in as many objects, which is not a leak.
 */
void qs_sem_table_grow(void);

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ __volatile__("lfence; rdtsc" : "=a"(lo), "=d"(hi) :: "memory");
	return ((uint64_t)hi << 32) | lo;
}

#endif
