/* struct timeval (SO_RCVTIMEO). */
#ifndef _USER_SYS_TIME_H
#define _USER_SYS_TIME_H

#include <sys/types.h>

struct timeval {
	time_t tv_sec;
	long tv_usec;
};

#endif
