/*
 * Kernel timers (include/timer.h): on their CPU, in order of expiry, never
 * early; del_timer_sync() waits for a running handler; one re-armed after
 * its CPU went offline still fires (hotplug_timer_rearm). And the lateness
 * benchmark.
 */
#include <ktest.h>
#include <sort.h>
#include <timer.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <printk.h>
#include <kmalloc.h>
#include <arch/cpu.h>
#include <atomic.h>
#include <cpuhotplug.h>

struct probe {
	struct timer_list timer;
	volatile int cpu;
	volatile unsigned long fired_at;	/* jiffies */
	volatile int order;
	volatile bool in_softirq;
};

static volatile int fire_seq;

static void probe_fn(unsigned long data)
{
	struct probe *p = (struct probe *)data;

	p->cpu = smp_processor_id();
	p->fired_at = jiffies;
	p->in_softirq = in_serving_softirq();
	p->order = __atomic_add_fetch(&fire_seq, 1, __ATOMIC_SEQ_CST);
}

static bool wait_fired(struct probe *p, int n, unsigned long max_ms)
{
	for (unsigned long ms = 0; ms < max_ms; ms += 5) {
		int done = 0;
		for (int i = 0; i < n; i++)
			done += p[i].order != 0;
		if (done == n)
			return true;
		msleep(5);
	}
	return false;
}

KTEST(timer_runs_on_its_cpu_never_early)
{
	static struct probe p[CONFIG_NR_CPUS];
	unsigned long expires[CONFIG_NR_CPUS];
	unsigned int cpu, n = 0;

	for_each_online_cpu(cpu) {
		setup_timer(&p[cpu].timer, probe_fn, (unsigned long)&p[cpu]);
		p[cpu].order = 0;
		p[cpu].cpu = -1;
		expires[cpu] = jiffies + 2 + cpu;
		p[cpu].timer.expires = expires[cpu];
		add_timer_on(&p[cpu].timer, cpu);
		n++;
	}
	KT_ASSERT(t, wait_fired(p, n, 2000), "not every timer fired within 2 s");
	for_each_online_cpu(cpu) {
		KT_EXPECT(t, p[cpu].cpu == (int)cpu, "timer queued on CPU %u ran on CPU %d",
			  cpu, p[cpu].cpu);
		KT_EXPECT(t, time_after_eq(p[cpu].fired_at, expires[cpu]),
			  "timer for jiffy %lu ran early, at %lu", expires[cpu], p[cpu].fired_at);
		KT_EXPECT(t, p[cpu].in_softirq, "timer on CPU %u ran outside softirq", cpu);
	}
}

/* Timers on one CPU run in the order of their expiry, across wheel levels. */
KTEST(timer_order_of_expiry)
{
	enum { N = 12 };
	static struct probe p[N];
	/* Shuffled expiries; 260 and 300 jiffies sit in tv2 and must cascade. */
	static const int delta[N] = { 7, 3, 300, 1, 12, 260, 5, 2, 9, 4, 30, 6 };

	fire_seq = 0;
	for (int i = 0; i < N; i++) {
		setup_timer(&p[i].timer, probe_fn, (unsigned long)&p[i]);
		p[i].order = 0;
	}
	preempt_disable();
	unsigned long now = jiffies;
	for (int i = 0; i < N; i++) {
		p[i].timer.expires = now + delta[i];
		add_timer(&p[i].timer);
	}
	preempt_enable();
	KT_ASSERT(t, wait_fired(p, N, 300 * 1000 / HZ + 2000), "not every timer fired");
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++)
			if (delta[i] < delta[j])
				KT_EXPECT(t, p[i].order < p[j].order,
					  "timer +%d ran after timer +%d", delta[i], delta[j]);
	for (int i = 0; i < N; i++)
		KT_EXPECT(t, time_after_eq(p[i].fired_at, now + delta[i]),
			  "timer +%d ran early", delta[i]);
}

/* del_timer() on a pending timer cancels it; mod_timer() moves it. */
KTEST(timer_del_and_mod)
{
	static struct probe a, b;

	setup_timer(&a.timer, probe_fn, (unsigned long)&a);
	setup_timer(&b.timer, probe_fn, (unsigned long)&b);
	a.order = b.order = 0;
	a.timer.expires = jiffies + 3;
	add_timer(&a.timer);
	KT_EXPECT(t, timer_pending(&a.timer), "added timer not pending");
	KT_EXPECT(t, del_timer(&a.timer), "del_timer of a pending timer returned false");
	KT_EXPECT(t, !del_timer(&a.timer), "second del_timer returned true");
	b.timer.expires = jiffies + 1000;
	add_timer(&b.timer);
	unsigned long target = jiffies + 4;
	KT_EXPECT(t, mod_timer(&b.timer, target), "mod_timer of a pending timer returned false");
	msleep(4 * 1000 / HZ + 100);
	KT_EXPECT(t, a.order == 0, "a deleted timer fired");
	KT_EXPECT(t, b.order != 0, "a modified timer did not fire at its new time");
	KT_EXPECT(t, b.order == 0 || time_after_eq(b.fired_at, target), "modified timer early");
}

/* del_timer_sync() returns only after a running handler has finished. */
static volatile int slow_state;		/* 1 running, 2 finished */

static void slow_fn(unsigned long data)
{
	WRITE_ONCE(slow_state, 1);
	udelay(50000);
	WRITE_ONCE(slow_state, 2);
}

KTEST(timer_del_sync_waits)
{
	static struct timer_list tl;
	unsigned int other = nr_cpu_ids > 1 ? 1 : 0;

	if (other == smp_processor_id() || num_online_cpus() < 2) {
		ktest_skip(t, "needs a second CPU for the handler");
		return;
	}
	setup_timer(&tl, slow_fn, 0);
	slow_state = 0;
	tl.expires = jiffies + 1;
	add_timer_on(&tl, other);
	while (READ_ONCE(slow_state) == 0)
		cpu_relax();
	del_timer_sync(&tl);
	KT_EXPECT(t, READ_ONCE(slow_state) == 2, "del_timer_sync returned while the handler ran");
}

/* ---- Benchmark: how late do timers run? (printed, not asserted) */

#define LATE_SAMPLES 200
static u64 late_ns[LATE_SAMPLES];
static volatile int late_n;
static struct timer_list late_timer;

static void late_fn(unsigned long data)
{
	u64 now = ktime_get_ns();
	unsigned long j = jiffies;
	/* jiffies_stamp_ns: when jiffies last advanced (CPU 0's tick). */
	u64 due = jiffies_stamp_ns - (u64)(j - late_timer.expires) * TICK_NSEC;

	if (late_n < LATE_SAMPLES)
		late_ns[late_n++] = now > due ? now - due : 0;
	if (late_n < LATE_SAMPLES)
		mod_timer(&late_timer, jiffies + 1 + (late_n % 3));
}


KTEST(bench_timer_lateness)
{
	u64 sum = 0;

	late_n = 0;
	setup_timer(&late_timer, late_fn, 0);
	late_timer.expires = jiffies + 1;
	add_timer_on(&late_timer, 0);		/* CPU 0 advances jiffies */
	for (int i = 0; i < 4000 && late_n < LATE_SAMPLES; i++)
		msleep(5);
	del_timer_sync(&late_timer);
	KT_ASSERT(t, late_n == LATE_SAMPLES, "only %d of %d timers fired", late_n, LATE_SAMPLES);
	for (int i = 0; i < late_n; i++)
		sum += late_ns[i];
	sort_u64(late_ns, late_n);
	bench_json("{\"bench\":\"timer_lateness\",\"hz\":%d,\"cpus\":%u,\"samples\":%d,"
		   "\"mean_us\":%lu,\"p50_us\":%lu,\"p99_us\":%lu,\"max_us\":%lu,\"min_us\":%lu}",
		   HZ, num_online_cpus(), late_n, (unsigned long)(sum / late_n / 1000),
		   (unsigned long)(late_ns[late_n / 2] / 1000),
		   (unsigned long)(late_ns[late_n * 99 / 100] / 1000),
		   (unsigned long)(late_ns[late_n - 1] / 1000), (unsigned long)(late_ns[0] / 1000));
}

/*
 * CPU hotplug: a timer that last ran on a CPU now offline, and is not
 * queued, is armed again by mod_timer() on another CPU. cpu_down() moves
 * the queued timers off the dying CPU's wheel (timers_migrate()), but a
 * timer between two runs is on no list, only its base still names that
 * wheel: re-armed there, it would wait until the CPU returned (krcud's
 * global rcu_timer, which wakes the daemons every grace period needs,
 * stalled every grace period so while a CPU stayed offline).
 */
static atomic_t hr_fired;
static volatile int hr_cpu = -1;

static void hr_fn(unsigned long data)
{
	WRITE_ONCE(hr_cpu, smp_processor_id());
	atomic_inc(&hr_fired);
}

static bool hr_wait(int n, unsigned long max_ms)
{
	for (u64 t0 = ktime_get_ns(); ktime_get_ns() - t0 < max_ms * 1000000ULL; msleep(1))
		if (atomic_read(&hr_fired) >= n)
			return true;
	return atomic_read(&hr_fired) >= n;
}

KTEST(hotplug_timer_rearm)
{
	unsigned int cpu = nr_cpu_ids - 1;
	struct timer_list tm;
	bool fired;
	int err;

	if (cpu_hotplug_unavailable()) {
		ktest_skip(t, cpu_hotplug_unavailable());
		return;
	}
	atomic_set(&hr_fired, 0);
	setup_timer(&tm, hr_fn, 0);
	tm.expires = jiffies + 1;
	add_timer_on(&tm, cpu);
	KT_ASSERT(t, hr_wait(1, 2000), "a timer added on cpu%u never fired", cpu);
	KT_EXPECT(t, READ_ONCE(hr_cpu) == (int)cpu, "it fired on cpu%d, not cpu%u",
		  READ_ONCE(hr_cpu), cpu);
	err = cpu_down(cpu);
	KT_ASSERT(t, err == 0, "cpu_down(%u) = %d", cpu, err);
	mod_timer(&tm, jiffies + 1);	/* here, with its last CPU offline */
	fired = hr_wait(2, 1000);
	kt_info("re-armed with cpu%u offline: %s (on cpu%d)", cpu,
		fired ? "fired" : "NOT FIRED in 1 s", READ_ONCE(hr_cpu));
	KT_EXPECT(t, fired, "a timer that last ran on cpu%u, re-armed by mod_timer() on cpu%u "
		  "while cpu%u was offline, did not fire within 1 s: it waits on the offline "
		  "CPU's wheel", cpu, smp_processor_id(), cpu);
	KT_EXPECT(t, cpu_up(cpu) == 0, "cpu_up(%u)", cpu);
	hr_wait(2, 2000);		/* a failed run's timer fires once the CPU is back */
	del_timer_sync(&tm);
}
