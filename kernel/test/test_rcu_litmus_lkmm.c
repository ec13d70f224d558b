/*
 * The Linux-kernel memory model's RCU litmus patterns, run on the real
 * kernel (make litmus; docs/rcu/litmus.md). Each pattern's herd7 file,
 * with the verdict herd7 gives it under the model's linux-kernel.cat, is
 * beside this file in kernel/test/litmus/; each test here runs the
 * pattern's two threads on CPUs 0 and 1 until litmus.iters outcomes or
 * litmus.lkmm_seconds, and counts the outcome the model forbids.
 *
 *   lkmm_rcu_sync_read   RCU+sync+read: the reader loads x then y inside
 *                        one section; the updater stores x, waits for a
 *                        grace period, stores y. Seeing the new y but the
 *                        old x means the section spanned a whole grace
 *                        period: the model's RCU axiom (a grace period
 *                        ends after every section that began before it).
 *   lkmm_rcu_sync_free   RCU+sync+free: the updater publishes a new
 *                        element, waits, and only then poisons the old
 *                        one; a reader that picked up the old pointer
 *                        must never see the poison. The same axiom, from
 *                        the side of memory reuse.
 *   lkmm_mp_onceassign   MP+onceassign+derefonce: rcu_assign_pointer()
 *                        publishes an initialized element, the reader's
 *                        rcu_dereference() must see the initialization.
 *                        The model's release/dependency ordering, not
 *                        the grace period: no variant bug can show it, and
 *                        on x86 (TSO) it is forbidden by the hardware.
 *
 * The threads do not run in lock-step for the two grace-period patterns:
 * the reader runs section after section while the updater waits for one
 * grace period after another, and the values stored are the updater's
 * round numbers, so one run tests thousands of sections against each
 * grace period. litmus.expect=forbidden turns the verdict round: the test
 * passes only if the forbidden outcome appeared (the busted variant,
 * rcu_break=1), so make litmus shows the tests can fail.
 *
 * These are KTEST_MANUAL (named exactly on the command line): a grace
 * period per round makes them slow for ktest=*.
 */
#include <ktest.h>
#include <cmdline.h>
#include <rcupdate.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <string.h>
#include <printk.h>
#include <arch/cpu.h>

static unsigned long lkmm_iters = 1000000;
CMDLINE_ULONG("litmus.lkmm_iters", lkmm_iters, 1000, 100000000,
	      "litmus.lkmm_iters=N: outcomes (reader sections) per memory-model litmus test "
	      "(default 1000000)");
static unsigned long lkmm_seconds = 5;
CMDLINE_ULONG("litmus.lkmm_seconds", lkmm_seconds, 1, 3600,
	      "litmus.lkmm_seconds=S: time budget of each memory-model litmus test (default 5)");

static bool lkmm_expect_forbidden;
static int set_lkmm_expect(const char *val)
{
	if (!strcmp(val, "forbidden"))
		lkmm_expect_forbidden = true;
	else if (!strcmp(val, "never"))
		lkmm_expect_forbidden = false;
	else
		return -1;
	return 0;
}
CMDLINE_PARAM("litmus.expect", set_lkmm_expect,
	      "litmus.expect=never|forbidden: the memory-model litmus tests pass when the "
	      "forbidden outcome never appears (default), or only when it does");

enum lkmm_kind { SYNC_READ, SYNC_FREE, MP_ONCE };
static const char *const lkmm_name[] = { "RCU+sync+read", "RCU+sync+free",
					 "MP+onceassign+derefonce" };

/* SYNC_FREE reuses an element LKMM_SLOTS - 1 rounds after freeing it, so
 * the poison stays long enough for a late reader to see it. */
#define LKMM_SLOTS	16

struct lkmm_elem {
	long val;			/* the round that initialized it; 0 once freed */
};

static struct {
	enum lkmm_kind kind;
	u64 deadline_ns;
	volatile bool stop;
	volatile long x, y;		/* SYNC_READ */
	struct lkmm_elem slot[LKMM_SLOTS];	/* SYNC_FREE, MP_ONCE */
	struct lkmm_elem __rcu *p;
	volatile long go, done;		/* MP_ONCE's lock-step */
	long outcomes, forbidden, rounds;
} lk;

/* A varying short wait: the reader's section spans some of the updater's steps. */
static void lkmm_delay(unsigned long *seed)
{
	unsigned long x = *seed = *seed * 6364136223846793005UL + 1442695040888963407UL;

	/*
	 * Now and then a section long enough for a whole grace period of a
	 * tick-driven variant (several ticks): the one a broken grace period
	 * would end inside.
	 */
	if (!((x >> 33) % 8))
		udelay(10000 + (x >> 40) % 70000);
	else
		for (volatile long n = (x >> 40) % 200; n > 0; n--)
			;
}

static int lkmm_reader(void *arg)
{
	unsigned long seed = 12345;

	while (!READ_ONCE(lk.stop) && lk.outcomes < (long)lkmm_iters) {
		long r0, r1;
		struct lkmm_elem *q;

		rcu_read_lock();
		if (lk.kind == SYNC_READ) {
			r0 = READ_ONCE(lk.x);
			lkmm_delay(&seed);
			r1 = READ_ONCE(lk.y);
			/* y of round r1 is stored only after x of round r1 and a grace period. */
			if (r0 < r1)
				lk.forbidden++;
		} else {
			q = rcu_dereference(lk.p);
			lkmm_delay(&seed);
			if (READ_ONCE(q->val) == 0)	/* freed under the reader */
				lk.forbidden++;
		}
		rcu_read_unlock();
		lk.outcomes++;
		/*
		 * A quiescent state between sections: in a kernel without
		 * preemption the updater's grace period waits for one.
		 */
		cond_resched();
		if (!(lk.outcomes % 64) && ktime_get_ns() > lk.deadline_ns)
			break;
	}
	WRITE_ONCE(lk.stop, true);
	return 0;
}

static int lkmm_updater(void *arg)
{
	for (long i = 1; !READ_ONCE(lk.stop); i++) {
		if (lk.kind == SYNC_READ) {
			WRITE_ONCE(lk.x, i);
			synchronize_rcu();
			WRITE_ONCE(lk.y, i);
		} else {
			struct lkmm_elem *old = rcu_dereference_protected(lk.p, 1);
			struct lkmm_elem *new = &lk.slot[i % LKMM_SLOTS];

			WRITE_ONCE(new->val, i);
			rcu_assign_pointer(lk.p, new);
			synchronize_rcu();
			WRITE_ONCE(old->val, 0);	/* the free */
		}
		lk.rounds = i;
		if (ktime_get_ns() > lk.deadline_ns)
			WRITE_ONCE(lk.stop, true);
	}
	return 0;
}

/* MP_ONCE, lock-step: round i publishes slot[i & 1] with val i. */
static int lkmm_mp_reader(void *arg)
{
	for (long i = 1; ; i++) {
		struct lkmm_elem *want = &lk.slot[i & 1], *q;
		long r;

		while (READ_ONCE(lk.go) < i && !READ_ONCE(lk.stop))
			cpu_relax();
		if (READ_ONCE(lk.stop))
			break;
		do {
			rcu_read_lock();
			q = rcu_dereference(lk.p);
			r = READ_ONCE(q->val);
			rcu_read_unlock();
		} while (q != want && !READ_ONCE(lk.stop));
		if (q == want && r != i)
			lk.forbidden++;
		lk.outcomes++;
		WRITE_ONCE(lk.done, i);
	}
	return 0;
}

static int lkmm_mp_writer(void *arg)
{
	for (long i = 1; i <= (long)lkmm_iters; i++) {
		struct lkmm_elem *s = &lk.slot[i & 1];

		while (READ_ONCE(lk.done) < i - 1)
			cpu_relax();
		if ((i % 64) == 0 && ktime_get_ns() > lk.deadline_ns)
			break;
		WRITE_ONCE(s->val, 0);		/* stale until published again */
		WRITE_ONCE(lk.go, i);
		WRITE_ONCE(s->val, i);
		rcu_assign_pointer(lk.p, s);
		lk.rounds = i;
	}
	while (READ_ONCE(lk.done) < lk.rounds)
		cpu_relax();
	WRITE_ONCE(lk.stop, true);
	return 0;
}

static void lkmm_run(struct ktest_ctx *t, enum lkmm_kind kind)
{
	struct task *a, *b;
	u64 t0 = ktime_get_ns();

	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs two CPUs");
		return;
	}
	memset(&lk, 0, sizeof(lk));
	lk.kind = kind;
	lk.deadline_ns = t0 + lkmm_seconds * NSEC_PER_SEC;
	lk.slot[0].val = 1;
	rcu_assign_pointer(lk.p, &lk.slot[0]);
	if (kind == MP_ONCE) {
		lk.slot[0].val = 0;
		a = kthread_create_on_cpu(lkmm_mp_reader, NULL, 0, "lkmm_reader");
		b = kthread_create_on_cpu(lkmm_mp_writer, NULL, 1, "lkmm_writer");
	} else {
		a = kthread_create_on_cpu(lkmm_reader, NULL, 0, "lkmm_reader");
		b = kthread_create_on_cpu(lkmm_updater, NULL, 1, "lkmm_updater");
	}
	if (!a || !b) {
		KT_EXPECT(t, false, "no memory for the litmus threads");
		return;
	}
	wake_up_process(a);
	wake_up_process(b);
	kthread_join(b);
	kthread_join(a);
	printk("litmus: %s on %s: %ld of %ld outcomes forbidden, %ld updater rounds, %lu ms "
	       "(herd7: Never)\n", lkmm_name[kind], rcu_variant_name(), lk.forbidden,
	       lk.outcomes, lk.rounds, (unsigned long)((ktime_get_ns() - t0) / 1000000));
	if (lkmm_expect_forbidden)
		KT_EXPECT(t, lk.forbidden > 0, "%s: the forbidden outcome never appeared, "
			  "though litmus.expect=forbidden", lkmm_name[kind]);
	else
		KT_EXPECT(t, lk.forbidden == 0, "%s: %ld outcomes the memory model forbids",
			  lkmm_name[kind], lk.forbidden);
}

KTEST_MANUAL(lkmm_rcu_sync_read)
{
	lkmm_run(t, SYNC_READ);
}

KTEST_MANUAL(lkmm_rcu_sync_free)
{
	lkmm_run(t, SYNC_FREE);
}

KTEST_MANUAL(lkmm_mp_onceassign)
{
	lkmm_run(t, MP_ONCE);
}
