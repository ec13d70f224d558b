/*
 * Locks under contention from every CPU at once (each CPU runs the loop in
 * its call-function IPI handler, so all start together).
 *
 * Each critical section does a deliberately slow read-modify-write of a
 * plain counter and checks that nobody else entered meanwhile: with a
 * working lock the final count is exact and no intruder is seen. The
 * unlocked control run (bench_lock_race_detector, a report, not a test:
 * whether vCPUs overlap is up to the host) shows that the same checks do
 * see races when there is no lock, so these tests can fail.
 */
#include <ktest.h>
#include <smp.h>
#include <spinlock.h>
#include <rwlock.h>
#include <brlock.h>
#include <time.h>
#include <printk.h>

/*
 * Iterations per CPU. Kept small: a ticket lock hands over in strict FIFO
 * order, and under TCG with more vCPUs than host cores the next ticket's
 * vCPU is often not running (lock-holder/waiter preemption), so each
 * contended handover can cost a host time slice (spinlock=ticket shows it).
 */
#define ITERS	(!spin_tas_mode ? 300 : num_online_cpus() > 2 ? 1000 : 5000)

enum lock_kind { NONE, SPIN, RW_WRITE, RW_MIXED, BR_MIXED };

struct lock_test {
	enum lock_kind kind;
	spinlock_t spin;
	rwlock_t rw;
	struct brlock br;
	volatile unsigned long counter;
	volatile int inside;		/* writers inside: must be 0 or 1 */
	volatile int readers;		/* readers inside */
	unsigned long intrusions;	/* atomically counted */
	unsigned long reads;
	volatile int go;
	volatile int done;
};

static struct lock_test lt;

static void note_intrusion(void)
{
	__atomic_fetch_add(&lt.intrusions, 1, __ATOMIC_RELAXED);
}

static void write_section(void)
{
	if (__atomic_add_fetch(&lt.inside, 1, __ATOMIC_SEQ_CST) != 1 || READ_ONCE(lt.readers))
		note_intrusion();
	unsigned long v = lt.counter;
	for (int k = 0; k < 8; k++)
		cpu_relax();
	lt.counter = v + 1;
	__atomic_sub_fetch(&lt.inside, 1, __ATOMIC_SEQ_CST);
}

static void read_section(void)
{
	__atomic_add_fetch(&lt.readers, 1, __ATOMIC_SEQ_CST);
	if (READ_ONCE(lt.inside))
		note_intrusion();
	for (int k = 0; k < 8; k++)
		cpu_relax();
	if (READ_ONCE(lt.inside))
		note_intrusion();
	__atomic_sub_fetch(&lt.readers, 1, __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&lt.reads, 1, __ATOMIC_RELAXED);
}

static void hammer(void *arg)
{
	unsigned int me = smp_processor_id();

	while (!READ_ONCE(lt.go))
		cpu_relax();
	for (int i = 0; i < ITERS; i++) {
		bool write = lt.kind == SPIN || lt.kind == RW_WRITE || lt.kind == NONE ||
			     (i + me) % 8 == 0;	/* mixed: one write in eight */
		switch (lt.kind) {
		case NONE:
			write_section();
			break;
		case SPIN:
			spin_lock(&lt.spin);
			write_section();
			spin_unlock(&lt.spin);
			break;
		case RW_WRITE:
		case RW_MIXED:
			if (write) {
				write_lock(&lt.rw);
				write_section();
				write_unlock(&lt.rw);
			} else {
				read_lock(&lt.rw);
				read_section();
				read_unlock(&lt.rw);
			}
			break;
		case BR_MIXED:
			if (write) {
				br_write_lock(&lt.br);
				write_section();
				br_write_unlock(&lt.br);
			} else {
				unsigned int c = br_read_lock(&lt.br);
				read_section();
				br_read_unlock(&lt.br, c);
			}
			break;
		}
	}
	__atomic_fetch_add(&lt.done, 1, __ATOMIC_SEQ_CST);
}

static unsigned long expected_writes(enum lock_kind kind)
{
	unsigned long n = 0;
	unsigned int cpu;

	for_each_online_cpu(cpu)
		for (int i = 0; i < ITERS; i++)
			n += kind == SPIN || kind == RW_WRITE || kind == NONE || (i + cpu) % 8 == 0;
	return n;
}

static void run(enum lock_kind kind)
{
	lt.kind = kind;
	spin_lock_init(&lt.spin, "lt.spin");
	rwlock_init(&lt.rw);
	brlock_init(&lt.br);
	lt.counter = lt.intrusions = lt.reads = 0;
	lt.inside = lt.readers = lt.done = lt.go = 0;
	smp_call_function(hammer, NULL, false);
	lt.go = 1;
	/*
	 * The other CPUs hammer from the IPI handler, so these locks are
	 * taken in hard-IRQ context: here too they are taken with
	 * interrupts off, as every lock an interrupt handler shares must be
	 * (the lock validator reports the mix otherwise).
	 */
	unsigned long flags = local_irq_save();
	hammer(NULL);
	local_irq_restore(flags);
	while (READ_ONCE(lt.done) < (int)num_online_cpus())
		cpu_relax();
}

static void check(struct ktest_ctx *t, enum lock_kind kind, const char *name)
{
	u64 t0 = ktime_get_ns();

	run(kind);
	unsigned long want = expected_writes(kind);
	KT_EXPECT(t, lt.counter == want, "%s: counter %lu, expected %lu (lost updates)",
		  name, lt.counter, want);
	KT_EXPECT(t, lt.intrusions == 0, "%s: %lu intrusions into critical sections",
		  name, lt.intrusions);
	kt_info("%s: %u CPUs x %d iterations, %lu writes, %lu reads, %lu ms", name,
		num_online_cpus(), ITERS, lt.counter, lt.reads,
		(unsigned long)((ktime_get_ns() - t0) / 1000000));
}

KTEST(lock_spinlock_exclusion)
{
	check(t, SPIN, "spinlock");
}

KTEST(lock_rwlock_exclusion)
{
	check(t, RW_WRITE, "rwlock (writers only)");
	check(t, RW_MIXED, "rwlock (1 writer in 8)");
}

KTEST(lock_brlock_exclusion)
{
	check(t, BR_MIXED, "brlock (1 writer in 8)");
}

/*
 * The control: no lock. With two or more CPUs running truly in parallel the
 * checks above should see lost updates or intrusions. Under TCG vCPUs may
 * happen not to overlap, so this is a report (BENCH line), not a test.
 */
KTEST(bench_lock_race_detector)
{
	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs two CPUs");
		return;
	}
	run(NONE);
	bench_json("{\"bench\":\"lock_race_detector\",\"cpus\":%u,\"counter\":%lu,"
		   "\"expected\":%lu,\"intrusions\":%lu}", num_online_cpus(), lt.counter,
		   expected_writes(NONE), lt.intrusions);
}

KTEST(lock_trylock)
{
	DEFINE_SPINLOCK(l);

	if (!spin_trylock(&l)) {
		ktest_fail(t, __FILE__, __LINE__, "trylock of a free lock failed");
		return;
	}
	KT_EXPECT(t, spin_is_locked(&l), "lock not held after trylock");
	if (spin_trylock(&l)) {
		ktest_fail(t, __FILE__, __LINE__, "trylock of a held lock succeeded");
		spin_unlock(&l);
	}
	KT_EXPECT(t, preempt_count() == 1, "preempt_count %d with one lock held", preempt_count());
	spin_unlock(&l);
	KT_EXPECT(t, !spin_is_locked(&l), "lock still held after unlock");
	KT_EXPECT(t, preempt_count() == 0, "preempt_count %d after unlock", preempt_count());
}

/* Taking a held lock again on the same CPU must panic, naming the lock. */
KTEST_MANUAL(lock_recursion_panics)
{
	static DEFINE_SPINLOCK(recursive_lock);

	spin_lock(&recursive_lock);
	spin_lock(&recursive_lock);	/* the bug this test commits on purpose */
	ktest_fail(t, __FILE__, __LINE__, "second spin_lock returned");
	__release(&recursive_lock);	/* sparse: never reached */
	__release(&recursive_lock);
}
