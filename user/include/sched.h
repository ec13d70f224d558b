/* Scheduling calls (POSIX and the Linux-style CPU affinity). */
#ifndef _USER_SCHED_H
#define _USER_SCHED_H

#include <sys/types.h>
#include <stdint.h>

#define SCHED_OTHER	0
#define SCHED_FIFO	1
#define SCHED_RR	2

struct sched_param {
	int sched_priority;
};

#define CPU_SETSIZE	64
typedef struct { uint64_t bits[CPU_SETSIZE / 64]; } cpu_set_t;
#define CPU_ZERO(s)		((s)->bits[0] = 0)
#define CPU_SET(c, s)		((s)->bits[(c) / 64] |= 1ULL << ((c) % 64))
#define CPU_ISSET(c, s)		(((s)->bits[(c) / 64] >> ((c) % 64)) & 1)

int sched_yield(void);
int sched_setscheduler(pid_t pid, int policy, const struct sched_param *param);
int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *mask);
int sched_getcpu(void);

#endif
