/*
 * The lock validator's tests (include/lockdep.h, docs/locking.md).
 *
 * lockdep_legal_* (ktest=lockdep_*) take locks in every legal way the
 * validator must stay quiet about: the same order many times, two locks
 * of one class with spin_lock_nested(), a reversed order through a
 * trylock, an interrupt-shared lock taken with interrupts off.
 *
 * Each lockdep_misuse_* test commits one misuse on purpose and checks the
 * report it prints, line by line, in the console log. The first report
 * turns the validator off, so each runs alone in its own boot
 * (KTEST_MANUAL; tests/scenarios/lockdep-*.toml name the report too).
 */
#include <ktest.h>
#include <lockdep.h>
#include <spinlock.h>
#include <rwlock.h>
#include <mutex.h>
#include <printk.h>
#include <string.h>
#include <smp.h>
#include <softirq.h>
#include <sched.h>
#include <time.h>
#include <kmalloc.h>

#define FILE_NAME	"kernel/test/test_lockdep.c"

static bool prove_locking(struct ktest_ctx *t)
{
#ifndef CONFIG_PROVE_LOCKING
	ktest_skip(t, "CONFIG_PROVE_LOCKING is off");
	return false;
#endif
	if (!debug_locks) {
		ktest_fail(t, __FILE__, __LINE__, "the validator was already off");
		return false;
	}
	return true;
}

/* The console log since `from`, as one string. */
static char log_copy[16384];

static const char *log_since(unsigned long from)
{
	unsigned long end = READ_ONCE(log_len), n = 0;

	if (end - from > sizeof(log_copy) - 1)
		from = end - (sizeof(log_copy) - 1);
	for (unsigned long i = from; i < end; i++)
		log_copy[n++] = log_buf[i % LOG_BUF_SIZE];
	log_copy[n] = 0;
	return log_copy;
}

/* Expect each of the NULL-terminated lines in the log since `from`. */
static void expect_report(struct ktest_ctx *t, unsigned long from, const char *const *lines)
{
	const char *log = log_since(from);

	KT_EXPECT(t, !debug_locks, "the validator is still on after the report");
	for (int i = 0; lines[i]; i++) {
		bool found = strstr(log, lines[i]) != NULL;

		KT_EXPECT(t, found, "report line missing: \"%s\"", lines[i]);
	}
}

#define LINE_OF(stmt)	({ int __l = __LINE__; stmt; __l; })

static char line_buf[8][160];

static const char *fmt_line(int i, const char *fmt, int line)
{
	snprintf(line_buf[i], sizeof(line_buf[i]), fmt, line);
	return line_buf[i];
}

/* ---- legal uses: no report ---- */

static DEFINE_SPINLOCK(legal_a);
static DEFINE_SPINLOCK(legal_b);
static DEFINE_SPINLOCK(legal_c);
static DEFINE_SPINLOCK(legal_irq);
static DEFINE_MUTEX(legal_mutex);
static spinlock_t legal_pair[2];

static void legal_pair_init(void)
{
	for (int i = 0; i < 2; i++)
		spin_lock_init(&legal_pair[i], "legal_pair");	/* one class */
}

static void take_irq_lock(void *arg)
{
	spin_lock(&legal_irq);		/* hard IRQ: interrupts are off */
	spin_unlock(&legal_irq);
}

KTEST(lockdep_legal_orders)
{
	if (!prove_locking(t))
		return;
	for (int i = 0; i < 3; i++) {
		spin_lock(&legal_a);
		spin_lock(&legal_b);
		spin_unlock(&legal_b);
		spin_unlock(&legal_a);
	}
	/* B then A through a trylock: it cannot wait, so it cannot deadlock. */
	spin_lock(&legal_b);
	if (spin_trylock(&legal_a))
		spin_unlock(&legal_a);
	spin_unlock(&legal_b);
	/* And a lock taken under that trylock: B -> C and A -> C, no cycle. */
	spin_lock(&legal_b);
	if (spin_trylock(&legal_a)) {
		spin_lock(&legal_c);
		spin_unlock(&legal_c);
		spin_unlock(&legal_a);
	}
	spin_unlock(&legal_b);
	/* Unlocked out of order: allowed. */
	spin_lock(&legal_a);
	spin_lock(&legal_b);
	spin_unlock(&legal_a);
	spin_unlock(&legal_b);
	/* Two locks of one class, in a fixed order, annotated. */
	legal_pair_init();
	spin_lock(&legal_pair[0]);
	spin_lock_nested(&legal_pair[1], SINGLE_DEPTH_NESTING);
	spin_unlock(&legal_pair[1]);
	spin_unlock(&legal_pair[0]);
	/* A mutex, then a spinlock inside it. */
	mutex_lock(&legal_mutex);
	spin_lock(&legal_a);
	spin_unlock(&legal_a);
	mutex_unlock(&legal_mutex);
	KT_EXPECT(t, debug_locks, "the validator reported a legal use");
}

KTEST(lockdep_legal_irq_shared)
{
	if (!prove_locking(t))
		return;
	if (num_online_cpus() > 1)
		smp_call_function_single(1, take_irq_lock, NULL, true);
	unsigned long flags = spin_lock_irqsave(&legal_irq);
	spin_unlock_irqrestore(&legal_irq, flags);
	spin_lock_irq(&legal_irq);
	spin_unlock_irq(&legal_irq);
	local_irq_disable();
	lockdep_assert_irqs_disabled();
	lockdep_assert_bh_disabled();	/* interrupts off: no softirq here */
	local_irq_enable();
	local_bh_disable();
	lockdep_assert_bh_disabled();
	local_bh_enable();
	KT_EXPECT(t, debug_locks, "the validator reported a legal use");
}

KTEST(lockdep_legal_is_held)
{
	if (!prove_locking(t))
		return;
	KT_EXPECT(t, !lockdep_is_held(&legal_a), "lockdep_is_held() true before spin_lock()");
	spin_lock(&legal_a);
	KT_EXPECT(t, lockdep_is_held(&legal_a), "lockdep_is_held() false under spin_lock()");
	lockdep_assert_held(&legal_a);
	spin_unlock(&legal_a);
	KT_EXPECT(t, !lockdep_is_held(&legal_a), "lockdep_is_held() true after spin_unlock()");
	mutex_lock(&legal_mutex);
	KT_EXPECT(t, lockdep_is_held(&legal_mutex), "lockdep_is_held() false under mutex_lock()");
	mutex_unlock(&legal_mutex);
	KT_EXPECT(t, debug_locks, "the validator reported a legal use");
}

/*
 * Prints the order graph the validator has learned, and fails if it
 * reported anything earlier in this boot: it runs after the tests of
 * kernel/ipc, kernel/rcu and kernel/sched chosen in the same run (link
 * order), so "ktest=torture_rcu,lockdep_graph" fails on a lock report.
 */
KTEST(lockdep_graph)
{
	if (!prove_locking(t))
		return;
	lockdep_print_graph();
}

/* ---- misuse: AB-BA ---- */

static DEFINE_SPINLOCK(lockdep_a);
static DEFINE_SPINLOCK(lockdep_b);

KTEST_MANUAL(lockdep_misuse_abba)
{
	if (!prove_locking(t))
		return;
	unsigned long from = READ_ONCE(log_len);
	int a1 = LINE_OF(spin_lock(&lockdep_a));
	int b1 = LINE_OF(spin_lock(&lockdep_b));
	spin_unlock(&lockdep_b);
	spin_unlock(&lockdep_a);
	/* The other order: never deadlocks here (one CPU), reported anyway. */
	int b2 = LINE_OF(spin_lock(&lockdep_b));
	int a2 = LINE_OF(spin_lock(&lockdep_a));
	spin_unlock(&lockdep_a);
	spin_unlock(&lockdep_b);

	const char *lines[] = {
		"WARNING: possible circular locking dependency detected",
		fmt_line(0, "lockdep: is trying to take lockdep_a at " FILE_NAME ":%d", a2),
		fmt_line(1, "lockdep: while holding lockdep_b taken at " FILE_NAME ":%d", b2),
		"lockdep: chain 1 (now): lockdep_b -> lockdep_a",
		"lockdep: chain 2 (seen before): lockdep_a -> lockdep_b",
		fmt_line(2, "lockdep:     lockdep_a held, taken at " FILE_NAME ":%d", a1),
		fmt_line(3, "lockdep:     lockdep_b then taken at " FILE_NAME ":%d", b1),
		"lockdep:   CPU0: lock(lockdep_b); ... lock(lockdep_a);  waits for CPU1",
		"lockdep: 1 lock held by init/",
		"lockdep: turning off the locking correctness validator.",
		NULL
	};
	expect_report(t, from, lines);
}

/* ---- misuse: AB-BA with a trylock in between ---- */

static DEFINE_SPINLOCK(lockdep_try_a);
static DEFINE_SPINLOCK(lockdep_try_b);
static DEFINE_SPINLOCK(lockdep_try_c);

/*
 * A, trylock B, C: the task waits for C while it holds A, so A -> C is an
 * order even though the lock just below C on the stack is B, which was
 * only tried. C then A later is an AB-BA deadlock with the first path.
 */
KTEST_MANUAL(lockdep_misuse_trylock_abba)
{
	if (!prove_locking(t))
		return;
	unsigned long from = READ_ONCE(log_len);
	int a1 = LINE_OF(spin_lock(&lockdep_try_a));

	if (!spin_trylock(&lockdep_try_b)) {		/* no one else takes it */
		spin_unlock(&lockdep_try_a);
		KT_ASSERT(t, false, "spin_trylock() of a free lock failed");
	}
	int c1 = LINE_OF(spin_lock(&lockdep_try_c));
	spin_unlock(&lockdep_try_c);
	spin_unlock(&lockdep_try_b);
	spin_unlock(&lockdep_try_a);
	/* The other order: never deadlocks here (one CPU), reported anyway. */
	int c2 = LINE_OF(spin_lock(&lockdep_try_c));
	int a2 = LINE_OF(spin_lock(&lockdep_try_a));
	spin_unlock(&lockdep_try_a);
	spin_unlock(&lockdep_try_c);

	const char *lines[] = {
		"WARNING: possible circular locking dependency detected",
		fmt_line(0, "lockdep: is trying to take lockdep_try_a at " FILE_NAME ":%d", a2),
		fmt_line(1, "lockdep: while holding lockdep_try_c taken at " FILE_NAME ":%d", c2),
		"lockdep: chain 1 (now): lockdep_try_c -> lockdep_try_a",
		"lockdep: chain 2 (seen before): lockdep_try_a -> lockdep_try_c",
		fmt_line(2, "lockdep:     lockdep_try_a held, taken at " FILE_NAME ":%d", a1),
		fmt_line(3, "lockdep:     lockdep_try_c then taken at " FILE_NAME ":%d", c1),
		"lockdep: turning off the locking correctness validator.",
		NULL
	};
	expect_report(t, from, lines);
}

/* ---- misuse: a lock taken in a hard IRQ and with interrupts on ---- */

static DEFINE_SPINLOCK(lockdep_irq);
static int irq_line;

static void take_in_irq(void *arg)
{
	irq_line = LINE_OF(spin_lock(&lockdep_irq));
	spin_unlock(&lockdep_irq);
}

KTEST_MANUAL(lockdep_misuse_irq_unsafe)
{
	if (!prove_locking(t))
		return;
	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs a second CPU to interrupt");
		return;
	}
	unsigned long from = READ_ONCE(log_len);
	smp_call_function_single(1, take_in_irq, NULL, true);
	int l = LINE_OF(spin_lock(&lockdep_irq));	/* interrupts on: the bug */
	spin_unlock(&lockdep_irq);

	const char *lines[] = {
		"WARNING: inconsistent lock state",
		"lockdep: inconsistent {IN-HARDIRQ} -> {HARDIRQ-ON} usage of lockdep_irq",
		"lockdep: lockdep_irq is taken with interrupts enabled",
		fmt_line(0, "lockdep:     at " FILE_NAME ":%d", l),
		"lockdep: but it was taken in a hard-IRQ handler by ",
		fmt_line(1, "lockdep:     at " FILE_NAME ":%d", irq_line),
		"lockdep:   CPU0: lock(lockdep_irq); <Interrupt> lock(lockdep_irq);",
		NULL
	};
	expect_report(t, from, lines);
}

/* ---- misuse: a lock taken in a softirq and with softirqs on ---- */

static DEFINE_SPINLOCK(lockdep_softirq);
static int softirq_line;

static void take_in_softirq(void)
{
	softirq_line = LINE_OF(spin_lock(&lockdep_softirq));
	spin_unlock(&lockdep_softirq);
}

KTEST_MANUAL(lockdep_misuse_softirq_unsafe)
{
	if (!prove_locking(t))
		return;
	unsigned long from = READ_ONCE(log_len);
	open_softirq(TEST_SOFTIRQ, take_in_softirq);
	local_bh_disable();
	raise_softirq(TEST_SOFTIRQ);
	local_bh_enable();			/* runs it here, in softirq context */
	KT_ASSERT(t, softirq_line, "the test softirq did not run");
	int l = LINE_OF(spin_lock(&lockdep_softirq));	/* should be spin_lock_bh() */
	spin_unlock(&lockdep_softirq);

	const char *lines[] = {
		"WARNING: inconsistent lock state",
		"lockdep: inconsistent {IN-SOFTIRQ} -> {SOFTIRQ-ON} usage of lockdep_softirq",
		fmt_line(0, "lockdep:     at " FILE_NAME ":%d", l),
		fmt_line(1, "lockdep:     at " FILE_NAME ":%d", softirq_line),
		"<Softirq> lock(lockdep_softirq);",
		NULL
	};
	expect_report(t, from, lines);
}

/* ---- misuse: a second lock of a class already held ---- */

static spinlock_t lockdep_twins[2];

KTEST_MANUAL(lockdep_misuse_recursion)
{
	if (!prove_locking(t))
		return;
	for (int i = 0; i < 2; i++)
		spin_lock_init(&lockdep_twins[i], "lockdep_twins");
	unsigned long from = READ_ONCE(log_len);
	int l0 = LINE_OF(spin_lock(&lockdep_twins[0]));
	int l1 = LINE_OF(spin_lock(&lockdep_twins[1]));	/* no spin_lock_nested() */
	spin_unlock(&lockdep_twins[1]);
	spin_unlock(&lockdep_twins[0]);

	const char *lines[] = {
		"WARNING: possible recursive locking detected",
		fmt_line(0, "lockdep: is trying to take lockdep_twins at " FILE_NAME ":%d", l1),
		fmt_line(1, "lockdep: while already holding a lock of the same class, "
			 "lockdep_twins taken at " FILE_NAME ":%d", l0),
		"lockdep: possible deadlock: lock(lockdep_twins); lock(lockdep_twins);",
		NULL
	};
	expect_report(t, from, lines);
}

/* ---- misuse: unlock of a lock not held (a double unlock) ---- */

static DEFINE_SPINLOCK(lockdep_unheld);

KTEST_MANUAL(lockdep_misuse_unlock_not_held)
{
	if (!prove_locking(t))
		return;
	unsigned long from = READ_ONCE(log_len);
	spin_lock(&lockdep_unheld);
	spin_unlock(&lockdep_unheld);
	preempt_disable();	/* the count the second unlock gives back */
	__acquire(&lockdep_unheld);	/* sparse: the unlock below is the bug on purpose */
	int l = LINE_OF(spin_unlock(&lockdep_unheld));
	spin_lock_init(&lockdep_unheld, "lockdep_unheld");	/* repair the ticket */

	const char *lines[] = {
		"WARNING: bad unlock balance detected!",
		"lockdep: is releasing lockdep_unheld (",	/* then its address */
		fmt_line(0, ") at " FILE_NAME ":%d", l),
		"lockdep: but there are no more locks to release",
		NULL
	};
	expect_report(t, from, lines);
}

/* ---- misuse: lockdep_assert_held() on a lock not held ---- */

static DEFINE_SPINLOCK(lockdep_assert);

static int needs_lock(void)
{
	return LINE_OF(lockdep_assert_held(&lockdep_assert));
}

KTEST_MANUAL(lockdep_misuse_assert_held)
{
	if (!prove_locking(t))
		return;
	unsigned long from = READ_ONCE(log_len);
	int l = needs_lock();		/* without taking lockdep_assert */

	const char *lines[] = {
		"WARNING: lockdep_assert_held() failed",
		fmt_line(0, "lockdep: &lockdep_assert is not held by this task at " FILE_NAME ":%d", l),
		"lockdep: no locks held by init/",
		NULL
	};
	expect_report(t, from, lines);
}

/* ---- misuse: a context assertion failing ---- */

KTEST_MANUAL(lockdep_misuse_assert_bh)
{
	if (!prove_locking(t))
		return;
	unsigned long from = READ_ONCE(log_len);
	int l = LINE_OF(lockdep_assert_bh_disabled());	/* softirqs on: fails */

	const char *lines[] = {
		"WARNING: lockdep_assert_bh_disabled() failed",
		fmt_line(0, "lockdep: softirqs can run at " FILE_NAME ":%d", l),
		NULL
	};
	expect_report(t, from, lines);
}

/*
 * ---- what the validator costs (BENCH "lockdep_cost", never asserted) ----
 *
 * A spinlock round trip, validated (spin_lock()/spin_unlock()) and as the
 * same boot's lock compiles without CONFIG_PROVE_LOCKING (preempt count
 * and arch_spin_*), alone and nested inside another lock (an order the
 * validator already knows). Best of five runs, interrupts off. Without
 * the option both columns run the same code. The context-switch cost
 * needs two boots (bench_sched_ctxsw with and without the option):
 * docs/locking.md has both.
 */

#define COST_ROUNDS	20000
#define COST_RUNS	5

static DEFINE_SPINLOCK(cost_outer);
static DEFINE_SPINLOCK(cost_inner);

static u64 cost_raw(spinlock_t *outer, spinlock_t *l)
{
	u64 best = ~0ULL;

	for (int r = 0; r < COST_RUNS; r++) {
		u64 t0 = rdtsc_ordered();

		for (int i = 0; i < COST_ROUNDS; i++) {
			preempt_disable();
			arch_spin_lock(l);
			l->holder = smp_processor_id();
			l->holder = -1;
			arch_spin_unlock(l);
			preempt_enable();
		}
		u64 d = rdtsc_ordered() - t0;
		if (d < best)
			best = d;
	}
	(void)outer;
	return best;
}

static u64 cost_checked(spinlock_t *outer, spinlock_t *l)
{
	u64 best = ~0ULL;

	if (outer)
		spin_lock(outer);
	else
		__acquire(outer);	/* sparse: one count for either path */
	for (int r = 0; r < COST_RUNS; r++) {
		u64 t0 = rdtsc_ordered();

		for (int i = 0; i < COST_ROUNDS; i++) {
			spin_lock(l);
			spin_unlock(l);
		}
		u64 d = rdtsc_ordered() - t0;
		if (d < best)
			best = d;
	}
	if (outer)
		spin_unlock(outer);
	else
		__release(outer);
	return best;
}

static void cost_report(const char *what, u64 raw, u64 checked)
{
	u64 raw_ps = cycles_to_ns(raw * 1000) / COST_ROUNDS;
	u64 chk_ps = cycles_to_ns(checked * 1000) / COST_ROUNDS;

	bench_json("{\"bench\":\"lockdep_cost\",\"op\":\"%s\",\"prove_locking\":%d,"
		   "\"raw_cycles_x100\":%lu,\"checked_cycles_x100\":%lu,\"raw_ps\":%lu,"
		   "\"checked_ps\":%lu,\"ratio_x100\":%lu}",
		   what, debug_locks ? 1 : 0,
		   (unsigned long)(raw * 100 / COST_ROUNDS),
		   (unsigned long)(checked * 100 / COST_ROUNDS),
		   (unsigned long)raw_ps, (unsigned long)chk_ps,
		   (unsigned long)(raw ? checked * 100 / raw : 0));
	kt_info("%s: %lu.%03lu ns without the validator's hooks, %lu.%03lu ns with them",
		what, (unsigned long)(raw_ps / 1000), (unsigned long)(raw_ps % 1000),
		(unsigned long)(chk_ps / 1000), (unsigned long)(chk_ps % 1000));
}

KTEST(bench_lockdep_cost)
{
	unsigned long flags = local_irq_save();
	u64 raw1 = cost_raw(NULL, &cost_inner), chk1 = cost_checked(NULL, &cost_inner);
	u64 raw2 = cost_raw(&cost_outer, &cost_inner), chk2 = cost_checked(&cost_outer, &cost_inner);

	local_irq_restore(flags);
	cost_report("spin_round_trip", raw1, chk1);
	cost_report("spin_round_trip_nested", raw2, chk2);
}

/*
 * ---- misuse: a lock taken after the memory holding it was freed ----
 *
 * What an RCU reader does when a grace period ended under it and it
 * takes the lock of an entry already kfree()d (the SysV semaphore set's
 * ipc_lock() on the busted variant). kmalloc's poison fills the lock's
 * cached class index with 0x6b6b; the validator must say so, at the
 * site, before spin_lock() writes into freed memory.
 */
struct lockdep_freed_box {
	u64 pad;
	spinlock_t lock;
};

KTEST_MANUAL(lockdep_misuse_freed_lock)
{
	if (!prove_locking(t))
		return;
	struct lockdep_freed_box *b = kmalloc(sizeof(*b));

	if (!b) {
		ktest_fail(t, __FILE__, __LINE__, "kmalloc failed");
		return;
	}
	spin_lock_init(&b->lock, "lockdep_freed_box");
	spin_lock(&b->lock);		/* caches the class index in the map */
	spin_unlock(&b->lock);
	kfree(b);
	kt_info("taking a lock at %p after kfree(); this must panic", &b->lock);
	spin_lock(&b->lock);
	__release(&b->lock);	/* sparse: the panic comes first; nothing is held */
	ktest_fail(t, __FILE__, __LINE__, "a lock in freed memory was taken unnoticed");
}
