/*
 * Switching the trace buffers on and off and reading them out
 * (docs/rcu/timeline.md):
 *
 *   trace=rcu,sched,softirq,irq,torture   categories on from boot (or all)
 *   trace.size=N          records per CPU, a power of two (default 16384)
 *   trace.mode=overwrite|stop             keep the newest or the first
 *   trace.dump_at_end=1   print the buffers when a ktest run ends
 *
 * The dump is text on the console, one record a line, after a header
 * tools/timeline.py needs to turn cycles into time:
 *
 *   TRACE-HEADER tsc_khz=<kHz> cpus=<n> entries=<per cpu> mode=<m> mask=<hex>
 *   TRACE <cpu> <tsc> <event> <a> <b>           (tsc, a and b in hex)
 *   TRACE-CPU <cpu> records=<n> skipped=<n> dropped=<n>
 *   TRACE-END records=<n>
 */
#include "trace_internal.h"
#include <cmdline.h>
#include <kmalloc.h>
#include <printk.h>
#include <smp.h>
#include <string.h>
#include <time.h>
#include <errno.h>

static const struct {
	const char *name;
	unsigned int mask;
} trace_cats[] = {
	{ "rcu", TRACE_RCU }, { "sched", TRACE_SCHED }, { "softirq", TRACE_SOFTIRQ },
	{ "irq", TRACE_IRQ }, { "torture", TRACE_TORTURE }, { "test", TRACE_TEST },
	{ "all", QS_TRACE_CAT_ALL },
};

static unsigned long trace_dump_end;

/* "rcu,sched" -> a mask; 0 for any unknown word. */
static unsigned int parse_cats(const char *val)
{
	unsigned int mask = 0;

	while (val && *val) {
		const char *comma = strchr(val, ',');
		size_t len = comma ? (size_t)(comma - val) : strlen(val);
		unsigned int i, m = 0;

		for (i = 0; i < ARRAY_SIZE(trace_cats); i++)
			if (strlen(trace_cats[i].name) == len && !strncmp(val, trace_cats[i].name, len))
				m = trace_cats[i].mask;
		if (!m)
			return 0;
		mask |= m;
		val = comma ? comma + 1 : NULL;
	}
	return mask;
}

static int set_trace(const char *val)
{
	unsigned int mask = parse_cats(val);

	if (!mask) {
		printk("trace: '%s' is not a list of rcu, sched, softirq, irq, torture, test, all\n",
		       val ? val : "");
		return -EINVAL;
	}
	WRITE_ONCE(trace_mask, mask);
	return 0;
}
CMDLINE_PARAM("trace", set_trace,
	      "trace=<cat>[,<cat>...]: record these from boot: rcu, sched, softirq, irq, torture, test, all");

static int set_trace_mode(const char *val)
{
	if (val && !strcmp(val, "overwrite"))
		trace_mode = QS_TRACE_OVERWRITE;
	else if (val && !strcmp(val, "stop"))
		trace_mode = QS_TRACE_STOP_WHEN_FULL;
	else
		return -EINVAL;
	return 0;
}
CMDLINE_PARAM("trace.mode", set_trace_mode,
	      "trace.mode=overwrite|stop: keep the newest records, or the first (default overwrite)");

static int set_trace_size(const char *val)
{
	unsigned long n = trace_entries;
	int err = cmdline_parse_ulong("trace.size", val, 256, 1UL << 20, &n);

	if (err)
		return err;
	if (n & (n - 1)) {
		printk("trace.size=%lu: not a power of two; keeping %lu\n", n, trace_entries);
		return -EINVAL;
	}
	trace_entries = n;
	return 0;
}
CMDLINE_PARAM("trace.size", set_trace_size,
	      "trace.size=N: records per CPU, a power of two, 256..1048576 (default 16384)");

CMDLINE_ULONG("trace.dump_at_end", trace_dump_end, 0, 1,
	      "trace.dump_at_end=0|1: print the trace buffers when a ktest run ends (default 0)");

int trace_start(unsigned int mask, unsigned int mode)
{
	if (mask & ~QS_TRACE_CAT_ALL || mode > QS_TRACE_STOP_WHEN_FULL)
		return -EINVAL;
	WRITE_ONCE(trace_mask, 0);
	trace_reset();
	trace_mode = mode;
	WRITE_ONCE(trace_mask, mask ? mask : QS_TRACE_CAT_ALL);
	return 0;
}

void trace_stop(void)
{
	WRITE_ONCE(trace_mask, 0);
}

static unsigned long dump_cpu(unsigned int cpu, struct trace_record *tmp)
{
	unsigned long skipped, n = trace_snapshot(cpu, tmp, trace_entries, &skipped);

	for (unsigned long i = 0; i < n; i++) {
		const struct trace_record *r = &tmp[i];
		const char *name = r->type < TR_NR_EVENTS ? trace_event_names[r->type] : "?";

		printk_raw("TRACE %u %llx %s %llx %llx\n", r->cpu, (unsigned long long)r->tsc,
			   name, (unsigned long long)r->a, (unsigned long long)r->b);
	}
	printk_raw("TRACE-CPU %u records=%lu skipped=%lu dropped=%lu\n",
		   cpu, n, skipped, trace_dropped(cpu));
	return n;
}

/*
 * Print every CPU's ring. Safe while tracing goes on (records rewritten
 * under the copy are skipped, not printed torn); the dump's own console
 * output is traced too, so stop first for a quiet picture.
 */
unsigned long trace_dump(void)
{
	struct trace_record *tmp = kmalloc(trace_entries * sizeof(*tmp));
	unsigned long total = 0;
	unsigned int cpu;

	if (!tmp) {
		printk("trace: no memory for the dump\n");
		return 0;
	}
	printk_raw("TRACE-HEADER tsc_khz=%llu cpus=%u entries=%lu mode=%s mask=%x\n",
		   (unsigned long long)tsc_khz, nr_cpu_ids, trace_entries,
		   trace_mode == QS_TRACE_STOP_WHEN_FULL ? "stop" : "overwrite", trace_mask);
	for_each_possible_cpu(cpu)
		total += dump_cpu(cpu, tmp);
	printk_raw("TRACE-END records=%lu\n", total);
	kfree(tmp);
	return total;
}

/* From the end of a ktest run (kernel/core/ktest.c), if trace.dump_at_end=1. */
void trace_dump_at_end(void)
{
	if (!trace_dump_end)
		return;
	trace_stop();
	trace_dump();
}
