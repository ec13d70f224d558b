/*
 * Per-CPU trace buffers (kernel/trace/, docs/rcu/timeline.md): a fixed
 * ring of fixed-size records per CPU, written only by its own CPU, safe
 * from interrupt and NMI context, read out as TRACE lines on the console
 * and turned by tools/timeline.py into a timeline and a grace-period check.
 *
 *   trace_event(TRACE_RCU, TR_GP_START, gpnum, 0);
 *
 * costs one load and one not-taken branch while the category is off
 * (trace_mask is read-mostly; the branch is marked unlikely so the
 * recording call sits out of line). With CONFIG_TRACE=n it is nothing.
 */
#ifndef _TRACE_H
#define _TRACE_H

#include <compiler.h>
#include <types.h>
#include <uapi/trace.h>

#define TRACE_RCU	QS_TRACE_CAT_RCU
#define TRACE_SCHED	QS_TRACE_CAT_SCHED
#define TRACE_SOFTIRQ	QS_TRACE_CAT_SOFTIRQ
#define TRACE_IRQ	QS_TRACE_CAT_IRQ
#define TRACE_TORTURE	QS_TRACE_CAT_TORTURE
#define TRACE_TEST	QS_TRACE_CAT_TEST

/*
 * The events; their names (trace_event_names[]) are what TRACE lines and
 * tools/timeline.py use. a and b are per event:
 */
enum trace_event_type {
	TR_NONE,
	TR_GP_START,	/* a: grace-period sequence number (rcu_gp_started()) */
	TR_GP_END,	/* a: the sequence number that ended, b: the variant's gpnum */
	TR_QS,		/* a: the grace period this CPU's quiescent state is for */
	TR_CALL_RCU,	/* a: the rcu_head, b: the sequence number it waits for */
	TR_CB_INVOKE,	/* a: the rcu_head, just before its function runs */
	TR_CB_BATCH,	/* a: callbacks invoked, b: cycles the batch took */
	TR_CB_PENDING,	/* a: callbacks queued and not yet invoked on this CPU */
	TR_SWITCH,	/* a: prev pid << 32 | next pid, b: voluntary */
	TR_SOFTIRQ_ENTRY, /* a: softirq number */
	TR_SOFTIRQ_EXIT,
	TR_TASKLET_ENTRY, /* a: the tasklet's function */
	TR_TASKLET_EXIT,
	TR_TICK,	/* a: tick context (enum tick_context) */
	TR_IPI,		/* a: vector */
	TR_READER_ENTER, /* a: reader id, b: context (0 thread, 1 timer, 2 irq) */
	TR_READER_EXIT,	/* a: reader id */
	TR_TEST,	/* a: a pattern, b: its check (kernel/test/test_trace.c) */
	TR_NODE_QS,	/* Tree RCU: a: level << 16 | rcu_node index, b: its qsmask
			 * after a report cleared bits (0: the node emptied) */
	TR_NR_EVENTS
};

extern const char *const trace_event_names[TR_NR_EVENTS];

/*
 * One record: 32 bytes. seq is the slot's index + 1 (low 32 bits), written
 * last by the writer and checked before and after a copy by the reader, so
 * a copy that raced with a rewrite of the slot is seen and dropped, never
 * printed torn.
 */
struct trace_record {
	u64 tsc;
	u32 seq;
	u16 type;
	u16 cpu;
	u64 a, b;
};

extern unsigned int trace_mask;
void __trace_record(unsigned int type, u64 a, u64 b);

#ifdef CONFIG_TRACE

#define trace_enabled(cat)	unlikely(READ_ONCE(trace_mask) & (cat))
#define trace_event(cat, type, a, b)					\
	do {								\
		if (trace_enabled(cat))					\
			__trace_record(type, (u64)(a), (u64)(b));	\
	} while (0)
#else
/* Compiled out, but the arguments still type-check and count as used. */
#define trace_enabled(cat)	false
#define trace_event(cat, type, a, b)					\
	do {								\
		if (0)							\
			__trace_record(type, (u64)(a), (u64)(b));	\
	} while (0)
#endif

void trace_init(void);
int trace_start(unsigned int mask, unsigned int mode);
void trace_stop(void);
unsigned long trace_dump(void);
void trace_dump_at_end(void);

/*
 * Copy CPU cpu's records out, oldest first, into out (at most max);
 * returns how many; *torn counts slots that changed under the copy
 * (dropped). For the dump and the tests.
 */
unsigned long trace_snapshot(unsigned int cpu, struct trace_record *out,
			     unsigned long max, unsigned long *torn);
unsigned long trace_buf_entries(void);
unsigned long trace_dropped(unsigned int cpu);

#endif
