#ifndef _USER_TIME_H
#define _USER_TIME_H

#include <sys/types.h>

#define CLOCK_REALTIME	0
#define CLOCK_MONOTONIC	1
typedef int clockid_t;

struct timespec {
	time_t tv_sec;
	long tv_nsec;
};

int nanosleep(const struct timespec *req, struct timespec *rem);
int clock_gettime(clockid_t clock, struct timespec *ts);

#endif
