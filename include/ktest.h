/*
 * In-kernel tests, reported in KTAP version 1 on the serial console.
 *
 *   KTEST(smp_all_cpus_tick)
 *   {
 *           KT_EXPECT(t, num_online_cpus() == nr_cpu_ids, "online %u of %u", ...);
 *   }
 *
 * Tests are chosen with ktest=<glob>[,<glob>...] on the kernel command line
 * ("ktest=*" runs all ordinary tests; "ktest=list" lists them). KTEST_MANUAL
 * tests run only when named exactly, because they end the run on purpose
 * (the deliberate page fault, the provoked panic). After the last test the
 * run ends through isa-debug-exit: pass or fail (include/arch/qemu.h).
 *
 * A test runs in the "init" kernel thread, bound to CPU 0, with interrupts
 * enabled: it may sleep, start threads and use every CPU through IPIs.
 */
#ifndef _KTEST_H
#define _KTEST_H

#include <compiler.h>

struct ktest_ctx {
	const char *name;
	int failures;
	bool skipped;
	char skip_reason[96];
};

struct ktest {
	const char *name;
	void (*fn)(struct ktest_ctx *t);
	unsigned int flags;
	const char *file;
};

#define KTEST_F_MANUAL	1	/* only when named exactly on the command line */

#define __KTEST(tname, fl)							\
	static void ktest_fn_##tname(struct ktest_ctx *t);			\
	static const struct ktest __ktest_##tname				\
	__section(".ktests") __used __aligned(8) =				\
		{ #tname, ktest_fn_##tname, fl, __FILE__ };			\
	static void ktest_fn_##tname(struct ktest_ctx *t)

#define KTEST(name)		__KTEST(name, 0)
#define KTEST_MANUAL(name)	__KTEST(name, KTEST_F_MANUAL)

__printf(4, 5) void ktest_fail(struct ktest_ctx *t, const char *file, int line,
			       const char *fmt, ...);
/* A diagnostic line inside the current test ("    # ..."). */
__printf(1, 2) void kt_info(const char *fmt, ...);
void ktest_skip(struct ktest_ctx *t, const char *why);

/* Record a failure and go on. */
#define KT_EXPECT(t, cond, fmt, ...)						\
	({ bool __ok = !!(cond);						\
	   if (!__ok) ktest_fail(t, __FILE__, __LINE__,				\
				 "expected %s: " fmt, #cond, ##__VA_ARGS__);	\
	   __ok; })

/* Record a failure and leave the test. */
#define KT_ASSERT(t, cond, fmt, ...)						\
	do { if (!KT_EXPECT(t, cond, fmt, ##__VA_ARGS__)) return; } while (0)

/* Run the tests the command line chose; returns only if none were chosen. */
void ktest_run_selected(void);
bool ktest_requested(void);

/* Benchmarks print one JSON object per result on a line starting "BENCH ". */
__printf(1, 2) void bench_json(const char *fmt, ...);

#endif
