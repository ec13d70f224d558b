/*
 * qs_trace(cmd, mask, mode): the trace program's way in (user/bin/trace.c,
 * include/uapi/trace.h). Starting, stopping and dumping are root's.
 */
#include <trace.h>
#include <syscall.h>
#include <errno.h>
#include <cred.h>

static long sys_qs_trace(struct pt_regs *r)
{
	unsigned long cmd = SYSCALL_ARG0(r), mask = SYSCALL_ARG1(r), mode = SYSCALL_ARG2(r);

	if (cmd == QS_TRACE_STATUS)
		return READ_ONCE(trace_mask);
	if (cmd < QS_TRACE_START || cmd > QS_TRACE_DUMP)
		return -EINVAL;
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	switch (cmd) {
	case QS_TRACE_START:
		if (mask > QS_TRACE_CAT_ALL || mode > QS_TRACE_STOP_WHEN_FULL)
			return -EINVAL;
		return trace_start(mask, mode);
	case QS_TRACE_STOP:
		trace_stop();
		return 0;
	default:
		return trace_dump();
	}
}
SYSCALL_DEFINE(SYS_qs_trace, sys_qs_trace);
