/*
 * CONFIG_PROVE_RCU for SRCU (include/srcu.h, kernel/rcu/srcu.c,
 * docs/rcu/checking.md): srcu_dereference(p, &ss) asks whether the calling
 * task holds a read lock of that domain, ss, not of any other domain and
 * not some other task's.
 *
 *   ktest=prove_rcu_srcu_legal     (run by every prove-rcu-legal-* case,
 *       through ktest=prove_rcu_*): loads inside the domain's section, a
 *       sleep there and a grace period of another domain give no report.
 *   ktest=prove_rcu_srcu_deref_outside   (KTEST_MANUAL; scenario
 *       prove-srcu-deref-tree): three loads that are each reported once:
 *       with no section, inside another domain's section only, and while
 *       another task sleeps inside the right domain's section (which the
 *       counters alone would have taken for a reader); and a sleep inside
 *       rcu_read_lock() nested in an SRCU section, which might_sleep()
 *       reports although the SRCU section alone would allow it.
 */
#include <ktest.h>
#include <srcu.h>
#include <mutex.h>
#include <sched.h>
#include <time.h>
#include <printk.h>

struct prove_srcu_item {
	int val;
};

static struct prove_srcu_item srcu_item = { .val = 7 };
static struct prove_srcu_item __rcu *prove_srcu_gp = RCU_INITIALIZER(&srcu_item);
static struct srcu_struct prove_ss_a, prove_ss_b;
static bool prove_srcu_ready;
static DEFINE_MUTEX(prove_srcu_mutex);

static bool prove_srcu_setup(struct ktest_ctx *t)
{
#ifndef CONFIG_PROVE_RCU
	ktest_skip(t, "CONFIG_PROVE_RCU is off in this build");
	return false;
#endif
	if (!prove_srcu_ready) {
		KT_EXPECT(t, init_srcu_struct(&prove_ss_a, "prove_a") == 0, "init a");
		KT_EXPECT(t, init_srcu_struct(&prove_ss_b, "prove_b") == 0, "init b");
		prove_srcu_ready = true;
	}
	return prove_srcu_ready;
}

KTEST(prove_rcu_srcu_legal)
{
	unsigned long r0 = rcu_prove_reports(), w0 = might_sleep_warnings();
	int idx_a, idx_b, sum = 0;

	if (!prove_srcu_setup(t))
		return;
	KT_EXPECT(t, !srcu_read_lock_held(&prove_ss_a), "no section of a yet");
	idx_a = srcu_read_lock(&prove_ss_a);
	KT_EXPECT(t, srcu_read_lock_held(&prove_ss_a), "inside a's section");
	KT_EXPECT(t, !srcu_read_lock_held(&prove_ss_b), "a's section taken for b's");
	sum += srcu_dereference(prove_srcu_gp, &prove_ss_a)->val;
	/* Sleeping is what SRCU readers may do, and another domain's grace
	 * period does not wait for this one's readers. */
	schedule_timeout_uninterruptible(1);
	synchronize_srcu(&prove_ss_b);
	sum += srcu_dereference(prove_srcu_gp, &prove_ss_a)->val;
	/* Nested, in both orders of unlock. */
	idx_b = srcu_read_lock(&prove_ss_b);
	sum += srcu_dereference(prove_srcu_gp, &prove_ss_b)->val;
	srcu_read_unlock(&prove_ss_a, idx_a);
	KT_EXPECT(t, !srcu_read_lock_held(&prove_ss_a) && srcu_read_lock_held(&prove_ss_b),
		  "after unlocking a out of order");
	srcu_read_unlock(&prove_ss_b, idx_b);
	KT_EXPECT(t, !srcu_read_lock_held(&prove_ss_b), "b still held after its unlock");
	/* The update side, its lock as the reason. */
	mutex_lock(&prove_srcu_mutex);
	sum += srcu_dereference_check(prove_srcu_gp, &prove_ss_a,
				      lockdep_is_held(&prove_srcu_mutex))->val;
	mutex_unlock(&prove_srcu_mutex);
	KT_EXPECT(t, sum == 4 * 7, "sum %d", sum);
	KT_EXPECT(t, rcu_prove_reports() == r0, "%lu reports from legal SRCU uses",
		  rcu_prove_reports() - r0);
	KT_EXPECT(t, might_sleep_warnings() == w0, "%lu might_sleep warnings inside an SRCU section",
		  might_sleep_warnings() - w0);
	KT_EXPECT(t, current->srcu_held_depth == 0, "depth %u left behind", current->srcu_held_depth);
}

static volatile int prove_srcu_sleeper_state;	/* 1 inside a's section, 2 done */

static int prove_srcu_sleeper(void *arg)
{
	int idx = srcu_read_lock(&prove_ss_a);

	WRITE_ONCE(prove_srcu_sleeper_state, 1);
	while (READ_ONCE(prove_srcu_sleeper_state) == 1)
		schedule_timeout_uninterruptible(1);
	srcu_read_unlock(&prove_ss_a, idx);
	return 0;
}

KTEST_MANUAL(prove_rcu_srcu_deref_outside)
{
	unsigned long r0 = rcu_prove_reports(), w0 = might_sleep_warnings();
	struct prove_srcu_item *p;
	struct task *sleeper;
	int idx;

	if (!prove_srcu_setup(t))
		return;
	p = srcu_dereference(prove_srcu_gp, &prove_ss_a);	/* BUG: no section */
	KT_EXPECT(t, p != NULL && rcu_prove_reports() == r0 + 1,
		  "no section: %lu reports, expected 1", rcu_prove_reports() - r0);

	idx = srcu_read_lock(&prove_ss_b);
	p = srcu_dereference(prove_srcu_gp, &prove_ss_a);	/* BUG: b's section, not a's */
	srcu_read_unlock(&prove_ss_b, idx);
	KT_EXPECT(t, rcu_prove_reports() == r0 + 2,
		  "another domain's section: %lu reports, expected 2", rcu_prove_reports() - r0);

	WRITE_ONCE(prove_srcu_sleeper_state, 0);
	sleeper = kthread_run(prove_srcu_sleeper, NULL, "prove_srcu_sleeper");
	while (READ_ONCE(prove_srcu_sleeper_state) == 0)
		schedule_timeout_uninterruptible(1);
	KT_EXPECT(t, srcu_readers_active(&prove_ss_a), "the sleeper's section is not counted");
	p = srcu_dereference(prove_srcu_gp, &prove_ss_a);	/* BUG: its section, not ours */
	WRITE_ONCE(prove_srcu_sleeper_state, 2);
	kthread_join(sleeper);
	KT_EXPECT(t, rcu_prove_reports() == r0 + 3,
		  "another task's section: %lu reports, expected 3", rcu_prove_reports() - r0);

	/* An SRCU section allows a sleep; an RCU section inside it does not. */
	idx = srcu_read_lock(&prove_ss_a);
	schedule_timeout_uninterruptible(1);
	KT_EXPECT(t, might_sleep_warnings() == w0, "a sleep inside srcu_read_lock() was reported");
	rcu_read_lock();
	synchronize_srcu(&prove_ss_b);			/* BUG: blocks inside rcu_read_lock() */
	rcu_read_unlock();
	srcu_read_unlock(&prove_ss_a, idx);
	KT_EXPECT(t, might_sleep_warnings() > w0, "a sleep inside rcu_read_lock() was not reported");
	(void)p;
}
