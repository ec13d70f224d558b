#ifndef _USER_SYS_UTSNAME_H
#define _USER_SYS_UTSNAME_H

#include <quiescent.h>

/* POSIX's five fields first, then Quiescent's (rcu_variant, hz, ncpus...). */
struct utsname {
	char sysname[QS_UTSLEN];
	char nodename[QS_UTSLEN];
	char release[QS_UTSLEN];
	char version[QS_UTSLEN];
	char machine[QS_UTSLEN];
	char rcu_variant[QS_UTSLEN];
	char preempt[QS_UTSLEN];
	int hz;
	int ncpus;
	int max_cpus;
	unsigned long tsc_khz;
};

int uname(struct utsname *u);

#endif
