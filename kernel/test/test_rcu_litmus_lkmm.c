/*
 * The Linux-kernel memory model's RCU litmus patterns, run on the real
 * kernel (make litmus; docs/rcu/torture.md). Each pattern's herd7 file,
 * with the verdict herd7 gives it under the model's linux-kernel.cat, is
 * beside this file in kernel/test/litmus/; each test here runs the
 * pattern's threads on CPUs 0 and 1 (the reader on 1) until
 * litmus.lkmm_iters outcomes or litmus.lkmm_seconds, and counts the
 * outcome the model forbids.
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
 *   lkmm_rcu_sync_write  RCU+sync+write: the reader's section stores x
 *                        then y; the updater loads x, waits for a grace
 *                        period, loads y. Seeing the section's x but an
 *                        older y means the grace period ended inside a
 *                        section that had begun before it: the RCU axiom
 *                        with the section on the writing side.
 *   lkmm_rcu_2sync_read  RCU+sync+sync+read: three threads, two grace
 *                        periods chained through a second updater (the
 *                        first stores x, waits, stores y; the second sees
 *                        y, waits, stores z); a section that sees z must
 *                        see x. The counting rule (a cycle with at least
 *                        as many grace periods as sections is forbidden)
 *                        with two grace periods on two CPUs.
 *   lkmm_rcu_split_read  RCU+sync+read with its two loads in two
 *                        sections: herd7 says Sometimes (no section
 *                        spans the grace period), so this is the control
 *                        that the harness sees the outcome when the model
 *                        allows it; it counts, and never fails.
 *
 * The threads do not run in lock-step for the grace-period patterns:
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
#include <completion.h>
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

enum lkmm_kind { SYNC_READ, SYNC_FREE, MP_ONCE, SYNC_WRITE, SYNC2_READ, SPLIT_READ };
static const char *const lkmm_name[] = { "RCU+sync+read", "RCU+sync+free",
					 "MP+onceassign+derefonce", "RCU+sync+write",
					 "RCU+sync+sync+read", "RCU+sync+read-split" };
/* What herd7 answers for each pattern's exists clause (kernel/test/litmus/). */
static const char *const lkmm_herd[] = { "Never", "Never", "Never", "Never", "Never",
					 "Sometimes" };

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
	volatile long x, y, z;		/* SYNC_READ, SYNC_WRITE, SYNC2_READ, SPLIT_READ */
	struct completion y_done, z_done;	/* SYNC2_READ's hand-off between updaters */
	struct lkmm_elem slot[LKMM_SLOTS];	/* SYNC_FREE, MP_ONCE */
	struct lkmm_elem __rcu *p;
	volatile long go, done;		/* MP_ONCE's lock-step */
	long outcomes, forbidden, rounds;
	u64 round_ns;			/* the updater's last round (lkmm_round_delay) */
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

/*
 * RCU+sync+write and RCU+sync+sync+read: the forbidden outcome needs one
 * section to span a whole updater round (one grace period, or two), which
 * on a slow variant (Tree RCU under TCG) is longer than lkmm_delay()'s
 * longest. So now and then a section of one to
 * two of the updater's recent rounds, at most 300 ms (well inside the
 * stall timeout): the section a broken grace period would end inside.
 */
static void lkmm_round_delay(unsigned long *seed)
{
	unsigned long x = *seed * 6364136223846793005UL + 1442695040888963407UL;
	u64 us = READ_ONCE(lk.round_ns) / 1000;

	if (!us || (x >> 33) % 8) {
		lkmm_delay(seed);
		return;
	}
	*seed = x;
	us += (x >> 40) % (us + 1);
	udelay(us < 300000 ? us : 300000);
}

static void lkmm_split_wait(unsigned long *seed)
{
	unsigned long x = *seed = *seed * 6364136223846793005UL + 1442695040888963407UL;
	u64 span = 3 * READ_ONCE(lk.round_ns), end;

	cond_resched();
	if (!span || ((x >> 33) & 1))
		return;
	end = ktime_get_ns() + span / 3 + (x >> 34) % span;
	while (ktime_get_ns() < end && !READ_ONCE(lk.stop))
		cond_resched();
}

static int lkmm_reader(void *arg)
{
	unsigned long seed = 12345;

	while (!READ_ONCE(lk.stop) && lk.outcomes < (long)lkmm_iters) {
		long r0, r1;
		struct lkmm_elem *q;

		rcu_read_lock();
		if (lk.kind == SYNC_READ || lk.kind == SYNC2_READ) {
			r0 = READ_ONCE(lk.x);
			if (lk.kind == SYNC_READ)
				lkmm_delay(&seed);
			else
				lkmm_round_delay(&seed);
			/*
			 * y (z) of round r1 is stored only after x of round
			 * r1 and one grace period (two, chained).
			 */
			r1 = lk.kind == SYNC_READ ? READ_ONCE(lk.y) : READ_ONCE(lk.z);
			if (r0 < r1)
				lk.forbidden++;
		} else if (lk.kind == SPLIT_READ) {
			r0 = READ_ONCE(lk.x);
			rcu_read_unlock();
			/*
			 * Between the sections, half the time, a wait of one
			 * to four of the updater's recent rounds, passing
			 * quiescent states (which a kernel without preemption
			 * needs to end a grace period): long enough, often,
			 * for x, a whole grace period and y to fit between
			 * the loads, whatever this variant's grace-period time.
			 */
			lkmm_split_wait(&seed);
			rcu_read_lock();
			r1 = READ_ONCE(lk.y);
			if (r0 < r1)
				lk.forbidden++;		/* allowed: counted, not failed */
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
		u64 t = ktime_get_ns();

		if (lk.kind == SYNC_READ || lk.kind == SPLIT_READ) {
			WRITE_ONCE(lk.x, i);
			synchronize_rcu();
			WRITE_ONCE(lk.y, i);
		} else if (lk.kind == SYNC2_READ) {
			WRITE_ONCE(lk.x, i);
			synchronize_rcu();
			WRITE_ONCE(lk.y, i);
			complete(&lk.y_done);
			/* The second updater's z = i, before the next x. */
			wait_for_completion(&lk.z_done);
		} else {
			struct lkmm_elem *old = rcu_dereference_protected(lk.p, 1);
			struct lkmm_elem *new = &lk.slot[i % LKMM_SLOTS];

			WRITE_ONCE(new->val, i);
			rcu_assign_pointer(lk.p, new);
			synchronize_rcu();
			WRITE_ONCE(old->val, 0);	/* the free */
		}
		lk.rounds = i;
		WRITE_ONCE(lk.round_ns, ktime_get_ns() - t);
		if (ktime_get_ns() > lk.deadline_ns)
			WRITE_ONCE(lk.stop, true);
	}
	return 0;
}

/*
 * SYNC2_READ's second updater: it sees the first one's y, waits for a
 * grace period of its own, stores z. It may share a CPU with the first
 * (a two-CPU boot): the two hand off through completions, so the chain
 * y -> grace period -> z is what the reader's section races against.
 */
static int lkmm_updater2(void *arg)
{
	for (;;) {
		long r;

		wait_for_completion(&lk.y_done);
		r = READ_ONCE(lk.y);
		if (READ_ONCE(lk.stop) && r == READ_ONCE(lk.z))
			break;
		synchronize_rcu();
		WRITE_ONCE(lk.z, r);
		complete(&lk.z_done);
	}
	return 0;
}

/*
 * SYNC_WRITE: section k stores x = k, waits, stores y = k; one outcome
 * per updater round: r1 = x; synchronize_rcu(); r2 = y. r1 = k means
 * section k had begun before the grace period, which must then wait for
 * its y = k: r2 < r1 is forbidden.
 */
static int lkmm_write_reader(void *arg)
{
	unsigned long seed = 12345;

	for (long k = 1; !READ_ONCE(lk.stop); k++) {
		rcu_read_lock();
		WRITE_ONCE(lk.x, k);
		lkmm_round_delay(&seed);
		WRITE_ONCE(lk.y, k);
		rcu_read_unlock();
		cond_resched();
	}
	return 0;
}

static int lkmm_read_updater(void *arg)
{
	while (lk.outcomes < (long)lkmm_iters && ktime_get_ns() < lk.deadline_ns) {
		long r1, r2;
		u64 t = ktime_get_ns();

		r1 = READ_ONCE(lk.x);
		synchronize_rcu();
		r2 = READ_ONCE(lk.y);
		WRITE_ONCE(lk.round_ns, ktime_get_ns() - t);
		if (r2 < r1)
			lk.forbidden++;
		lk.outcomes++;
		lk.rounds++;
	}
	WRITE_ONCE(lk.stop, true);
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
		/*
		 * Both threads spin for the whole run: without a quiescent
		 * state now and then, a grace period another test left
		 * pending outlasts the stall timeout in a kernel without
		 * preemption (make litmus's 10 s runs).
		 */
		if (!(i % 64))
			cond_resched();
	}
	return 0;
}

static int lkmm_mp_writer(void *arg)
{
	for (long i = 1; i <= (long)lkmm_iters; i++) {
		struct lkmm_elem *s = &lk.slot[i & 1];

		while (READ_ONCE(lk.done) < i - 1)
			cpu_relax();
		if ((i % 64) == 0) {
			if (ktime_get_ns() > lk.deadline_ns)
				break;
			cond_resched();		/* as the reader's */
		}
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
	struct task *a, *b, *c = NULL;
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
	init_completion(&lk.y_done);
	init_completion(&lk.z_done);
	if (kind == MP_ONCE) {
		lk.slot[0].val = 0;
		a = kthread_create_on_cpu(lkmm_mp_reader, NULL, 0, "lkmm_reader");
		b = kthread_create_on_cpu(lkmm_mp_writer, NULL, 1, "lkmm_writer");
	} else if (kind == SYNC_WRITE) {
		a = kthread_create_on_cpu(lkmm_write_reader, NULL, 1, "lkmm_reader");
		b = kthread_create_on_cpu(lkmm_read_updater, NULL, 0, "lkmm_updater");
	} else {
		/*
		 * The reader on CPU 1, not 0: a variant whose grace-period
		 * kthread lives on CPU 0 (Tree RCU's) cannot end a grace
		 * period while a reader there runs without preemption, so
		 * rcu_break=1 could never show the forbidden outcome.
		 */
		a = kthread_create_on_cpu(lkmm_reader, NULL, 1, "lkmm_reader");
		b = kthread_create_on_cpu(lkmm_updater, NULL, 0, "lkmm_updater");
	}
	if (kind == SYNC2_READ)
		c = kthread_create_on_cpu(lkmm_updater2, NULL, num_online_cpus() > 2 ? 2 : 0,
					  "lkmm_updater2");
	if (!a || !b || (kind == SYNC2_READ && !c)) {
		KT_EXPECT(t, false, "no memory for the litmus threads");
		return;
	}
	wake_up_process(a);
	wake_up_process(b);
	if (c)
		wake_up_process(c);
	kthread_join(b);
	if (c) {
		/* The first updater has stopped; let the second see it. */
		complete(&lk.y_done);
		kthread_join(c);
	}
	kthread_join(a);
	printk("litmus: %s on %s: %ld of %ld outcomes forbidden, %ld updater rounds, %lu ms "
	       "(herd7: %s)\n", lkmm_name[kind], rcu_variant_name(), lk.forbidden,
	       lk.outcomes, lk.rounds, (unsigned long)((ktime_get_ns() - t0) / 1000000),
	       lkmm_herd[kind]);
	if (kind == SPLIT_READ)
		return;		/* the model allows it: a count, not a verdict */
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

KTEST_MANUAL(lkmm_rcu_sync_write)
{
	lkmm_run(t, SYNC_WRITE);
}

KTEST_MANUAL(lkmm_rcu_2sync_read)
{
	lkmm_run(t, SYNC2_READ);
}

KTEST_MANUAL(lkmm_rcu_split_read)
{
	lkmm_run(t, SPLIT_READ);
}
