/*
 * CONFIG_PROVE_RCU (kernel/rcu/prove.c, docs/rcu/checking.md).
 *
 * prove_rcu_legal checks that legal uses give no report. The
 * KTEST_MANUAL ones commit one misuse each on purpose, so that the report
 * appears; tests/scenarios/prove-rcu-*.toml run each by name and name the
 * report in expect_console. Each also counts the reports (rcu_prove_reports(),
 * might_sleep_warnings()), so it fails if its check is removed.
 */
#include <ktest.h>
#include <rcupdate.h>
#include <rcu/read_side.h>
#include <mutex.h>
#include <spinlock.h>
#include <softirq.h>
#include <preempt.h>
#include <sched.h>
#include <atomic.h>
#include <printk.h>

struct prove_item {
	int val;
	struct rcu_head rcu;
};

static struct prove_item item_a = { .val = 1 }, item_b = { .val = 2 };
static struct prove_item __rcu *prove_gp = RCU_INITIALIZER(&item_a);
static DEFINE_MUTEX(prove_mutex);
static DEFINE_SPINLOCK(prove_other_lock);
static DEFINE_SPINLOCK(prove_lock);

static bool prove_on(struct ktest_ctx *t)
{
#ifdef CONFIG_PROVE_RCU
	return true;
#else
	ktest_skip(t, "CONFIG_PROVE_RCU is off in this build");
	return false;
#endif
}

/* Every accessor in the context it names: no report at all. */
KTEST(prove_rcu_legal)
{
	unsigned long r0 = rcu_prove_reports();
	struct prove_item *p;
	int sum = 0;

	if (!prove_on(t))
		return;
	KT_EXPECT(t, !rcu_read_lock_held(), "a ktest thread is not a reader");
	KT_EXPECT(t, !rcu_read_lock_bh_held(), "softirqs are on here");

	rcu_read_lock();
	KT_EXPECT(t, rcu_read_lock_held(), "inside rcu_read_lock()");
	p = rcu_dereference(prove_gp);
	sum += p->val;
	rcu_read_unlock();

	rcu_read_lock_bh();
	KT_EXPECT(t, rcu_read_lock_bh_held(), "inside rcu_read_lock_bh()");
	sum += rcu_dereference_bh(prove_gp)->val;
	rcu_read_unlock_bh();

	preempt_disable();
	KT_EXPECT(t, rcu_read_lock_sched_held(), "preemption off");
	sum += rcu_dereference_sched(prove_gp)->val;
	preempt_enable();

	/* The update side: a mutex holder may sleep, so it is no reader; the
	 * lock is its reason, stated in the condition. */
	mutex_lock(&prove_mutex);
	p = rcu_dereference_protected(prove_gp, mutex_is_locked(&prove_mutex));
	rcu_assign_pointer(prove_gp, p == &item_a ? &item_b : &item_a);
	sum += rcu_dereference_check(prove_gp, mutex_is_locked(&prove_mutex))->val;
	mutex_unlock(&prove_mutex);

	spin_lock(&prove_lock);		/* preemption off: an implicit section */
	sum += rcu_dereference(prove_gp)->val;
	spin_unlock(&prove_lock);

	KT_EXPECT(t, rcu_access_pointer(prove_gp) != NULL, "only the value, no section needed");
	KT_EXPECT(t, sum > 0, "sum %d", sum);
	KT_EXPECT(t, rcu_prove_reports() == r0, "%lu reports from legal uses",
		  rcu_prove_reports() - r0);
	KT_EXPECT(t, rcu_read_depth() == 0, "depth %d left behind", rcu_read_depth());
}

static atomic_t prove_cb_runs;

static void prove_cb(void *arg)
{
	atomic_inc(&prove_cb_runs);
}

/* A head may be queued again once its callback has started. */
KTEST(prove_rcu_call_rcu_requeue)
{
	static struct rcu_head head;
	unsigned long r0 = rcu_prove_reports();

	if (!prove_on(t))
		return;
	atomic_set(&prove_cb_runs, 0);
	call_rcu(&head, prove_cb, NULL);
	rcu_barrier();
	call_rcu(&head, prove_cb, NULL);
	rcu_barrier();
	KT_EXPECT(t, atomic_read(&prove_cb_runs) == 2, "%d runs", atomic_read(&prove_cb_runs));
	KT_EXPECT(t, rcu_prove_reports() == r0, "a re-queue after the callback was reported");
}

/* ---- Misuse on purpose: one report each (run by name). */

KTEST_MANUAL(prove_rcu_deref_outside)
{
	unsigned long r0 = rcu_prove_reports();
	struct prove_item *p;

	if (!prove_on(t))
		return;
	p = rcu_dereference(prove_gp);		/* BUG: no rcu_read_lock() */
	KT_EXPECT(t, p != NULL, "the load still happens");
	KT_EXPECT(t, rcu_prove_reports() == r0 + 1, "%lu reports, expected 1",
		  rcu_prove_reports() - r0);
	/* The update side without the lock it names. */
	p = rcu_dereference_protected(prove_gp, mutex_is_locked(&prove_mutex));
	KT_EXPECT(t, rcu_prove_reports() == r0 + 2, "protected without its lock: %lu reports",
		  rcu_prove_reports() - r0);
	/* The wrong lock held: the report's held-lock list names it. */
	spin_lock(&prove_other_lock);
	p = rcu_dereference_protected(prove_gp, lockdep_is_held(&prove_mutex));
	spin_unlock(&prove_other_lock);
	KT_EXPECT(t, rcu_prove_reports() == r0 + 3, "protected under the wrong lock: %lu reports",
		  rcu_prove_reports() - r0);
}

KTEST_MANUAL(prove_rcu_sleep_in_reader)
{
	unsigned long w0 = might_sleep_warnings();

	if (!prove_on(t))
		return;
	rcu_read_lock();
	synchronize_rcu();			/* BUG: blocks inside the section */
	rcu_read_unlock();
	KT_EXPECT(t, might_sleep_warnings() > w0, "%lu might_sleep warnings, expected some",
		  might_sleep_warnings() - w0);
}

KTEST_MANUAL(prove_rcu_unbalanced_unlock)
{
	unsigned long r0 = rcu_prove_reports();

	if (!prove_on(t))
		return;
	rcu_read_unlock();			/* BUG: no rcu_read_lock() */
	KT_EXPECT(t, rcu_prove_reports() == r0 + 1, "%lu reports, expected 1",
		  rcu_prove_reports() - r0);
	KT_EXPECT(t, rcu_read_depth() == 0, "depth %d after the fix-up", rcu_read_depth());
	KT_EXPECT(t, preempt_count() == 0, "preempt_count %x after the fix-up", preempt_count());
}

static int prove_leaky_thread(void *arg)
{
	rcu_read_lock();			/* BUG: never unlocked */
	return 0;
}

KTEST_MANUAL(prove_rcu_exit_in_reader)
{
	unsigned long r0 = rcu_prove_reports();
	struct task *p;

	if (!prove_on(t))
		return;
	p = kthread_run(prove_leaky_thread, NULL, "prove_leaky");
	KT_ASSERT(t, p != NULL, "kthread_run");
	kthread_join(p);
	KT_EXPECT(t, rcu_prove_reports() == r0 + 1, "%lu reports, expected 1",
		  rcu_prove_reports() - r0);
}

KTEST_MANUAL(prove_rcu_double_call_rcu)
{
	static struct rcu_head head;
	unsigned long r0 = rcu_prove_reports();

	if (!prove_on(t))
		return;
	atomic_set(&prove_cb_runs, 0);
	call_rcu(&head, prove_cb, NULL);
	call_rcu(&head, prove_cb, NULL);	/* BUG: still queued */
	rcu_barrier();
	KT_EXPECT(t, rcu_prove_reports() == r0 + 1, "%lu reports, expected 1",
		  rcu_prove_reports() - r0);
	KT_EXPECT(t, atomic_read(&prove_cb_runs) == 1, "the callback ran %d times",
		  atomic_read(&prove_cb_runs));
}
