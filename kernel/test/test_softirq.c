/*
 * Softirqs and tasklets (include/softirq.h, include/interrupt.h).
 */
#include <ktest.h>
#include <softirq.h>
#include <interrupt.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <printk.h>
#include <arch/cpu.h>

/* ---- A tasklet scheduled from an interrupt on each CPU runs once, there. */

static struct tasklet_struct per_cpu_tasklet[CONFIG_NR_CPUS];
static volatile int ran_on[CONFIG_NR_CPUS];
static volatile int runs[CONFIG_NR_CPUS];
static volatile int ran_in_softirq[CONFIG_NR_CPUS];

static void record_tasklet(unsigned long idx)
{
	ran_on[idx] = smp_processor_id();
	ran_in_softirq[idx] = in_serving_softirq() ? 1 : 0;
	__atomic_fetch_add(&runs[idx], 1, __ATOMIC_SEQ_CST);
}

static void schedule_from_irq(void *arg)
{
	tasklet_schedule(&per_cpu_tasklet[smp_processor_id()]);
}

static bool all_ran(void)
{
	unsigned int cpu;

	for_each_online_cpu(cpu)
		if (!READ_ONCE(runs[cpu]))
			return false;
	return true;
}

KTEST(tasklet_runs_on_scheduling_cpu)
{
	unsigned int cpu;

	for_each_online_cpu(cpu) {
		tasklet_init(&per_cpu_tasklet[cpu], record_tasklet, cpu);
		runs[cpu] = 0;
		ran_on[cpu] = -1;
	}
	on_each_cpu(schedule_from_irq, NULL, true);
	for (int i = 0; i < 200 && !all_ran(); i++)
		msleep(5);
	msleep(20);			/* a second run would show up by now */
	for_each_online_cpu(cpu) {
		KT_EXPECT(t, runs[cpu] == 1, "CPU %u's tasklet ran %d times", cpu, runs[cpu]);
		KT_EXPECT(t, ran_on[cpu] == (int)cpu, "CPU %u's tasklet ran on CPU %d", cpu,
			  ran_on[cpu]);
		KT_EXPECT(t, ran_in_softirq[cpu], "CPU %u's tasklet ran outside softirq", cpu);
		tasklet_kill(&per_cpu_tasklet[cpu]);
	}
}

/* ---- Rescheduled while running: runs again, never on two CPUs at once. */

static struct tasklet_struct busy_tasklet;
static volatile int busy_inside, busy_overlap, busy_runs, busy_started;

static void busy_fn(unsigned long data)
{
	if (__atomic_add_fetch(&busy_inside, 1, __ATOMIC_SEQ_CST) != 1)
		busy_overlap++;
	__atomic_fetch_add(&busy_runs, 1, __ATOMIC_SEQ_CST);
	WRITE_ONCE(busy_started, 1);
	udelay(3000);			/* long enough for the other CPU to reschedule us */
	__atomic_sub_fetch(&busy_inside, 1, __ATOMIC_SEQ_CST);
}

static void schedule_busy(void *arg)
{
	tasklet_schedule(&busy_tasklet);
}

KTEST(tasklet_rescheduled_while_running)
{
	unsigned int other;

	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs two CPUs");
		return;
	}
	other = smp_processor_id() == 0 ? 1 : 0;
	tasklet_init(&busy_tasklet, busy_fn, 0);
	busy_inside = busy_overlap = busy_runs = busy_started = 0;
	/* Schedule it on `other`, and while it runs there, schedule it here. */
	smp_call_function_single(other, schedule_busy, NULL, true);
	while (!READ_ONCE(busy_started))
		cpu_relax();
	tasklet_schedule(&busy_tasklet);	/* here, while it runs there */
	for (int i = 0; i < 200 && READ_ONCE(busy_runs) < 2; i++)
		msleep(5);
	tasklet_kill(&busy_tasklet);
	KT_EXPECT(t, busy_runs == 2, "ran %d times, expected 2", busy_runs);
	KT_EXPECT(t, busy_overlap == 0, "ran on two CPUs at once %d times", busy_overlap);
}

/* ---- local_bh_disable() holds softirqs back until local_bh_enable(). */

static volatile int test_softirq_runs;
static volatile int flood_left;

static void test_softirq_action(void)
{
	test_softirq_runs++;
	if (READ_ONCE(flood_left) > 0) {
		flood_left--;
		udelay(20);
		raise_softirq(TEST_SOFTIRQ);	/* keeps coming back: a flood */
	}
}

KTEST(softirq_bh_disable_holds_back)
{
	open_softirq(TEST_SOFTIRQ, test_softirq_action);
	flood_left = 0;
	preempt_disable();		/* stay on this CPU for the whole test */
	int before = test_softirq_runs;
	local_bh_disable();
	KT_EXPECT(t, in_softirq(), "in_softirq() false inside local_bh_disable()");
	raise_softirq(TEST_SOFTIRQ);
	mdelay(30);			/* several ticks: their irq_exit must not run it */
	KT_EXPECT(t, test_softirq_runs == before, "softirq ran inside local_bh_disable()");
	local_bh_disable();		/* nesting */
	local_bh_enable();
	KT_EXPECT(t, test_softirq_runs == before, "softirq ran at an inner local_bh_enable()");
	local_bh_enable();
	KT_EXPECT(t, test_softirq_runs == before + 1, "local_bh_enable() did not run it (%d runs)",
		  test_softirq_runs - before);
	KT_EXPECT(t, !in_softirq(), "still in softirq after local_bh_enable()");
	preempt_enable();
}

/* ---- A flood spills into ksoftirqd and a normal thread still progresses. */

static volatile unsigned long progress;
static volatile bool stop_worker;

static int progress_fn(void *arg)
{
	while (!READ_ONCE(stop_worker)) {
		progress++;
		cond_resched();
	}
	return 0;
}

static void start_flood(void *arg)
{
	raise_softirq(TEST_SOFTIRQ);
}

KTEST(softirq_flood_uses_ksoftirqd)
{
	struct softirq_stats before, after;
	unsigned int cpu = nr_cpu_ids > 1 ? 1 : 0;
	struct task *worker;
	unsigned long p0;

	open_softirq(TEST_SOFTIRQ, test_softirq_action);
	stop_worker = false;
	progress = 0;
	worker = kthread_create_on_cpu(progress_fn, NULL, cpu, "progress");
	KT_ASSERT(t, worker, "no thread");
	wake_up_process(worker);
	msleep(20);
	softirq_get_stats(cpu, &before);
	flood_left = 3000;		/* 3000 re-raises of ~20 us: ~60 ms of softirq */
	p0 = progress;
	smp_call_function_single(cpu, start_flood, NULL, true);
	/* Up to 10 s by the clock: the flood's CPU may be a vCPU the host holds. */
	for (u64 t0 = ktime_get_ns(); ktime_get_ns() - t0 < 10000000000ULL && READ_ONCE(flood_left) > 0; )
		msleep(5);
	unsigned long during = progress - p0;
	softirq_get_stats(cpu, &after);
	stop_worker = true;
	kthread_join(worker);
	KT_EXPECT(t, flood_left <= 0, "the flood did not finish in 10 s (%d left)", flood_left);
	KT_EXPECT(t, after.handed_to_ksoftirqd > before.handed_to_ksoftirqd,
		  "__do_softirq never handed over to ksoftirqd");
	KT_EXPECT(t, after.ksoftirqd_runs > before.ksoftirqd_runs, "ksoftirqd never ran");
	KT_EXPECT(t, during > 0, "the normal thread made no progress during the flood");
	kt_info("cpu%u: %lu hand-overs, %lu ksoftirqd passes, %lu restarts; thread progress %lu",
		cpu, after.handed_to_ksoftirqd - before.handed_to_ksoftirqd,
		after.ksoftirqd_runs - before.ksoftirqd_runs,
		after.restarts - before.restarts, during);
}

/* ---- Benchmark: softirq entry and exit cost (not asserted). */

static void empty_softirq(void)
{
}

KTEST(bench_softirq)
{
	const int n = 20000;
	u64 t0, t1, t2;

	open_softirq(TEST_SOFTIRQ, empty_softirq);
	preempt_disable();
	local_irq_disable();
	t0 = rdtsc_ordered();
	for (int i = 0; i < n; i++) {
		local_bh_disable();
		local_bh_enable();
	}
	t1 = rdtsc_ordered();
	for (int i = 0; i < n; i++) {
		local_bh_disable();
		raise_softirq_irqoff(TEST_SOFTIRQ);
		local_bh_enable();	/* enters and leaves __do_softirq */
	}
	t2 = rdtsc_ordered();
	local_irq_enable();
	preempt_enable();
	u64 base = (t1 - t0) / n, full = (t2 - t1) / n;
	bench_json("{\"bench\":\"softirq_entry_exit\",\"hz\":%d,\"bh_pair_cycles\":%lu,"
		   "\"raise_and_run_cycles\":%lu,\"softirq_cycles\":%lu,\"softirq_ns\":%lu}",
		   HZ, (unsigned long)base, (unsigned long)full, (unsigned long)(full - base),
		   (unsigned long)cycles_to_ns(full - base));
	open_softirq(TEST_SOFTIRQ, test_softirq_action);
}
