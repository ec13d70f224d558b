/*
 * A task frozen on an offline CPU must not hold up Tasks RCU or SRCU
 * (docs/hotplug.md, "Known limits"; kernel/sched/hotplug.c).
 *
 * A runnable task bound to a CPU that goes down stays on its run queue,
 * frozen, until the CPU returns. If a grace period waits for it, nothing
 * ends that grace period meanwhile, and whoever would bring the CPU back
 * after waiting for one deadlocks. Two tests, public API only, each with
 * a bound on the wait (WAIT_MS) so that a hang is a failure, not a
 * timeout:
 *
 *   hotplug_frozen_tasks_rcu  a thread bound to CPU c runs on and on
 *                             (a delay, cond_resched(), again); c goes
 *                             down; synchronize_rcu_tasks() must return.
 *                             The delay runs with preemption off, so
 *                             that even a preemptible kernel's stopper
 *                             takes c at the thread's cond_resched(): a
 *                             voluntary switch, in no trampoline (one
 *                             preempted may be in one, and rightly holds
 *                             the grace period until c returns).
 *   hotplug_frozen_tasks_rcu_preempted
 *                             the same thread with its delay preemptible
 *                             (a preemptible kernel only): the stopper
 *                             would preempt it in the middle, where a
 *                             trampoline could be. A per-CPU kernel
 *                             thread parks at a point of its own choosing
 *                             instead (kernel/sched/hotplug.c), a
 *                             voluntary switch, so the grace period must
 *                             still return while c is offline.
 *   hotplug_frozen_srcu       a thread bound to c enters srcu_read_lock()
 *                             and runs on inside until told to leave; c
 *                             goes down, the thread is told to leave, and
 *                             synchronize_srcu() must return: the reader
 *                             must run somewhere to reach its unlock.
 *
 * Either way the CPU comes back afterwards, so that a failed run ends.
 */
#include <ktest.h>
#include <cpuhotplug.h>
#include <rcupdate.h>
#include <rcupdate_tasks.h>
#include <srcu.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <rcu_hooks.h>
#include <errno.h>

#define WAIT_MS		3000

struct frozen {
	struct srcu_struct *ss;		/* the SRCU test's domain, else NULL */
	bool preemptible;		/* the delay runs with preemption on */
	volatile bool ready, stop, done;
	unsigned int ran_on;		/* the last CPU the thread ran on */
};

/* The task on the CPU that goes down: runnable throughout. */
static int frozen_thread(void *arg)
{
	struct frozen *f = arg;
	int idx = 0;

	if (f->ss)
		idx = srcu_read_lock(f->ss);
	smp_mb();		/* inside before the test takes the CPU */
	WRITE_ONCE(f->ready, true);
	while (!READ_ONCE(f->stop)) {
		if (f->preemptible) {
			/* Nearly all its time here, where a preemptible
			 * kernel may take the CPU from it. */
			udelay(2000);
			WRITE_ONCE(f->ran_on, smp_processor_id());
			cond_resched();
			continue;
		}
		preempt_disable();
		udelay(50);
		WRITE_ONCE(f->ran_on, smp_processor_id());
		preempt_enable_no_resched();	/* the switch comes next, voluntary */
		cond_resched();
	}
	if (f->ss)
		srcu_read_unlock(f->ss, idx);
	return 0;
}

/* The grace period's caller, in a thread of its own so that the test can bound its wait. */
static int frozen_waiter(void *arg)
{
	struct frozen *f = arg;

	if (f->ss)
		synchronize_srcu(f->ss);
	else
		synchronize_rcu_tasks();
	smp_mb();
	WRITE_ONCE(f->done, true);
	return 0;
}

static void frozen_run(struct ktest_ctx *t, struct srcu_struct *ss, bool preemptible,
		       const char *what)
{
	unsigned int cpu = nr_cpu_ids - 1;
	struct frozen f = { .ss = ss, .preemptible = preemptible };
	struct task *p, *w;
	u64 t0, ms;
	int err, code;

	if (cpu_hotplug_unavailable()) {
		ktest_skip(t, cpu_hotplug_unavailable());
		return;
	}
	p = kthread_create_on_cpu(frozen_thread, &f, cpu, "rcu_frozen");
	KT_ASSERT(t, p, "no memory for the thread");
	wake_up_process(p);
	while (!READ_ONCE(f.ready))
		msleep(1);
	err = cpu_down(cpu);
	KT_EXPECT(t, err == 0, "cpu_down(%u) = %d", cpu, err);
	if (ss)
		WRITE_ONCE(f.stop, true);	/* leave the section: it must run to */
	t0 = ktime_get_ns();
	w = kthread_run(frozen_waiter, &f, "rcu_frozen_gp");
	KT_ASSERT(t, w, "no memory for the waiter");
	while (!READ_ONCE(f.done) && ktime_get_ns() - t0 < WAIT_MS * 1000000ULL)
		msleep(5);
	ms = (ktime_get_ns() - t0) / 1000000;
	kt_info("%s with cpu%u offline: %s after %llu ms; the thread last ran on cpu%u",
		what, cpu, READ_ONCE(f.done) ? "returned" : "STILL WAITING",
		(unsigned long long)ms, READ_ONCE(f.ran_on));
	KT_EXPECT(t, READ_ONCE(f.done),
		  "%s did not return within %u ms while cpu%u was offline with a task "
		  "bound to it still runnable", what, WAIT_MS, cpu);
	WRITE_ONCE(f.stop, true);
	if (!err)
		KT_EXPECT(t, cpu_up(cpu) == 0, "cpu_up(%u)", cpu);
	KT_EXPECT(t, kthread_join_timeout(w, 30 * HZ, &code),
		  "%s did not return with cpu%u back online", what, cpu);
	KT_EXPECT(t, kthread_join_timeout(p, 30 * HZ, &code), "the thread did not stop");
}

KTEST(hotplug_frozen_tasks_rcu)
{
	frozen_run(t, NULL, false, "synchronize_rcu_tasks()");
}

KTEST(hotplug_frozen_tasks_rcu_preempted)
{
	if (!READ_ONCE(sched_preempt_active)) {
		ktest_skip(t, "the kernel is not preemptible: the stopper takes a kernel thread's "
			   "CPU only at a voluntary switch (hotplug_frozen_tasks_rcu)");
		return;
	}
	frozen_run(t, NULL, true, "synchronize_rcu_tasks()");
}

static struct srcu_struct frozen_srcu;

KTEST(hotplug_frozen_srcu)
{
	KT_ASSERT(t, init_srcu_struct(&frozen_srcu, "hotplug_frozen") == 0,
		  "init_srcu_struct() failed");
	frozen_run(t, &frozen_srcu, false, "synchronize_srcu()");
	cleanup_srcu_struct(&frozen_srcu);
}
