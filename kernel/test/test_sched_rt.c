/*
 * Scheduler tests, part 2: real-time priorities and the preemption models.
 *
 * sched_rt_preempts_hog: a SCHED_FIFO task, woken by the timer interrupt,
 * must take the CPU from a CPU-bound normal task that spins for
 * HOG_SPIN_MS without a single preemption point, then offers
 * cond_resched(). With CONFIG_KPREEMPT it runs in the middle of the spin,
 * and the hog's involuntary-switch count rises; without, it runs only at
 * the hog's first voluntary switch point, and no switch anywhere is
 * involuntary. These are orderings, not timings: the spin is long
 * (HOG_SPIN_MS) next to the RT task's sleep (RT_SLEEP_TICKS).
 */
#include <ktest.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <printk.h>
#include <string.h>

#define HOG_SPIN_MS	300
#define RT_SLEEP_TICKS	(HZ / 50 ? HZ / 50 : 1)		/* 20 ms */

static struct {
	volatile bool hog_started, hog_spinning, rt_done;
	volatile u64 hog_yield_at;		/* ns; 0 while spinning */
	volatile u64 rt_ran_at;
	volatile bool rt_saw_spinning;
	volatile int rt_cpu;
	volatile int rt_tries;
} rp;

static int rt_fn(void *arg)
{
	/* Timer wake-ups until we see the hog has started (bounded). */
	for (rp.rt_tries = 0; rp.rt_tries < 50; rp.rt_tries++) {
		schedule_timeout_uninterruptible(RT_SLEEP_TICKS);
		if (rp.hog_started)
			break;
	}
	rp.rt_saw_spinning = rp.hog_spinning;
	rp.rt_ran_at = ktime_get_ns();
	rp.rt_cpu = smp_processor_id();
	rp.rt_done = true;
	return 0;
}

static int hog_fn(void *arg)
{
	u64 t0 = ktime_get_ns();

	rp.hog_spinning = true;
	rp.hog_started = true;
	while (ktime_get_ns() - t0 < HOG_SPIN_MS * 1000000ULL)
		cpu_relax();			/* kernel code, no preemption point */
	rp.hog_spinning = false;
	rp.hog_yield_at = ktime_get_ns();
	while (!rp.rt_done && ktime_get_ns() - t0 < 5000000000ULL)
		cond_resched();			/* now it offers the CPU */
	return 0;
}

static unsigned long total_nivcsw(void)
{
	struct sched_stats s;
	unsigned long sum = 0;
	unsigned int cpu;

	for_each_online_cpu(cpu) {
		sched_get_stats(cpu, &s);
		sum += s.nivcsw;
	}
	return sum;
}

KTEST(sched_rt_preempts_hog)
{
	unsigned int cpu = num_online_cpus() > 1 ? 1 : 0;
	struct task *rt, *hog;
	unsigned long niv0 = total_nivcsw(), hog_niv, hog_nv;
	bool preemptive = false;

#ifdef CONFIG_KPREEMPT
	preemptive = sched_preempt_active;
#endif
	memset((void *)&rp, 0, sizeof(rp));
	rt = kthread_create_on_cpu(rt_fn, NULL, cpu, "rt_fifo");
	hog = kthread_create_on_cpu(hog_fn, NULL, cpu, "hog");
	KT_ASSERT(t, rt && hog, "no memory");
	KT_ASSERT(t, sched_setscheduler(rt, SCHED_FIFO, 50) == 0, "sched_setscheduler");
	KT_EXPECT(t, sched_setscheduler(rt, SCHED_FIFO, 100) == -EINVAL, "priority 100 accepted");
	wake_up_process(rt);
	wake_up_process(hog);
	KT_EXPECT(t, kthread_join_timeout(rt, 10 * HZ, NULL), "the RT task never finished");
	hog_niv = hog->nivcsw;
	hog_nv = hog->nvcsw;
	KT_EXPECT(t, kthread_join_timeout(hog, 10 * HZ, NULL), "the hog never finished");

	KT_EXPECT(t, rp.hog_started, "the RT task ran before the hog started (%d tries)", rp.rt_tries);
	KT_EXPECT(t, rp.rt_cpu == (int)cpu, "RT task ran on CPU %d, bound to %u", rp.rt_cpu, cpu);
	kt_info("%s: RT task ran %s the hog's spin; hog switches: %lu voluntary, %lu involuntary",
		preemptive ? "preemptive" : "non-preemptive",
		rp.rt_saw_spinning ? "in the middle of" : "after", hog_nv, hog_niv);
	if (preemptive) {
		KT_EXPECT(t, rp.rt_saw_spinning, "RT task waited for the hog's voluntary switch");
		KT_EXPECT(t, hog_niv > 0, "the hog was never preempted");
		KT_EXPECT(t, total_nivcsw() > niv0, "involuntary switches did not rise");
	} else {
		KT_EXPECT(t, !rp.rt_saw_spinning && rp.hog_yield_at && rp.rt_ran_at >= rp.hog_yield_at,
			  "RT task ran before the hog reached cond_resched()");
		KT_EXPECT(t, hog_niv == 0, "hog preempted %lu times without CONFIG_KPREEMPT", hog_niv);
		KT_EXPECT(t, total_nivcsw() == niv0, "involuntary switches rose from %lu to %lu",
			  niv0, total_nivcsw());
	}
}

/* Seed 003 Figure 2: rq_has_rt_task() sees a runnable RT task, and only then. */
static volatile bool spin_go, rt_seen_inside;

static int rt_spinner(void *arg)
{
	rt_seen_inside = rq_has_rt_task(smp_processor_id());	/* we are one */
	while (arg && READ_ONCE(spin_go))
		cond_resched();
	return 0;
}

KTEST(sched_rq_has_rt_task)
{
	unsigned int cpu = num_online_cpus() > 1 ? 1 : 0;
	bool spin = cpu != 0;	/* an RT spinner on our own CPU would starve us */
	bool outside = true;
	struct task *p;

	msleep(5);
	KT_EXPECT(t, !rq_has_rt_task(cpu), "RT task on CPU %u before we made one", cpu);
	rt_seen_inside = false;
	spin_go = true;
	p = kthread_create_on_cpu(rt_spinner, (void *)spin, cpu, "rtspin");
	KT_ASSERT(t, p, "no memory");
	sched_setscheduler(p, SCHED_RR, 10);
	wake_up_process(p);
	if (spin) {
		msleep(10);
		outside = rq_has_rt_task(cpu);
	}
	spin_go = false;
	KT_EXPECT(t, kthread_join_timeout(p, 10 * HZ, NULL), "spinner did not stop");
	KT_EXPECT(t, rt_seen_inside, "the RT task did not see itself on CPU %u", cpu);
	KT_EXPECT(t, outside, "no RT task seen on CPU %u from CPU %u", cpu, smp_processor_id());
	/*
	 * The join returns at the exit's complete_all(), before the task's
	 * last switch takes it off its CPU's queue: a vCPU the host holds
	 * between the two keeps it queued, so wait (up to 5 s) for the queue.
	 */
	for (int ms = 0; ms < 5000 && rq_has_rt_task(cpu); ms += 5)
		msleep(5);
	KT_EXPECT(t, !rq_has_rt_task(cpu), "RT task still reported 5 s after it exited");
}

/* Round robin: two SCHED_RR tasks of one priority share a CPU by time slice. */
static volatile int rr_stop;
static volatile unsigned long rr_count[2];

static int rr_fn(void *arg)
{
	long i = (long)arg;
	u64 t0 = ktime_get_ns();

	while (!rr_stop && ktime_get_ns() - t0 < 20000000000ULL) {	/* past the test's wait */
		rr_count[i]++;
		cond_resched();
	}
	return 0;
}

KTEST(sched_rr_shares_cpu)
{
	unsigned int cpu = num_online_cpus() > 1 ? 1 : 0;
	struct task *p[2];

	if (cpu == 0) {
		ktest_skip(t, "needs a second CPU (the RR tasks would starve the test)");
		return;
	}
	rr_stop = 0;
	rr_count[0] = rr_count[1] = 0;
	for (long i = 0; i < 2; i++) {
		p[i] = kthread_create_on_cpu(rr_fn, (void *)i, cpu, "rr%ld", i);
		KT_ASSERT(t, p[i], "no memory");
		sched_setscheduler(p[i], SCHED_RR, 20);
	}
	wake_up_process(p[0]);
	wake_up_process(p[1]);
	msleep(200);
	kt_info("in 200 ms: rr0 %lu, rr1 %lu iterations", rr_count[0], rr_count[1]);
	/*
	 * Liveness, not a share: a vCPU the host starves for a time slice
	 * runs only one of them in 200 ms, so each has up to 10 s to run.
	 */
	for (int ms = 0; ms < 10000 && !(rr_count[0] && rr_count[1]); ms += 10)
		msleep(10);
	rr_stop = 1;
	for (int i = 0; i < 2; i++)
		KT_EXPECT(t, kthread_join_timeout(p[i], 10 * HZ, NULL), "rr%d did not stop", i);
	kt_info("rr0 %lu, rr1 %lu iterations", rr_count[0], rr_count[1]);
	KT_EXPECT(t, rr_count[0] && rr_count[1], "one RR task never ran in 10 s");
}
