/*
 * The per-CPU trace buffers (include/trace.h): writing and reading.
 *
 * Each CPU owns one ring of trace_entries records (a power of two) and a
 * head that counts the records it ever reserved. Only the CPU itself
 * writes its ring, but the code that writes may be interrupted by an
 * interrupt or an NMI that writes too, so:
 *   - a writer takes its slot with one cmpxchg on head (no lock prefix:
 *     only this CPU writes head, and one instruction cannot be split by
 *     an interrupt); an NMI that lands between our read of head and the
 *     cmpxchg takes the slot first, and our cmpxchg fails and retries;
 *   - interrupts are off while a record is written (a preemptible
 *     caller must stay on its CPU), but NMIs are not, hence the cmpxchg;
 *   - the slot's seq is zeroed first and set to index + 1 last, so a
 *     reader on another CPU (the dump, gdb) that finds seq == index + 1
 *     both before and after copying the slot has a whole record: x86
 *     makes one CPU's stores visible in order, so the compiler barriers
 *     suffice on the writer's side, and smp_rmb() on the reader's.
 * A writer interrupted between zeroing seq and setting it leaves its slot
 * invalid for a moment; a reader counts it as skipped.
 *
 * Two modes: overwrite (the ring keeps the newest trace_entries records)
 * and stop-when-full (it keeps the first ones and counts the rest as
 * dropped), chosen with trace.mode= or trace start.
 */
#include <trace.h>
#include <kmalloc.h>
#include <smp.h>
#include <percpu.h>
#include <barrier.h>
#include <printk.h>
#include <arch/cpu.h>
#include "trace_internal.h"

unsigned int trace_mask;
unsigned int trace_mode;
unsigned long trace_entries = 16384;	/* per CPU; trace.size= */
struct trace_buf *trace_bufs[CONFIG_NR_CPUS];	/* gdb's qs-trace reads these */

const char *const trace_event_names[TR_NR_EVENTS] = {
	[TR_NONE] = "none",
	[TR_GP_START] = "gp_start",
	[TR_GP_END] = "gp_end",
	[TR_QS] = "qs",
	[TR_CALL_RCU] = "call_rcu",
	[TR_CB_INVOKE] = "cb_invoke",
	[TR_CB_BATCH] = "cb_batch",
	[TR_CB_PENDING] = "cb_pending",
	[TR_SWITCH] = "switch",
	[TR_SOFTIRQ_ENTRY] = "softirq_entry",
	[TR_SOFTIRQ_EXIT] = "softirq_exit",
	[TR_TASKLET_ENTRY] = "tasklet_entry",
	[TR_TASKLET_EXIT] = "tasklet_exit",
	[TR_TICK] = "tick",
	[TR_IPI] = "ipi",
	[TR_READER_ENTER] = "reader_enter",
	[TR_READER_EXIT] = "reader_exit",
	[TR_TEST] = "test",
	[TR_NODE_QS] = "node_qs",
};

/* Allocate every CPU's ring; before this, records are silently not kept. */
void trace_init(void)
{
	unsigned int cpu;
	size_t bytes = sizeof(struct trace_buf) + trace_entries * sizeof(struct trace_record);

	for_each_possible_cpu(cpu) {
		struct trace_buf *b = kzalloc(bytes);

		if (!b) {
			printk("trace: no memory for CPU %u's %lu records: tracing off there\n",
			       cpu, trace_entries);
			continue;
		}
		WRITE_ONCE(trace_bufs[cpu], b);
	}
	printk("trace: %lu records of %zu bytes per CPU, %s mode, mask %#x\n",
	       trace_entries, sizeof(struct trace_record),
	       trace_mode == QS_TRACE_STOP_WHEN_FULL ? "stop-when-full" : "overwrite",
	       trace_mask);
}

/* head += 1 if it is still old: one instruction, so atomic against our own NMIs. */
static inline bool head_claim(unsigned long *head, unsigned long old)
{
	unsigned long prev;

	__asm__ __volatile__("cmpxchgq %2, %1"
			     : "=a"(prev), "+m"(*head)
			     : "r"(old + 1), "0"(old) : "memory");
	return prev == old;
}

static inline void local_inc(unsigned long *p)
{
	__asm__ __volatile__("incq %0" : "+m"(*p));
}

void __trace_record(unsigned int type, u64 a, u64 b)
{
	struct trace_buf *buf;
	struct trace_record *r;
	unsigned long h, flags;
	unsigned int cpu;

	/*
	 * Interrupts off: the caller must not be preempted and moved to
	 * another CPU between choosing the ring and writing it (the rings
	 * have one writer each), and preempt_enable() could schedule from
	 * inside the scheduler's own trace point. NMIs still nest; the
	 * cmpxchg handles them.
	 */
	flags = local_irq_save();
	cpu = cpu_local()->cpu;
	buf = READ_ONCE(trace_bufs[cpu]);
	if (unlikely(!buf)) {
		local_irq_restore(flags);
		return;
	}
	do {
		h = READ_ONCE(buf->head);
		if (trace_mode == QS_TRACE_STOP_WHEN_FULL && h >= trace_entries) {
			local_inc(&buf->dropped);
			local_irq_restore(flags);
			return;
		}
	} while (!head_claim(&buf->head, h));
	r = &buf->rec[h & (trace_entries - 1)];
	WRITE_ONCE(r->seq, 0);
	barrier();		/* the slot invalid before its fields change */
	r->tsc = rdtsc();
	r->type = type;
	r->cpu = cpu;
	r->a = a;
	r->b = b;
	barrier();		/* the fields before the slot is marked whole */
	WRITE_ONCE(r->seq, (u32)(h + 1));
	local_irq_restore(flags);
}

unsigned long trace_snapshot(unsigned int cpu, struct trace_record *out,
			     unsigned long max, unsigned long *skipped)
{
	struct trace_buf *buf = READ_ONCE(trace_bufs[cpu]);
	unsigned long h, i, n = 0, start;

	*skipped = 0;
	if (!buf)
		return 0;
	h = READ_ONCE(buf->head);
	start = h > trace_entries ? h - trace_entries : 0;
	if (h - start > max)
		start = h - max;
	for (i = start; i < h; i++) {
		const struct trace_record *r = &buf->rec[i & (trace_entries - 1)];
		u32 s1, s2;

		s1 = READ_ONCE(r->seq);
		smp_rmb();		/* seq before the fields */
		out[n] = *r;
		smp_rmb();		/* the fields before seq again */
		s2 = READ_ONCE(r->seq);
		if (s1 != (u32)(i + 1) || s2 != s1) {
			(*skipped)++;	/* being written, or already overwritten */
			continue;
		}
		n++;
	}
	return n;
}

unsigned long trace_buf_entries(void)
{
	return trace_entries;
}

unsigned long trace_dropped(unsigned int cpu)
{
	struct trace_buf *buf = READ_ONCE(trace_bufs[cpu]);

	return buf ? READ_ONCE(buf->dropped) : 0;
}

/* Empty every ring (tracing is off: no writer runs, but an NMI might). */
void trace_reset(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct trace_buf *b = trace_bufs[cpu];

		if (b) {
			WRITE_ONCE(b->head, 0);
			WRITE_ONCE(b->dropped, 0);
		}
	}
}
