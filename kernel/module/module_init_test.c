/*
 * A module whose init is still running, or fails: what others may take
 * from it meanwhile (docs/modules.md, "Coming and failing").
 *
 *   ktest=module_init_*
 *
 * modules/modslow.c exports modslow_answer() and sleeps in its init;
 * modules/modslowuser.c calls that export in its init and its exit.
 *  - module_init_link_coming: linking against a module still in its
 *    init is refused (-EBUSY, the owner named), whether that init then
 *    fails or succeeds; once the owner is live, the link works.
 *  - module_init_ref_failing: a reference taken (try_module_get()) on
 *    ops that a failing init published keeps the module's memory until
 *    it is put; the failed load returns only then.
 */
#include <ktest.h>
#include <module.h>
#include <rcupdate.h>
#include <sched.h>
#include <spinlock.h>
#include <string.h>
#include <errno.h>
#include <time.h>
#include "modslow.h"
#include "module_test.h"

static struct modslow_ops __rcu *modslow_hook;	/* RCU-protected */
static DEFINE_SPINLOCK(modslow_lock);

void modslow_publish(struct modslow_ops *ops)
{
	spin_lock(&modslow_lock);
	rcu_assign_pointer(modslow_hook, ops);
	spin_unlock(&modslow_lock);
}
EXPORT_SYMBOL(modslow_publish);

void modslow_unpublish(struct modslow_ops *ops)
{
	spin_lock(&modslow_lock);
	if (rcu_dereference_protected(modslow_hook, lockdep_is_held(&modslow_lock)) == ops)
		RCU_INIT_POINTER(modslow_hook, NULL);
	spin_unlock(&modslow_lock);
}
EXPORT_SYMBOL(modslow_unpublish);

struct slow_load {
	const char *params;
	char err[QS_MODULE_ERRLEN];
};

static int load_slow(void *arg)
{
	struct slow_load *s = arg;

	return test_module_load("modslow", s->params, s->err);
}

/* Load modslowuser while modslow's init (init_ms=500) is 150 ms in. */
static void link_during_init(struct ktest_ctx *t, const char *params, int want)
{
	struct slow_load s = { .params = params };
	char err[QS_MODULE_ERRLEN];
	struct task *loader;
	int r, rs;

	loader = kthread_run(load_slow, &s, "modslow");
	KT_ASSERT(t, loader, "no thread");
	msleep(150);
	r = test_module_load("modslowuser", NULL, err);
	KT_EXPECT(t, r == -EBUSY && strstr(err, "modslow"),
		  "insmod modslowuser while modslow's init runs (%s): %d (%s), not -EBUSY naming "
		  "modslow", params, r, r ? err : "loaded");
	rs = kthread_join(loader);
	KT_EXPECT(t, rs == want, "insmod modslow %s: %d (%s), not %d", params, rs, s.err, want);
	if (r == 0) {
		/* The old bug: this exit calls into a module that may be freed. */
		kt_info("rmmod modslowuser after modslow %s", rs ? "failed" : "came up");
		KT_EXPECT(t, unload_module("modslowuser", 0, NULL) == 0, "rmmod modslowuser");
	}
}

KTEST(module_init_link_coming)
{
	struct test_module_baseline base;
	char err[QS_MODULE_ERRLEN];
	int r;

	test_module_baseline(&base);
	link_during_init(t, "init_ms=500 fail=5", -5);
	test_module_same(t, &base, "a failed init with a link attempt");

	link_during_init(t, "init_ms=500", 0);
	r = test_module_load("modslowuser", NULL, err);
	KT_EXPECT(t, r == 0, "insmod modslowuser once modslow is live: %d (%s)", r, err);
	if (!r) {
		r = unload_module("modslow", 0, NULL);
		KT_EXPECT(t, r == -EBUSY, "rmmod modslow while modslowuser uses it: %d", r);
		KT_EXPECT(t, unload_module("modslowuser", 0, NULL) == 0, "rmmod modslowuser");
	}
	KT_EXPECT(t, unload_module("modslow", 0, NULL) == 0, "rmmod modslow");
	test_module_same(t, &base, "a slow init with a link attempt");
}

KTEST(module_init_ref_failing)
{
	struct test_module_baseline base;
	struct slow_load s = { .params = "init_ms=300 fail=5 publish=1" };
	struct modslow_ops *ops;
	struct task *loader;
	struct module *owner = NULL;
	long answer;
	int rs;

	test_module_baseline(&base);
	loader = kthread_run(load_slow, &s, "modslow");
	KT_ASSERT(t, loader, "no thread");
	msleep(100);
	rcu_read_lock();
	ops = rcu_dereference(modslow_hook);
	if (ops && try_module_get(ops->owner))
		owner = ops->owner;
	rcu_read_unlock();
	KT_EXPECT(t, owner, "no reference on modslow's published ops 100 ms into its init");
	if (owner) {
		msleep(500);		/* its init has failed by now */
		answer = ops->answer();
		KT_EXPECT(t, answer == 42, "modslow's code through a held reference: %ld", answer);
		module_put(owner);
	}
	rs = kthread_join(loader);
	KT_EXPECT(t, rs == -5, "insmod modslow %s: %d (%s), not -5", s.params, rs, s.err);
	test_module_same(t, &base, "a failed init with a reference held");
}
