/*
 * Loadable modules: load, parameters, symbols, references, unload, and
 * every kind of bad module (tools/mkbadmod.py), each refused with the
 * right error and message and without a leak (docs/modules.md).
 *
 *   ktest=module_*
 *
 * The modules come from the initrd (lib/modules/, the Makefile puts them
 * there), as insmod would read them.
 */
#include <ktest.h>
#include <module.h>
#include <ksyms.h>
#include <kmalloc.h>
#include <string.h>
#include <errno.h>
#include <sched.h>
#include <time.h>
#include <rcupdate.h>
#include <initrd.h>
#include <arch/layout.h>
#include "module_test.h"

int test_module_image(const char *name, const void **data, size_t *size)
{
	char path[64];

	snprintf(path, sizeof(path), "lib/modules/%s.ko", name);
	initrd_init();			/* user mode, which finds it, comes after the tests */
	return initrd_find(path, data, size);
}

/* insmod of lib/modules/<name>.ko with params; err gets the loader's reason. */
int test_module_load(const char *name, const char *params, char *err)
{
	const void *img;
	size_t size;

	if (test_module_image(name, &img, &size))
		return -ENOENT;
	return load_module(img, size, params, err, QS_MODULE_ERRLEN);
}

/*
 * The first module load in a boot starts what the kernel then keeps for
 * good: the module notifier's SRCU domain starts its kthread (and task
 * struct) on first use, the module area gets its page tables. A baseline
 * taken before that would count them as the leak of whichever test
 * happens to run first, so the first baseline loads and unloads a
 * module before it counts.
 */
static void warm_up_once(void)
{
	static bool warm;
	char err[QS_MODULE_ERRLEN];

	if (warm)
		return;
	warm = true;
	if (test_module_load("hello", NULL, err) == 0)
		unload_module("hello", 0, NULL);
}

void test_module_baseline(struct test_module_baseline *b)
{
	struct kmalloc_stats k;
	struct qs_module_stats m;

	warm_up_once();
	rcu_barrier();		/* what call_rcu() frees (tasks, ...) is freed by now */
	kmalloc_get_stats(&k);
	module_get_stats(&m);
	b->objects = k.objects;
	b->bytes = k.bytes;
	b->pages = m.pages;
	b->va_pages = m.va_pages;
	b->loaded = m.loaded;
}

bool test_module_same(struct ktest_ctx *t, const struct test_module_baseline *a,
		      const char *what)
{
	struct test_module_baseline b;

	test_module_baseline(&b);
	return KT_EXPECT(t, a->objects == b.objects && a->bytes == b.bytes && a->pages == b.pages &&
			 a->va_pages == b.va_pages && a->loaded == b.loaded,
			 "%s leaked: kmalloc objects %ld -> %ld, bytes %ld -> %ld, module pages "
			 "%lu -> %lu, area pages %lu -> %lu, modules %lu -> %lu", what, a->objects,
			 b.objects, a->bytes, b.bytes, a->pages, b.pages, a->va_pages, b.va_pages,
			 a->loaded, b.loaded);
}

KTEST(module_load_unload)
{
	struct test_module_baseline base;
	char err[QS_MODULE_ERRLEN], sym[128];
	unsigned long spin;
	int r;

	test_module_baseline(&base);

	r = test_module_load("hello", "count=3 who=ktest loud", err);
	KT_ASSERT(t, r == 0, "insmod hello count=3: %d: %s", r, err);
	KT_EXPECT(t, module_ctl_call("hello", HELLO_CTL_COUNT, 0, NULL, 0) == 3,
		  "the count parameter reached the module");
	r = test_module_load("hello", NULL, err);
	KT_EXPECT(t, r == -EEXIST, "a second hello: %d (%s)", r, err);
	spin = module_symbol_address("hello", "hello_spin");
	KT_EXPECT(t, spin >= MODULE_AREA_START && spin < MODULE_AREA_END,
		  "hello_spin at %#lx, in the module area", spin);
	ksym_format(spin + 4, sym, sizeof(sym));
	kt_info("hello_spin+4 is %s", sym);
	KT_EXPECT(t, strstr(sym, "hello_spin+0x4/") && strstr(sym, " [hello]"),
		  "symbolized as %s", sym);
	KT_EXPECT(t, unload_module("nosuch", 0, NULL) == -ENOENT, "rmmod of no module: ENOENT");
	KT_EXPECT(t, unload_module("hello", 1, NULL) == -EINVAL, "rmmod with flags: EINVAL");
	KT_EXPECT(t, unload_module("hello", 0, NULL) == 0, "rmmod hello");
	ksym_format(spin + 4, sym, sizeof(sym));
	KT_EXPECT(t, !strstr(sym, "hello"), "after the unload, %#lx is %s", spin + 4, sym);
	test_module_same(t, &base, "load and unload");
}

KTEST(module_params_refused)
{
	static const char *const bad[] = {
		"nosuch=1", "count=abc", "count=99999999999", "loud=maybe", "who", "count",
	};
	struct test_module_baseline base;
	char err[QS_MODULE_ERRLEN];

	test_module_baseline(&base);
	for (unsigned int i = 0; i < ARRAY_SIZE(bad); i++) {
		int r = test_module_load("hello", bad[i], err);

		kt_info("insmod hello %s: %d: %s", bad[i], r, err);
		KT_EXPECT(t, r == -EINVAL, "insmod hello %s: %d", bad[i], r);
	}
	KT_EXPECT(t, test_module_load("hello", "fail=19", err) == -19 && strstr(err, "init failed"),
		  "a failing init: %s", err);
	test_module_same(t, &base, "refused parameters and a failing init");
}

static int hold_reference(void *arg)
{
	return module_ctl_call("hello", HELLO_CTL_SLEEP, 1000, NULL, 0);
}

KTEST(module_busy)
{
	char err[QS_MODULE_ERRLEN];
	struct task *holder;
	int r;

	r = test_module_load("hello", NULL, err);
	KT_ASSERT(t, r == 0, "insmod hello: %s", err);
	holder = kthread_run(hold_reference, NULL, "modhold");
	KT_ASSERT(t, holder, "no thread");
	/*
	 * rmmod once the holder sleeps, which it does only inside hello's
	 * ctl, holding its reference: not after a fixed 100 ms, which a host
	 * holding the holder's vCPU outlasts. Up to 5 s for that; the ctl
	 * then sleeps a second, far past the step from here to the rmmod.
	 */
	for (u64 t0 = ktime_get_ns(); ktime_get_ns() - t0 < 5000000000ULL &&
	     !(READ_ONCE(holder->state) & TASK_NORMAL); )
		msleep(1);
	KT_EXPECT(t, READ_ONCE(holder->state) & TASK_NORMAL, "the holder never got into hello's ctl");
	r = unload_module("hello", 0, NULL);
	KT_EXPECT(t, r == -EBUSY, "rmmod while a reference is held: %d", r);
	KT_EXPECT(t, kthread_join(holder) == 0, "the holder's ctl call");
	KT_EXPECT(t, unload_module("hello", 0, NULL) == 0, "rmmod once it is let go");
}

/* lib/modules/bad/manifest: "<kind> <errno name> <words>" per line. */
static int errno_named(const char *s)
{
	if (!strncmp(s, "ENOEXEC", 7))
		return -ENOEXEC;
	if (!strncmp(s, "ENOENT", 6))
		return -ENOENT;
	if (!strncmp(s, "EINVAL", 6))
		return -EINVAL;
	if (!strncmp(s, "ENAMETOOLONG", 12))
		return -ENAMETOOLONG;
	return 0;
}

KTEST(module_bad_images)
{
	const char *manifest, *line, *end;
	struct test_module_baseline base;
	struct qs_module_stats before, after;
	size_t size;
	int checked = 0;

	initrd_init();
	KT_ASSERT(t, !initrd_find("lib/modules/bad/manifest", (const void **)&manifest, &size),
		  "no lib/modules/bad/manifest in the initrd");
	test_module_baseline(&base);
	module_get_stats(&before);
	for (line = manifest, end = manifest + size; line < end; line = strchr(line, '\n') + 1) {
		char kind[32], words[64], err[QS_MODULE_ERRLEN], path[80];
		const char *sp1 = strchr(line, ' '), *sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
		const char *nl = strchr(line, '\n');
		const void *img;
		size_t isz;
		int r;

		KT_ASSERT(t, sp1 && sp2 && nl && nl < end, "manifest line %d", checked + 1);
		strlcpy(kind, line, MIN((size_t)(sp1 - line + 1), sizeof(kind)));
		strlcpy(words, sp2 + 1, MIN((size_t)(nl - sp2), sizeof(words)));
		snprintf(path, sizeof(path), "lib/modules/bad/%s.ko", kind);
		KT_ASSERT(t, !initrd_find(path, &img, &isz), "no %s", path);
		r = load_module(img, isz, NULL, err, sizeof(err));
		kt_info("%s: %d: %s", kind, r, err);
		KT_EXPECT(t, r == errno_named(sp1 + 1) && strstr(err, words),
			  "%s: got %d '%s', want %.*s with '%s'", kind, r, err, (int)(sp2 - sp1 - 1),
			  sp1 + 1, words);
		checked++;
	}
	KT_EXPECT(t, checked >= 10, "%d bad modules checked", checked);
	/* Each refusal is counted (query_modules' stats), whatever its reason. */
	module_get_stats(&after);
	KT_EXPECT(t, after.refused - before.refused == (u64)checked,
		  "%d bad modules refused, the count went up by %lu", checked,
		  (unsigned long)(after.refused - before.refused));
	test_module_same(t, &base, "refused bad modules");
}

/* The trace printed from inside hello names it (the scenario's log checks
 * "hello_backtrace+0x.../0x... [hello]"). */
KTEST(module_backtrace)
{
	char err[QS_MODULE_ERRLEN];
	int r = test_module_load("hello", NULL, err);

	KT_ASSERT(t, r == 0, "insmod hello: %s", err);
	KT_EXPECT(t, module_ctl_call("hello", HELLO_CTL_BACKTRACE, 0, NULL, 0) == 0, "backtrace");
	KT_EXPECT(t, unload_module("hello", 0, NULL) == 0, "rmmod hello");
}

/* A fault inside a module: the panic's RIP and Call Trace name the
 * function and the module (tests/scenarios/module-oops-smp2.toml). */
KTEST_MANUAL(module_oops)
{
	char err[QS_MODULE_ERRLEN];
	int r = test_module_load("hello", NULL, err);

	KT_ASSERT(t, r == 0, "insmod hello: %s", err);
	module_ctl_call("hello", HELLO_CTL_OOPS, 0, NULL, 0);
	KT_EXPECT(t, 0, "hello_oops() returned");
}
