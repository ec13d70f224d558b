/* Shared between the ring (trace.c) and its controls (control.c). */
#ifndef _KERNEL_TRACE_INTERNAL_H
#define _KERNEL_TRACE_INTERNAL_H

#include <trace.h>
#include <preempt.h>

struct trace_buf {
	unsigned long head;	/* records ever claimed on this CPU */
	unsigned long dropped;	/* refused in stop-when-full mode */
	struct trace_record rec[];
};

extern unsigned int trace_mode;
extern unsigned long trace_entries;
extern struct trace_buf *trace_bufs[CONFIG_NR_CPUS];

void trace_reset(void);

#endif
