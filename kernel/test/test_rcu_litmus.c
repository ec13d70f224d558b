/*
 * Store-buffering litmus tests: does x86 (and QEMU's TCG, which runs
 * guest stores as host stores) let a CPU's load pass its own earlier
 * store, and does the RCU variant built in survive it?
 *
 *   litmus_sb_plain   the textbook pattern, no fences: CPU A stores x then
 *                     loads y, CPU B stores y then loads x; "both loads see
 *                     0" is the outcome x86 allows. Counted and printed,
 *                     never asserted: it shows the platform can reorder.
 *   litmus_sb_fenced  the same with smp_mb() between store and load on
 *                     both sides: the outcome must never appear.
 *   litmus_rcu_qs     the pattern of a polling variant's quiescent-state
 *                     counter (seed 000 Figure 19 against Figures 40-41):
 *                     CPU A runs the variant's real context-switch hook (the
 *                     counter bump) and then starts a "reader" that loads
 *                     a published pointer; CPU B, the updater, stores the
 *                     pointer's replacement, runs smp_mb() as Figure 40's
 *                     rcu_prepare_polling() does, and snapshots A's
 *                     counter. If A's reader saw the old pointer, B must
 *                     have seen A's bump: otherwise the poller would credit
 *                     that bump, which came before the reader, as a
 *                     quiescent state after its snapshot and end the grace
 *                     period under the reader. Runs on the variants that
 *                     read remote counters (rcu_variant_remote_qs_counter()).
 *
 * Each iteration lines the two CPUs up on a shared go counter, then each
 * does its two accesses at once; a result array is checked afterwards.
 */
#include <ktest.h>
#include <cmdline.h>
#include <rcupdate.h>
#include <rcu_hooks.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <string.h>
#include <printk.h>
#include <arch/cpu.h>
#include <rcu_test.h>

/*
 * Iterations per test: enough that even make test's 100,000
 * (litmus.iters=100000) see the forbidden outcome many times over on a
 * kernel without the rcu-poll family's fence (docs/rcu/poll.md, note 6);
 * the default is what make mutants and a hand run use.
 */
static unsigned long litmus_iters = 500000;
CMDLINE_ULONG("litmus.iters", litmus_iters, 1000, 100000000,
	      "litmus.iters=N: iterations of each store-buffering litmus test (default 500000)");

/*
 * And a time budget per test. Each iteration lines two vCPUs up, which on
 * a host with fewer free cores than vCPUs means each waits for the other
 * to be scheduled (docs/rcu/poll.md has the cost). The test stops at the
 * budget, says how far it got, and judges what it ran.
 */
static unsigned long litmus_seconds = 20;
CMDLINE_ULONG("litmus.seconds", litmus_seconds, 1, 3600,
	      "litmus.seconds=S: stop each litmus test after S seconds if its iterations "
	      "are not done (default 20)");

enum litmus_kind { SB_PLAIN, SB_FENCED, RCU_QS };

struct litmus {
	enum litmus_kind kind;
	unsigned int cpu_a, cpu_b;
	long iters;
	u64 deadline_ns;		/* B stops starting iterations here */
	volatile long stop;		/* the last iteration, once B stopped early */
	volatile long go;		/* iteration both may start */
	volatile long done_a, done_b;	/* iteration each has finished */
	volatile long x, y;		/* the two locations */
	long *qs;			/* RCU_QS: A's counter */
	long weird;			/* forbidden (or, plain: reordered) outcomes */
	long a_saw_old, b_saw_old;
};

static struct litmus lt;

/* A: store then load (the bump, then the reader's first load). */
static int litmus_a(void *arg)
{
	for (long i = 1; i <= lt.iters; i++) {
		long r;

		while (READ_ONCE(lt.go) < i)
			cpu_relax();
		if (READ_ONCE(lt.stop))		/* B ran out of time: no iteration i */
			break;
		switch (lt.kind) {
		case SB_PLAIN:
			WRITE_ONCE(lt.x, i);
			r = READ_ONCE(lt.y);
			break;
		case SB_FENCED:
			WRITE_ONCE(lt.x, i);
			smp_mb();
			r = READ_ONCE(lt.y);
			break;
		default:
			rcu_hook_context_switch(true);	/* the variant's own bump */
			rcu_read_lock();
			r = READ_ONCE(lt.y);		/* the reader's load */
			rcu_read_unlock();
			break;
		}
		WRITE_ONCE(lt.a_saw_old, r != i);	/* before done_a, for the compiler too */
		WRITE_ONCE(lt.done_a, i);
	}
	return 0;
}

/*
 * A learns of `go` one cache-line transfer after B set it, so B waits a
 * little before its own accesses, a different while each iteration, so
 * that some iterations line the two CPUs' stores up within the time a
 * store sits in a store buffer.
 */
static void litmus_delay(long i)
{
	for (volatile long n = (i * 37) % 61; n > 0; n--)
		;
}

/* B: store then load (the updater's removal, the barrier, the snapshot). */
static void litmus_b_one(long i)
{
	long before = 0, r;

	if (lt.kind == RCU_QS)
		before = READ_ONCE(*lt.qs);	/* A is waiting for go: stable */
	while (READ_ONCE(lt.done_a) < i - 1)
		cpu_relax();
	if (lt.kind == RCU_QS)
		before = READ_ONCE(*lt.qs);
	WRITE_ONCE(lt.go, i);
	litmus_delay(i);	/* A sees go late: wait a varying while for it */
	switch (lt.kind) {
	case SB_PLAIN:
		WRITE_ONCE(lt.y, i);
		r = READ_ONCE(lt.x);
		lt.b_saw_old = r != i;
		break;
	case SB_FENCED:
		WRITE_ONCE(lt.y, i);
		smp_mb();
		r = READ_ONCE(lt.x);
		lt.b_saw_old = r != i;
		break;
	default:
		WRITE_ONCE(lt.y, i);		/* the removal */
		smp_mb();			/* Figure 40's barrier before the snapshots */
		r = READ_ONCE(*lt.qs);		/* the snapshot */
		lt.b_saw_old = r == before;
		break;
	}
	while (READ_ONCE(lt.done_a) < i)
		cpu_relax();
	if (READ_ONCE(lt.a_saw_old) && lt.b_saw_old)
		lt.weird++;
}

static int litmus_b(void *arg)
{
	for (long i = 1; i <= lt.iters; i++) {
		if (!(i % 64) && ktime_get_ns() > lt.deadline_ns) {
			while (READ_ONCE(lt.done_a) < i - 1)
				cpu_relax();
			WRITE_ONCE(lt.stop, i - 1);	/* before go: A reads it after */
			WRITE_ONCE(lt.go, i);
			return 0;
		}
		litmus_b_one(i);
	}
	return 0;
}

/* Run kind on the first two online CPUs; the count of both-old outcomes. */
static long litmus_run(struct ktest_ctx *t, enum litmus_kind kind, long iters)
{
	struct task *a, *b;
	u64 t0 = ktime_get_ns();

	memset(&lt, 0, sizeof(lt));
	lt.kind = kind;
	lt.iters = iters;
	lt.deadline_ns = t0 + litmus_seconds * NSEC_PER_SEC;
	lt.cpu_a = 0;
	lt.cpu_b = 1;
	if (kind == RCU_QS)
		lt.qs = rcu_variant_remote_qs_counter(lt.cpu_a);
	a = kthread_create_on_cpu(litmus_a, NULL, lt.cpu_a, "litmus_a");
	b = kthread_create_on_cpu(litmus_b, NULL, lt.cpu_b, "litmus_b");
	if (!a || !b) {
		KT_EXPECT(t, false, "no memory for the litmus threads");
		return -1;
	}
	wake_up_process(a);
	wake_up_process(b);
	kthread_join(b);
	kthread_join(a);
	kt_info("%s: %ld of %ld iterations saw both old values (%lu ms)%s",
		kind == SB_PLAIN ? "plain" : kind == SB_FENCED ? "fenced" : rcu_variant_name(),
		lt.weird, lt.stop ? lt.stop : iters,
		(unsigned long)((ktime_get_ns() - t0) / 1000000),
		lt.stop ? ", stopped at litmus.seconds" : "");
	return lt.weird;
}

static bool litmus_skip(struct ktest_ctx *t)
{
	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs two CPUs");
		return true;
	}
	return false;
}

KTEST(litmus_sb_plain)
{
	if (!litmus_skip(t))
		litmus_run(t, SB_PLAIN, litmus_iters);
}

KTEST(litmus_sb_fenced)
{
	if (litmus_skip(t))
		return;
	KT_EXPECT(t, litmus_run(t, SB_FENCED, litmus_iters) == 0,
		  "smp_mb() did not forbid store buffering");
}

KTEST(litmus_rcu_qs)
{
	if (litmus_skip(t))
		return;
	if (!rcu_variant_remote_qs_counter(0)) {
		ktest_skip(t, "this variant does not poll other CPUs' counters");
		return;
	}
	KT_EXPECT(t, litmus_run(t, RCU_QS, litmus_iters) == 0,
		  "a reader began after its CPU's counter bump, yet the poller's snapshot "
		  "missed the bump: a grace period could end under that reader");
}
