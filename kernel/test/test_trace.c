/*
 * The trace buffers (kernel/trace/, docs/rcu/timeline.md) under
 * pressure: rings that overflow in both modes keep exactly what they
 * promise, and records written from threads, interrupts and NMIs on
 * every CPU while another CPU copies and dumps the rings are never seen
 * torn. Each TEST record carries a pattern and its check (b = mix(a)):
 * a record put together from two writes fails the check.
 *
 *   ktest=trace_* trace.size=1024    (tests/scenarios/trace-ktest.toml)
 */
#include <ktest.h>
#include <trace.h>
#include <nmi.h>
#include <kmalloc.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <preempt.h>

static inline u64 mix(u64 a)
{
	return (a * 0x9e3779b97f4a7c15ULL) ^ 0x5bd1e995ULL;
}

#define TAG_THREAD	(1ULL << 62)
#define TAG_NMI		(1ULL << 61)

static void write_test(u64 a)
{
	trace_event(TRACE_TEST, TR_TEST, a, mix(a));
}

/* Write n records on this CPU, a = 0 .. n-1, and copy the ring back. */
static unsigned long fill_and_copy(unsigned long n, struct trace_record *out,
				   unsigned long *skipped, unsigned int *cpu)
{
	unsigned long got;

	preempt_disable();
	*cpu = smp_processor_id();
	for (unsigned long i = 0; i < n; i++)
		write_test(i);
	trace_stop();
	got = trace_snapshot(*cpu, out, trace_buf_entries(), skipped);
	preempt_enable();
	return got;
}

/* Built without CONFIG_TRACE the trace points are gone: nothing to test. */
static bool trace_built(struct ktest_ctx *t)
{
#ifdef CONFIG_TRACE
	return true;
#else
	ktest_skip(t, "CONFIG_TRACE=n");
	return false;
#endif
}

KTEST(trace_overflow)
{
	unsigned long size = trace_buf_entries(), n, skipped, extra = size / 2 + 7;
	struct trace_record *buf;
	unsigned int cpu;
	bool ordered = true;

	if (!trace_built(t))
		return;
	buf = kmalloc(size * sizeof(*buf));

	KT_ASSERT(t, buf, "no memory for %lu records", size);
	/* Overwrite: the newest size records, oldest first. */
	KT_ASSERT(t, trace_start(TRACE_TEST, QS_TRACE_OVERWRITE) == 0, "start");
	n = fill_and_copy(2 * size + extra, buf, &skipped, &cpu);
	KT_EXPECT(t, n == size && skipped == 0, "overwrite: %lu records (%lu skipped) of %lu",
		  n, skipped, size);
	for (unsigned long i = 0; i < n; i++)
		if (buf[i].a != size + extra + i || buf[i].b != mix(buf[i].a) || buf[i].cpu != cpu)
			ordered = false;
	KT_EXPECT(t, ordered, "overwrite keeps records %lu..%lu in order",
		  size + extra, 2 * size + extra - 1);
	/* Stop when full: the first size records, the rest counted as dropped. */
	KT_ASSERT(t, trace_start(TRACE_TEST, QS_TRACE_STOP_WHEN_FULL) == 0, "start");
	n = fill_and_copy(size + extra, buf, &skipped, &cpu);
	KT_EXPECT(t, n == size && buf[0].a == 0 && buf[n - 1].a == size - 1,
		  "stop-when-full keeps 0..%lu: %lu records, %llu..%llu", size - 1, n,
		  (unsigned long long)buf[0].a, (unsigned long long)buf[n ? n - 1 : 0].a);
	KT_EXPECT(t, trace_dropped(cpu) == extra, "%lu dropped, not %lu", trace_dropped(cpu), extra);
	/* Bad requests are refused and change nothing. */
	KT_EXPECT(t, trace_start(1U << 20, 0) < 0 && trace_start(TRACE_TEST, 7) < 0,
		  "a bad mask or mode is refused");
	KT_EXPECT(t, trace_mask == 0, "still stopped after the refusals: mask %#x", trace_mask);
	kfree(buf);
}

static volatile bool writers_stop;
static unsigned long nmi_writes[CONFIG_NR_CPUS];

static int nmi_writer(struct pt_regs *regs, void *arg)
{
	unsigned int cpu = smp_processor_id();

	/* Several records per NMI, so some land inside a thread's write. */
	for (int i = 0; i < 4; i++)
		write_test(TAG_NMI | (u64)cpu << 40 | nmi_writes[cpu]++);
	return NMI_DONE;
}

static struct nmi_handler trace_nmi = { .handler = nmi_writer, .name = "trace-test" };

static int thread_writer(void *arg)
{
	u64 cpu = smp_processor_id(), i = 0;

	while (!READ_ONCE(writers_stop)) {
		write_test(TAG_THREAD | cpu << 40 | i++);
		if (!(i % 256))
			cond_resched();
	}
	return 0;
}

struct torn_count {
	unsigned long records, nmi, torn, skipped;
};

static void check_copy(struct trace_record *buf, unsigned long max, unsigned int cpu,
		       struct torn_count *c)
{
	unsigned long skipped, n = trace_snapshot(cpu, buf, max, &skipped);

	c->skipped += skipped;
	for (unsigned long i = 0; i < n; i++) {
		if (buf[i].type != TR_TEST)
			continue;		/* ticks */
		c->records++;
		if (buf[i].a & TAG_NMI)
			c->nmi++;
		if (buf[i].b != mix(buf[i].a) || buf[i].cpu != cpu)
			c->torn++;
	}
}

KTEST(trace_nmi_no_torn)
{
	struct trace_record *buf;
	struct task *w[CONFIG_NR_CPUS] = { 0 };
	struct torn_count c = { 0 };
	unsigned int cpu, me, copies = 0;
	u64 end;
	int r;

	if (!trace_built(t))
		return;
	buf = kmalloc(trace_buf_entries() * sizeof(*buf));

	KT_ASSERT(t, buf, "no memory");
	KT_ASSERT(t, register_nmi_handler(&trace_nmi) == 0, "register the NMI writer");
	KT_ASSERT(t, trace_start(TRACE_TEST | TRACE_IRQ, QS_TRACE_OVERWRITE) == 0, "start");
	writers_stop = false;
	me = smp_processor_id();
	for_each_online_cpu(cpu)
		if (cpu != me && (w[cpu] = kthread_create_on_cpu(thread_writer, NULL, cpu, "trwr/%u", cpu)))
			wake_up_process(w[cpu]);
	r = nmi_timer_start(2000);
	KT_EXPECT(t, r == 0, "nmi_timer_start: %d", r);
	/*
	 * 500 ms, then on (10 s at most) until a copy has held records from
	 * threads and from NMIs: a vCPU the host holds for 500 ms writes
	 * nothing and takes no NMI meanwhile.
	 */
	end = ktime_get_ns() + 500 * 1000000ULL;
	while (ktime_get_ns() < end ||
	       (!(c.records > 0 && c.nmi > 0) && ktime_get_ns() < end + 10000000000ULL)) {
		/*
		 * Whole rings, then the newest two slots over and over: the
		 * newest is the one most likely still being written, where a
		 * reader without the seq check would copy half a record.
		 */
		for_each_online_cpu(cpu) {
			check_copy(buf, trace_buf_entries(), cpu, &c);
			for (int i = 0; i < 200; i++)
				check_copy(buf, 2, cpu, &c);
		}
		if (++copies == 2)
			trace_dump();		/* the console dump, while everyone writes */
		for (int i = 0; i < 64; i++)
			write_test(TAG_THREAD | (u64)me << 40 | i);
		cond_resched();
	}
	if (!r)
		nmi_timer_stop();
	writers_stop = true;
	for_each_online_cpu(cpu)
		if (w[cpu])
			kthread_join(w[cpu]);
	trace_stop();
	unregister_nmi_handler(&trace_nmi);
	for_each_online_cpu(cpu)
		check_copy(buf, trace_buf_entries(), cpu, &c);
	kt_info("%u copies: %lu records checked, %lu from NMIs, %lu skipped as in flight, %lu torn",
		copies, c.records, c.nmi, c.skipped, c.torn);
	KT_EXPECT(t, c.torn == 0, "%lu torn records", c.torn);
	KT_EXPECT(t, c.records > 0 && c.nmi > 0, "records were written from threads and NMIs");
	kfree(buf);
}
