/*
 * KCOV from user space (include/uapi/kcov.h, docs/kcov.md): qs_kcov()
 * with errno set and -1 on failure.
 */
#ifndef _USER_SYS_KCOV_H
#define _USER_SYS_KCOV_H

#include "../../../include/uapi/kcov.h"	/* the ABI, shared with the kernel */

long qs_kcov(int op, unsigned long a, unsigned long b);

#endif
