/*
 * The tracing system call (kernel/trace/trace.c, docs/rcu/timeline.md):
 * numbers in the 90-99 range include/uapi/quiescent.h keeps for tracing.
 * Both the kernel and user/ compile against this file.
 *
 *   qs_trace(QS_TRACE_START, mask, mode)  record the categories in mask
 *                                         (QS_TRACE_CAT_*; 0 = all), in
 *                                         QS_TRACE_OVERWRITE or
 *                                         QS_TRACE_STOP_WHEN_FULL mode,
 *                                         after emptying the buffers
 *   qs_trace(QS_TRACE_STOP, 0, 0)         stop recording, keep the buffers
 *   qs_trace(QS_TRACE_DUMP, 0, 0)         print the buffers on the console
 *                                         as TRACE lines; returns the count
 *   qs_trace(QS_TRACE_STATUS, 0, 0)       the enabled mask
 * Root only for START, STOP and DUMP; a bad command, mask or mode is
 * -EINVAL.
 */
#ifndef _UAPI_TRACE_H
#define _UAPI_TRACE_H

#define SYS_qs_trace		90	/* (QS_TRACE_*, mask, mode) */

#define QS_TRACE_START		1
#define QS_TRACE_STOP		2
#define QS_TRACE_DUMP		3
#define QS_TRACE_STATUS		4

#define QS_TRACE_CAT_RCU	(1U << 0)
#define QS_TRACE_CAT_SCHED	(1U << 1)
#define QS_TRACE_CAT_SOFTIRQ	(1U << 2)
#define QS_TRACE_CAT_IRQ	(1U << 3)
#define QS_TRACE_CAT_TORTURE	(1U << 4)
#define QS_TRACE_CAT_TEST	(1U << 5)
#define QS_TRACE_CAT_ALL	0x3fU

#define QS_TRACE_OVERWRITE	0
#define QS_TRACE_STOP_WHEN_FULL	1

#endif
