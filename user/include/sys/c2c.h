/*
 * Benchmark cells for the coherence plugin from user space
 * (include/uapi/c2c.h): qs_c2c() with errno set and -1 on failure
 * (ENODEV: the kernel was not booted with c2c=1).
 */
#ifndef _USER_SYS_C2C_H
#define _USER_SYS_C2C_H

#include "../../../include/uapi/c2c.h"	/* the ABI, shared with the kernel */

long qs_c2c(int op, unsigned long a, unsigned long b);

#endif
