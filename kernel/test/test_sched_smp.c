/*
 * Scheduler tests, part 3: affinity, migration, load balancing, idle.
 */
#include <ktest.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <tick.h>
#include <printk.h>

#define JOIN_TIMEOUT	(10 * HZ)

struct affine {
	cpumask_t mask;
	u64 run_ns;
	unsigned long iters, violations;
	unsigned long seen;		/* bit per CPU it ran on */
};

/* CPU-bound kernel code, with a preemption point each round. */
static int affine_worker(void *arg)
{
	struct affine *a = arg;
	u64 t0 = ktime_get_ns();

	while (ktime_get_ns() - t0 < a->run_ns) {
		unsigned int cpu = smp_processor_id();

		if (!cpumask_test(cpu, &a->mask))
			a->violations++;
		a->seen |= 1UL << cpu;
		a->iters++;
		udelay(20);
		cond_resched();
	}
	return 0;
}

KTEST(sched_affinity_under_load)
{
	unsigned int n = num_online_cpus();
	unsigned int nt = 3 * n > 24 ? 24 : 3 * n;
	static struct affine a[24];
	struct task *p[24];

	for (unsigned int i = 0; i < nt; i++) {
		cpumask_clear(&a[i].mask);
		cpumask_set(i % n, &a[i].mask);
		if (i % 3 == 2)
			cpumask_set((i + 1) % n, &a[i].mask);	/* two CPUs */
		a[i].run_ns = 300 * 1000000ULL;
		a[i].iters = a[i].violations = a[i].seen = 0;
		p[i] = kthread_create(affine_worker, &a[i], "affine%u", i);
		KT_ASSERT(t, p[i], "no memory");
		KT_ASSERT(t, set_cpus_allowed(p[i], &a[i].mask) == 0, "set_cpus_allowed");
		wake_up_process(p[i]);
	}
	for (unsigned int i = 0; i < nt; i++) {
		KT_EXPECT(t, kthread_join_timeout(p[i], JOIN_TIMEOUT, NULL), "affine%u stuck", i);
		KT_EXPECT(t, a[i].violations == 0, "affine%u ran %lu times outside its mask (seen %lx)",
			  i, a[i].violations, a[i].seen);
		KT_EXPECT(t, a[i].iters > 0, "affine%u never ran", i);
	}
	cpumask_t empty;
	cpumask_clear(&empty);
	KT_EXPECT(t, set_cpus_allowed(current, &empty) == -EINVAL, "empty mask accepted");
}

/* A running task, a sleeping one and the caller itself move where they are told. */
static volatile int spin_where = -1;
static volatile bool spin_stop;

static int where_spinner(void *arg)
{
	while (!spin_stop) {
		WRITE_ONCE(spin_where, smp_processor_id());
		cond_resched();
	}
	return 0;
}

static int sleeper_where(void *arg)
{
	wait_for_completion(arg);
	return smp_processor_id();
}

KTEST(sched_migration)
{
	unsigned int n = num_online_cpus(), cpu;
	struct sched_stats s;
	unsigned long migr0 = 0, migr1 = 0;
	struct task *p;
	int code = -1;

	for_each_online_cpu(cpu) {
		sched_get_stats(cpu, &s);
		migr0 += s.migrations_in;
	}
	/* The caller: hop over every CPU. */
	for_each_online_cpu(cpu) {
		KT_EXPECT(t, set_cpus_allowed_one(current, cpu) == 0, "set_cpus_allowed");
		KT_EXPECT(t, smp_processor_id() == cpu, "asked for CPU %u, on %u", cpu, smp_processor_id());
	}
	set_cpus_allowed_one(current, 0);	/* the test thread lives on CPU 0 */
	KT_EXPECT(t, smp_processor_id() == 0, "back on CPU 0");

	/* A running task. */
	spin_stop = false;
	spin_where = -1;
	p = kthread_create_on_cpu(where_spinner, NULL, 0, "spinner");
	KT_ASSERT(t, p, "no memory");
	wake_up_process(p);
	unsigned int target = n - 1;
	set_cpus_allowed_one(p, target);
	/* Up to 5 s by the clock: the target may be a vCPU the host holds. */
	for (u64 t0 = ktime_get_ns(); ktime_get_ns() - t0 < 5000000000ULL && spin_where != (int)target; )
		msleep(5);
	KT_EXPECT(t, spin_where == (int)target, "running task on CPU %d, moved to %u 5 s ago",
		  spin_where, target);
	spin_stop = true;
	KT_EXPECT(t, kthread_join_timeout(p, JOIN_TIMEOUT, NULL), "spinner stuck");

	/* A sleeping task. */
	static struct completion go;
	init_completion(&go);
	p = kthread_create_on_cpu(sleeper_where, &go, 0, "sleeper");
	KT_ASSERT(t, p, "no memory");
	wake_up_process(p);
	msleep(10);
	set_cpus_allowed_one(p, target);
	complete(&go);
	KT_EXPECT(t, kthread_join_timeout(p, JOIN_TIMEOUT, &code), "sleeper stuck");
	KT_EXPECT(t, code == (int)target, "sleeper woke on CPU %d, allowed only %u", code, target);

	for_each_online_cpu(cpu) {
		sched_get_stats(cpu, &s);
		migr1 += s.migrations_in;
	}
	if (n > 1)
		KT_EXPECT(t, migr1 > migr0, "migration count did not rise");
	kt_info("%lu migrations", migr1 - migr0);
}

/*
 * Load balancing alone (no wake-up placement): CPU-bound threads all start
 * bound to CPU 0 and are then allowed everywhere while queued there; only
 * the periodic pull can spread them. They spin until every CPU has run one
 * of them: a CPU's pull comes from its own tick, which a host that starves
 * that vCPU holds back for as long as it likes, so the test asks for
 * liveness (every CPU pulls, within a bound far past any starvation seen)
 * and only prints how long it took.
 */
#define BAL_WAIT_MS	10000

static volatile bool bal_stop;

static int bal_worker(void *arg)
{
	struct affine *a = arg;
	u64 t0 = ktime_get_ns();

	/* Its own bound, past the test's, in case the test is gone. */
	while (!READ_ONCE(bal_stop) && ktime_get_ns() - t0 < 2ULL * BAL_WAIT_MS * 1000000) {
		WRITE_ONCE(a->seen, a->seen | 1UL << smp_processor_id());
		a->iters++;
		udelay(20);
		cond_resched();
	}
	return 0;
}

static unsigned long bal_seen(struct affine *a, unsigned int nt)
{
	unsigned long seen = 0;

	for (unsigned int i = 0; i < nt; i++)
		seen |= READ_ONCE(a[i].seen);
	return seen;
}

KTEST(sched_load_balance)
{
	unsigned int n = num_online_cpus(), cpu;
	unsigned int nt = 2 * n > 16 ? 16 : 2 * n;
	static struct affine a[16];
	struct task *p[16];
	unsigned long seen = 0, pulls0 = 0, pulls1 = 0;
	struct sched_stats s;
	cpumask_t all;
	u64 t0;

	if (n < 2) {
		ktest_skip(t, "one CPU");
		return;
	}
	cpumask_clear(&all);
	for_each_online_cpu(cpu) {
		cpumask_set(cpu, &all);
		sched_get_stats(cpu, &s);
		pulls0 += s.balance_pulls;
	}
	bal_stop = false;
	for (unsigned int i = 0; i < nt; i++) {
		a[i].mask = all;
		a[i].iters = a[i].violations = a[i].seen = 0;
		p[i] = kthread_create_on_cpu(bal_worker, &a[i], 0, "bal%u", i);
		KT_ASSERT(t, p[i], "no memory");
		wake_up_process(p[i]);
	}
	t0 = ktime_get_ns();
	for (unsigned int i = 0; i < nt; i++)
		set_cpus_allowed(p[i], &all);		/* CPU 0 stays allowed: no move */
	/* By the clock: each msleep() here waits behind nt spinners' slices. */
	while (ktime_get_ns() - t0 < BAL_WAIT_MS * 1000000ULL && hweight64(bal_seen(a, nt)) < n)
		msleep(10);
	seen = bal_seen(a, nt);
	kt_info("%u threads ran on CPUs %lx, %lu ms after they were let go", nt, seen,
		(unsigned long)((ktime_get_ns() - t0) / 1000000));
	WRITE_ONCE(bal_stop, true);
	for (unsigned int i = 0; i < nt; i++)
		KT_EXPECT(t, kthread_join_timeout(p[i], JOIN_TIMEOUT, NULL), "bal%u stuck", i);
	for_each_online_cpu(cpu) {
		sched_get_stats(cpu, &s);
		pulls1 += s.balance_pulls;
	}
	kt_info("%lu balance pulls", pulls1 - pulls0);
	KT_EXPECT(t, hweight64(seen) == n, "threads ran on CPUs %lx only in %d s", seen,
		  BAL_WAIT_MS / 1000);
	KT_EXPECT(t, pulls1 > pulls0, "no balance pulls");
}

/*
 * While we sleep and nothing else runs, every CPU sits in its idle task.
 * The counts in 200 ms are printed; the checks are liveness (each CPU's
 * idle time grows, a tick finds it idle, it is idle), each given up to
 * 5 s, since a host that starves a vCPU holds its ticks back.
 */
KTEST(sched_idle_cpus_halt)
{
	unsigned int cpu;
	struct sched_stats s0[CONFIG_NR_CPUS], s1;
	unsigned long it0[CONFIG_NR_CPUS] = { 0 };

	for_each_online_cpu(cpu) {
		sched_get_stats(cpu, &s0[cpu]);
		it0[cpu] = cpu_tick_stats(cpu)->by_context[TICK_IDLE];
	}
	msleep(200);
	for_each_online_cpu(cpu) {
		sched_get_stats(cpu, &s1);
		kt_info("cpu%u: %lu ms idle, %lu idle ticks in 200 ms", cpu,
			(unsigned long)((s1.idle_ns - s0[cpu].idle_ns) / 1000000),
			cpu_tick_stats(cpu)->by_context[TICK_IDLE] - it0[cpu]);
	}
	for_each_online_cpu(cpu) {
		bool grew = false, ticked = false, idle = false;
		u64 t0 = ktime_get_ns();

		do {
			sched_get_stats(cpu, &s1);
			grew = grew || s1.idle_ns > s0[cpu].idle_ns;
			ticked = ticked || cpu_tick_stats(cpu)->by_context[TICK_IDLE] != it0[cpu];
			idle = idle || idle_cpu(cpu) || cpu == smp_processor_id();
			if (grew && ticked && idle)
				break;
			msleep(10);
		} while (ktime_get_ns() - t0 < 5000000000ULL);
		KT_EXPECT(t, grew, "cpu%u idle time did not grow in 5 s", cpu);
		KT_EXPECT(t, ticked, "cpu%u: no tick found it idle in 5 s", cpu);
		KT_EXPECT(t, idle, "cpu%u not idle in 5 s", cpu);
	}
}
