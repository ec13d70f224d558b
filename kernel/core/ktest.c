/*
 * The in-kernel test runner (include/ktest.h). Output is KTAP version 1:
 *
 *   KTAP version 1
 *   1..3
 *       # smp_ipi_reaches_all: 4 CPUs answered
 *   ok 1 smp_ipi_reaches_all
 *   not ok 2 broken_thing
 *   ok 3 needs_two_cpus # SKIP only one CPU
 *
 * followed by a summary line and the isa-debug-exit status. The host side
 * (tools/ktap.py) parses exactly this.
 */
#include <ktest.h>
#include <trace.h>
#include <cmdline.h>
#include <printk.h>
#include <string.h>
#include <arch/qemu.h>

extern const struct ktest __ktests_start[], __ktests_end[];

static char ktest_pattern[512];

static int set_ktest(const char *val)
{
	if (!val || !*val)
		return -1;
	strlcpy(ktest_pattern, val, sizeof(ktest_pattern));
	return 0;
}
CMDLINE_PARAM("ktest", set_ktest,
	      "ktest=<glob>[,<glob>...]: run the matching in-kernel tests, then exit (ktest=list lists them)");

bool ktest_requested(void)
{
	return ktest_pattern[0] != 0;
}

static bool selected(const struct ktest *k)
{
	char pat[512];
	char *p = pat;

	strlcpy(pat, ktest_pattern, sizeof(pat));
	while (p && *p) {
		char *comma = strchr(p, ',');
		if (comma)
			*comma = 0;
		if (k->flags & KTEST_F_MANUAL ? !strcmp(p, k->name) : glob_match(p, k->name))
			return true;
		p = comma ? comma + 1 : NULL;
	}
	return false;
}

void kt_info(const char *fmt, ...)
{
	char buf[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	printk_raw("    # %s\n", buf);
}

void ktest_fail(struct ktest_ctx *t, const char *file, int line, const char *fmt, ...)
{
	char buf[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	t->failures++;
	printk_raw("    # %s: %s:%d: %s\n", t->name, file, line, buf);
}

void ktest_skip(struct ktest_ctx *t, const char *why)
{
	t->skipped = true;
	strlcpy(t->skip_reason, why, sizeof(t->skip_reason));
}

void bench_json(const char *fmt, ...)
{
	char buf[900];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	printk_raw("BENCH %s\n", buf);
}

void ktest_run_selected(void)
{
	const struct ktest *k;
	int n = 0, i = 0, failed = 0, skipped = 0;

	if (!ktest_requested())
		return;
	if (!strcmp(ktest_pattern, "list")) {
		for (k = __ktests_start; k < __ktests_end; k++)
			printk_raw("ktest: %s%s (%s)\n", k->name,
				   k->flags & KTEST_F_MANUAL ? " [manual]" : "", k->file);
		qemu_exit(QEMU_EXIT_PASS);
	}
	for (k = __ktests_start; k < __ktests_end; k++)
		n += selected(k);
	printk_raw("KTAP version 1\n1..%d\n", n);
	for (k = __ktests_start; k < __ktests_end; k++) {
		struct ktest_ctx t = { .name = k->name };

		if (!selected(k))
			continue;
		i++;
		printk("ktest: running %s\n", k->name);
		k->fn(&t);
		if (t.skipped) {
			skipped++;
			printk_raw("ok %d %s # SKIP %s\n", i, k->name, t.skip_reason);
		} else if (t.failures) {
			failed++;
			printk_raw("not ok %d %s\n", i, k->name);
		} else {
			printk_raw("ok %d %s\n", i, k->name);
		}
	}
	trace_dump_at_end();		/* trace.dump_at_end=1: before the summary ends the log */
	printk_raw("# ktest summary: %d tests, %d passed, %d failed, %d skipped\n",
		   n, n - failed - skipped, failed, skipped);
	qemu_exit(n == 0 || failed ? QEMU_EXIT_FAIL : QEMU_EXIT_PASS);
}
