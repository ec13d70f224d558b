/*
 * Tests of KASAN (kernel/kasan/, docs/kasan.md): one manual test per
 * kind of report, each making its bug on purpose and checking that one
 * report of that kind came out; tests/test_kasan.py then reads each
 * report line by line, symbolized, and checks that the access is named
 * at the line the test printed ("kasan: access at file:line"). And one
 * ordinary test: correct uses of kmalloc, ksize(), the stack and globals
 * report nothing. Built only with CONFIG_KASAN (the Makefile).
 */
#include <ktest.h>
#include <kasan.h>
#include <kmalloc.h>
#include <mm.h>
#include <rcupdate.h>
#include <rcupdate_tasks.h>
#include <srcu.h>
#include <string.h>
#include <time.h>
#include <compiler.h>

/* The access on the line that names it, so the report can be checked. */
#define ACCESS(expr)								\
	({ kt_info("kasan: access at %s:%d", __FILE__, __LINE__); (expr); })

static volatile int kasan_index;		/* hides the bad index from GCC */
static char kasan_global[13];

static unsigned long count_before;

static void start(void)
{
	count_before = kasan_report_count();
}

static void expect_report(struct ktest_ctx *t, const char *kind)
{
	KT_EXPECT(t, kasan_report_count() == count_before + 1,
		  "one report (%lu)", kasan_report_count() - count_before);
	KT_EXPECT(t, !strcmp(kasan_last_report_kind(), kind), "a %s report (%s)", kind,
		  kasan_last_report_kind());
}

struct robj {
	long val;
	struct rcu_head rcu;
};

static struct robj *robj_new(void)
{
	struct robj *p = kmalloc(sizeof(*p));

	if (p)
		p->val = 42;
	return p;
}

KTEST_MANUAL(kasan_use_after_free)
{
	long *p = kmalloc(64);

	KT_ASSERT(t, p, "kmalloc");
	kfree(p);
	start();
	(void)ACCESS(READ_ONCE(p[3]));
	expect_report(t, "use-after-free");
}

KTEST_MANUAL(kasan_use_after_free_page)
{
	char *p = kmalloc(3 * PAGE_SIZE);

	KT_ASSERT(t, p, "kmalloc");
	kfree(p);
	start();
	(void)ACCESS(WRITE_ONCE(p[PAGE_SIZE + 5], 1));
	expect_report(t, "use-after-free");
}

KTEST_MANUAL(kasan_oob_right)
{
	char *p = kmalloc(61);

	KT_ASSERT(t, p, "kmalloc");
	start();
	kasan_index = 61;
	(void)ACCESS(READ_ONCE(p[kasan_index]));
	expect_report(t, "slab-out-of-bounds");
	kfree(p);
}

KTEST_MANUAL(kasan_oob_left)
{
	char *p = kmalloc(64);

	KT_ASSERT(t, p, "kmalloc");
	start();
	kasan_index = -1;
	(void)ACCESS(READ_ONCE(p[kasan_index]));
	expect_report(t, "slab-out-of-bounds");
	kfree(p);
}

KTEST_MANUAL(kasan_global_oob)
{
	start();
	kasan_index = sizeof(kasan_global);
	(void)ACCESS(READ_ONCE(kasan_global[kasan_index]));
	expect_report(t, "global-out-of-bounds");
}

static __noinline int stack_oob(int i)
{
	volatile char a[16];

	a[0] = 1;
	return ACCESS(a[i]);
}

KTEST_MANUAL(kasan_stack_oob)
{
	start();
	kasan_index = 16;
	(void)stack_oob(kasan_index);
	expect_report(t, "stack-out-of-bounds");
}

KTEST_MANUAL(kasan_double_free)
{
	void *p = kmalloc(32);

	KT_ASSERT(t, p, "kmalloc");
	kfree(p);
	start();
	ACCESS(kfree(p));
	expect_report(t, "double-free");
}

KTEST_MANUAL(kasan_invalid_free)
{
	char *p = kmalloc(32);

	KT_ASSERT(t, p, "kmalloc");
	start();
	ACCESS(kfree(p + 8));
	expect_report(t, "invalid-free");
	kfree(p);
}

/* A pointer kept past rcu_read_unlock(): the object freed after a grace
 * period, read outside any section. */
KTEST_MANUAL(kasan_rcu_outside)
{
	struct robj *p = robj_new();

	KT_ASSERT(t, p, "kmalloc");
	kfree_rcu(p, rcu);
	rcu_barrier();
	start();
	(void)ACCESS(READ_ONCE(p->val));
	expect_report(t, "use-after-rcu-free");
}

static void robj_free(void *arg)
{
	kfree(arg);
}

/* The same, freed by call_srcu(): the report names call_srcu() and its
 * site, and says which readers SRCU waits for. */
KTEST_MANUAL(kasan_srcu_outside)
{
	static struct srcu_struct kasan_ss;
	struct robj *p = robj_new();

	KT_ASSERT(t, p, "kmalloc");
	KT_ASSERT(t, init_srcu_struct(&kasan_ss, "kasan") == 0, "init_srcu_struct");
	call_srcu(&kasan_ss, &p->rcu, robj_free, p);
	srcu_barrier(&kasan_ss);
	start();
	(void)ACCESS(READ_ONCE(p->val));
	expect_report(t, "use-after-rcu-free");
	cleanup_srcu_struct(&kasan_ss);
}

/* And by call_rcu_tasks(). */
KTEST_MANUAL(kasan_rcu_tasks_outside)
{
	struct robj *p = robj_new();

	KT_ASSERT(t, p, "kmalloc");
	call_rcu_tasks(&p->rcu, robj_free, p);
	rcu_barrier_tasks();
	start();
	(void)ACCESS(READ_ONCE(p->val));
	expect_report(t, "use-after-rcu-free");
}

/* A reader that began after call_rcu() yet found the object: it was never
 * unpublished first. */
KTEST_MANUAL(kasan_rcu_updater_order)
{
	struct robj *p = robj_new();

	KT_ASSERT(t, p, "kmalloc");
	kfree_rcu(p, rcu);
	rcu_barrier();
	start();
	rcu_read_lock();
	(void)ACCESS(READ_ONCE(p->val));
	rcu_read_unlock();
	expect_report(t, "use-after-rcu-free");
}

/* A reader inside a section that began before call_rcu(): only a variant
 * whose grace period does not wait for it (busted) frees the object. */
KTEST_MANUAL(kasan_rcu_early)
{
	struct robj *p = robj_new();
	bool freed = false;

	KT_ASSERT(t, p, "kmalloc");
	rcu_read_lock();
	kfree_rcu(p, rcu);
	for (int i = 0; i < 20 && !(freed = kasan_object_freed(p)); i++)
		mdelay(1);
	if (!freed) {
		rcu_read_unlock();
		rcu_barrier();
		ktest_skip(t, "the grace period waits for this reader, as it must");
		return;
	}
	start();
	(void)ACCESS(READ_ONCE(p->val));
	rcu_read_unlock();
	expect_report(t, "use-after-rcu-free");
}

/* One place for both accesses (GCC drops a check it has just made). */
static __noinline long read_one(const long *p)
{
	return READ_ONCE(p[1]);
}

/* The same bad access twice: one report, or two with kasan.multi_shot=1. */
KTEST_MANUAL(kasan_once_per_site)
{
	unsigned long want = kasan_multi_shot() ? 2 : 1;
	long *p = kmalloc(32);

	KT_ASSERT(t, p, "kmalloc");
	kfree(p);
	start();
	(void)read_one(p);
	(void)read_one(p);
	KT_EXPECT(t, kasan_report_count() == count_before + want, "%lu reports, want %lu",
		  kasan_report_count() - count_before, want);
}

/* What is allowed stays silent: the whole of a ksize(), a kzalloc()'s
 * bytes, objects of every size, page allocations, a stack array. */
KTEST(kasan_correct_uses_silent)
{
	unsigned long before = kasan_report_count();
	volatile char a[24];

	for (size_t size = 1; size <= 3 * PAGE_SIZE; size += size / 3 + 1) {
		char *p = kzalloc(size);
		size_t ks;

		KT_ASSERT(t, p, "kzalloc(%lu)", size);
		p[0] = p[size - 1] = 1;
		ks = ksize(p);
		memset(p, 2, ks);
		kfree(p);
	}
	for (int i = 0; i < 24; i++)
		a[i] = i;
	kasan_global[sizeof(kasan_global) - 1] = a[23];
	KT_EXPECT(t, kasan_report_count() == before, "%lu reports",
		  kasan_report_count() - before);
}
