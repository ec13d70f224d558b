/*
 * Lab 6's workload (labs/lab6-slow-grace-period/README.md): grace periods
 * made slow on purpose, for a student to find why on the timeline.
 *
 *   ktest=lab6_slow_gp lab6.seed=S trace=rcu,sched,softirq,irq trace.dump_at_end=1
 *
 * The ktest thread, on CPU 0, calls synchronize_rcu() back to back: a
 * grace period is always in flight. One other CPU runs a thread that
 * sleeps, then holds off quiescent states for 150 to 250 ms inside
 * a read-side section, spinning in the kernel without ever calling the
 * scheduler, and does that LAB6_ROUNDS times. Which CPU, for how long and
 * with what disabled comes from the seed, and nothing printed on the
 * console says which: the student reads it off the trace.
 *
 *   preempt   rcu_read_lock() with preemption off: in a kernel without
 *             preemption a long read-side section or a long loop that never
 *             calls schedule(); ticks and softirqs still run on that CPU
 *   bh        rcu_read_lock_bh(): softirqs (and tasklets) off as well, so
 *             the CPU's RCU tasklet cannot run; ticks still arrive
 *   irq       interrupts off (local_irq_save()): not even the tick
 *
 * In every case the section is a reader of the one promise the test
 * checks (seed 000 section 2): a synchronize_rcu() that began after the
 * section began returns only after it ended. The busted variant, whose
 * grace periods end at once, fails it. The grace period's length is shown,
 * never asserted (timing belongs in benchmarks).
 *
 * lab6.cpu=N, lab6.cause=preempt|bh|irq and lab6.hold_ms=M override what
 * the seed picks (for instructors trying a case out).
 */
#include <ktest.h>
#include <cmdline.h>
#include <errno.h>
#include <kmalloc.h>
#include <preempt.h>
#include <rcupdate.h>
#include <sched.h>
#include <smp.h>
#include <softirq.h>
#include <string.h>
#include <time.h>
#include <trace.h>
#include <arch/cpu.h>

#define LAB6_ROUNDS	2
#define LAB6_GAP_MS	60	/* the holder sleeps this long before each hold */
#define LAB6_MAX_SYNCS	2048

enum lab6_cause { CAUSE_PREEMPT, CAUSE_BH, CAUSE_IRQ, CAUSE_SEED };
static const char *const cause_names[] = { "preempt", "bh", "irq" };

static unsigned long lab6_seed = 1;
static unsigned long lab6_cpu = ~0UL;		/* ~0: from the seed */
static unsigned long lab6_hold_ms;		/* 0: from the seed */
static enum lab6_cause lab6_cause = CAUSE_SEED;

CMDLINE_ULONG("lab6.seed", lab6_seed, 0, ~0UL >> 1,
	      "lab6.seed=S: picks the CPU, the section and its length (default 1)");
CMDLINE_ULONG("lab6.cpu", lab6_cpu, 1, 4095,
	      "lab6.cpu=N: hold on this CPU, not the seed's (1.., not the updater's CPU 0)");
CMDLINE_ULONG("lab6.hold_ms", lab6_hold_ms, 5, 2000,
	      "lab6.hold_ms=M: hold this long, not the seed's (5..2000)");

static int set_cause(const char *val)
{
	for (int i = 0; i < CAUSE_SEED; i++)
		if (val && !strcmp(val, cause_names[i])) {
			lab6_cause = i;
			return 0;
		}
	return -EINVAL;
}
CMDLINE_PARAM("lab6.cause", set_cause, "lab6.cause=preempt|bh|irq: this section, not the seed's");

struct lab6_plan {
	unsigned int cpu;
	enum lab6_cause cause;
	unsigned long hold_ms;
	u64 hold_start[LAB6_ROUNDS], hold_end[LAB6_ROUNDS];	/* ktime_get_ns() */
	/* rcu_gp_started() as the section began, rcu_gp_completed() as it ended */
	unsigned long started[LAB6_ROUNDS], completed[LAB6_ROUNDS];
	volatile bool done;
};

/* A 64-bit mix (splitmix64's finaliser): nearby seeds pick unrelated cases. */
static u64 lab6_mix(u64 x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static void lab6_pick(struct lab6_plan *p)
{
	u64 h = lab6_mix(lab6_seed);
	unsigned int n = num_online_cpus();

	/* Not CPU 0: the updater runs there. */
	p->cpu = n > 1 ? 1 + (unsigned int)(h % (n - 1)) : 0;
	p->cause = (enum lab6_cause)((h >> 20) % 3);
	p->hold_ms = 150 + (h >> 40) % 101;		/* 150..250 ms */
	if (lab6_cpu != ~0UL && lab6_cpu < n)
		p->cpu = lab6_cpu;
	else if (lab6_cpu != ~0UL)
		kt_info("lab6.cpu=%lu: only %u CPUs online; the seed's CPU instead", lab6_cpu, n);
	if (lab6_cause != CAUSE_SEED)
		p->cause = lab6_cause;
	if (lab6_hold_ms)
		p->hold_ms = lab6_hold_ms;
}

static void spin_until(u64 end)
{
	while (ktime_get_ns() < end)
		cpu_relax();
}

/* Inside the section: its ends, in time and in grace periods. */
static void lab6_spin(struct lab6_plan *p, int round, u64 len)
{
	p->started[round] = rcu_gp_started();
	p->hold_start[round] = ktime_get_ns();
	spin_until(p->hold_start[round] + len);
	p->hold_end[round] = ktime_get_ns();
	p->completed[round] = rcu_gp_completed();
}

/* One hold: a reader that never reaches the scheduler, with cause off. */
static void lab6_hold(struct lab6_plan *p, int round)
{
	u64 len = p->hold_ms * 1000000ULL;
	unsigned long flags;

	switch (p->cause) {
	case CAUSE_PREEMPT:
		preempt_disable();
		rcu_read_lock();
		lab6_spin(p, round, len);
		rcu_read_unlock();
		preempt_enable();
		break;
	case CAUSE_BH:
		rcu_read_lock_bh();
		rcu_read_lock();
		lab6_spin(p, round, len);
		rcu_read_unlock();
		rcu_read_unlock_bh();
		break;
	default:
		flags = local_irq_save();
		rcu_read_lock();
		lab6_spin(p, round, len);
		rcu_read_unlock();
		local_irq_restore(flags);
		break;
	}
}

static int lab6_holder(void *arg)
{
	struct lab6_plan *p = arg;

	for (int round = 0; round < LAB6_ROUNDS; round++) {
		msleep(LAB6_GAP_MS);
		lab6_hold(p, round);
	}
	msleep(LAB6_GAP_MS);
	WRITE_ONCE(p->done, true);
	return 0;
}

struct lab6_sync {
	u64 start, end;
};

/*
 * synchronize_rcu() back to back until the holder is done; the first
 * LAB6_MAX_SYNCS are timed (the busted variant's return at once: it goes
 * on calling, so grace periods still start and end inside the sections).
 */
static unsigned long lab6_update(struct lab6_plan *p, struct lab6_sync *s)
{
	unsigned long n = 0;
	u64 start;

	while (!READ_ONCE(p->done)) {
		start = ktime_get_ns();
		synchronize_rcu();
		if (n < LAB6_MAX_SYNCS) {
			s[n].start = start;
			s[n].end = ktime_get_ns();
			n++;
		}
	}
	return n;
}

/*
 * The promise, per hold: no grace period that began inside the section
 * ended inside it (as kernel/test/test_rcu_preempted_reader.c checks),
 * and every synchronize_rcu() that began inside it returned after it
 * ended. How many began inside depends on timing (one in flight as the
 * section began may end inside it or not); none is not a failure.
 */
static unsigned long lab6_check_round(struct ktest_ctx *t, struct lab6_plan *p, int r,
				      struct lab6_sync *s, unsigned long n)
{
	unsigned long inside = 0;

	KT_EXPECT(t, (long)(p->completed[r] - p->started[r]) <= 0,
		  "a grace period that began inside read-side section %d ended inside it "
		  "(completed %lu > started %lu as it began)", r, p->completed[r], p->started[r]);
	for (unsigned long i = 0; i < n; i++) {
		if (s[i].start < p->hold_start[r] || s[i].start >= p->hold_end[r])
			continue;
		inside++;
		KT_EXPECT(t, s[i].end >= p->hold_end[r],
			  "a synchronize_rcu() that began %lu us into a read-side section "
			  "returned %lu us before the section ended",
			  (s[i].start - p->hold_start[r]) / 1000,
			  (p->hold_end[r] - s[i].end) / 1000);
	}
	return inside;
}

KTEST_MANUAL(lab6_slow_gp)
{
	struct lab6_plan plan = { 0 };
	struct lab6_sync *syncs;
	unsigned long n, inside = 0;
	struct task *h;

	lab6_pick(&plan);
	KT_ASSERT(t, num_online_cpus() > 1, "needs two CPUs or more (-smp 4)");
	syncs = kmalloc(LAB6_MAX_SYNCS * sizeof(*syncs));
	KT_ASSERT(t, syncs, "no memory for %d timestamps", LAB6_MAX_SYNCS);
	if (READ_ONCE(trace_mask))		/* the recording starts here */
		trace_start(READ_ONCE(trace_mask), QS_TRACE_OVERWRITE);
	else
		kt_info("tracing is off: add trace=rcu,sched,softirq,irq to record the timeline");
	kt_info("lab6: seed %lu: %d slow grace periods on the way", lab6_seed, LAB6_ROUNDS);
	h = kthread_create_on_cpu(lab6_holder, &plan, plan.cpu, "lab6_holder");
	if (!KT_EXPECT(t, h, "no memory for the holder thread")) {
		kfree(syncs);
		return;
	}
	wake_up_process(h);
	n = lab6_update(&plan, syncs);
	kthread_join(h);
	for (int r = 0; r < LAB6_ROUNDS; r++)
		inside += lab6_check_round(t, &plan, r, syncs, n);
	/* Not how long any took: that is for the student to find. */
	kt_info("lab6: %lu synchronize_rcu() calls, %lu of them began inside a section", n, inside);
	/* Liveness only: how many fit depends on the variant's pace. */
	KT_EXPECT(t, n > 0, "no synchronize_rcu() returned");
	kfree(syncs);
}
