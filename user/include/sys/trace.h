/*
 * The trace buffers from user space (include/uapi/trace.h,
 * docs/rcu/timeline.md): qs_trace() with errno set and -1 on failure.
 */
#ifndef _USER_SYS_TRACE_H
#define _USER_SYS_TRACE_H

#include <sys/syscall.h>
#include "../../../include/uapi/trace.h"	/* the ABI, shared with the kernel */

static inline long qs_trace(int cmd, unsigned int mask, unsigned int mode)
{
	return syscall(SYS_qs_trace, cmd, mask, mode);
}

#endif
