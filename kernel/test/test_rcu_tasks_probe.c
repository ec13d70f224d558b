/*
 * Tasks RCU's user (include/probe.h, kernel/trace/probe.c): a probe whose
 * handler is module text, which module unload must wait out.
 *
 *   ktest=rcu_tasks_probe_unload [rcu_tasks_probe.loads=N]
 *
 * One more kernel thread than CPUs hits probestress_site over and over;
 * the ktest thread loads modules/probestress.c (its init attaches a
 * handler that spends 4 ms in the module with no voluntary switch), lets
 * the runners in, and unloads it: its exit's probe_detach() waits for a
 * Tasks RCU grace period, then the loader poisons and unmaps the module.
 * The runners outnumber the CPUs, so under a preemptible kernel some are
 * preempted inside the handler, and the others run inside it on the
 * other CPUs, whenever the loader unloads. The module's exit counts the
 * tasks inside its handler after probe_detach() and panics if any is: if
 * the wait were skipped (tests/mutants/tasks-probe-detach-no-wait.toml)
 * that is nearly every unload. A runner that slipped past the count would
 * resume in unmapped text (a page fault) or read poison (the module's
 * panic). Passing means every unload waited for them. KTEST_MANUAL, as rcu_tasks_trampoline: run by name in
 * rcu-tasks-*-smp4.
 */
#include <ktest.h>
#include <module.h>
#include <probe.h>
#include <rcupdate_tasks.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <atomic.h>
#include <errno.h>
#include <export.h>
#include <cmdline.h>
#include <string.h>
#include <wait.h>
#include <arch/cpu.h>
#include <fault_inject.h>
#include "probestress.h"
#include "module/module_test.h"

struct probe_site probestress_site = PROBE_SITE_INIT("probestress");
EXPORT_SYMBOL(probestress_site);

static unsigned long probe_loads = 4;
CMDLINE_ULONG("rcu_tasks_probe.loads", probe_loads, 1, 100000,
	      "rcu_tasks_probe.loads=N: loads and unloads of probestress.ko in "
	      "ktest=rcu_tasks_probe_unload (default 4)");

static volatile bool probe_stopping;
static atomic_long_t probe_hits, probe_misses;

static int probe_runner(void *arg)
{
	unsigned long n = (unsigned long)arg * 1000;

	while (!READ_ONCE(probe_stopping)) {
		if (probe_hit(&probestress_site, n++)) {
			atomic_long_inc(&probe_hits);
			cond_resched();	/* outside the handler: a quiescent state */
		} else {
			/* Nothing attached: leave the CPUs to the loader. */
			atomic_long_inc(&probe_misses);
			schedule_timeout_uninterruptible(1);
		}
	}
	return 0;
}

KTEST_MANUAL(rcu_tasks_probe_unload)
{
	struct task *runners[2 * CONFIG_NR_CPUS];
	unsigned int nr = num_online_cpus() + 1, i;
	unsigned long loads = 0, nivcsw = 0, gp0;
	u64 load_ns = 0, exit_ns = 0, t0;
	struct module_unload_times times;
	struct test_module_baseline base;
	char err[QS_MODULE_ERRLEN];
	const void *img;
	size_t size;
	int r;

	KT_ASSERT(t, !test_module_image("probestress", &img, &size), "no probestress.ko in the initrd");
	r = load_module(img, size, NULL, err, sizeof(err));	/* warm up, then the baseline */
	KT_ASSERT(t, r == 0, "insmod probestress: %s", err);
	KT_ASSERT(t, unload_module("probestress", 0, NULL) == 0, "rmmod probestress");
	rcu_barrier();
	test_module_baseline(&base);
	gp0 = rcu_tasks_gp_count();

	WRITE_ONCE(probe_stopping, false);
	for (i = 0; i < nr; i++)
		runners[i] = kthread_run(probe_runner, (void *)(unsigned long)i, "probe_runner/%u", i);
	while (loads < probe_loads) {
		long h0;

		t0 = ktime_get_ns();
		r = load_module(img, size, NULL, err, sizeof(err));
		load_ns += ktime_get_ns() - t0;
		if (r) {
			KT_EXPECT(t, 0, "insmod probestress: %d %s", r, err);
			break;
		}
		loads++;
		/* Let the runners in (and, preemptible, some preempted inside). */
		h0 = atomic_long_read(&probe_hits);
		do
			schedule_timeout_uninterruptible(2);
		while (atomic_long_read(&probe_hits) - h0 < nr);
		r = unload_module("probestress", 0, &times);
		KT_EXPECT(t, r == 0, "rmmod probestress: %d", r);
		exit_ns += times.exit_ns;
	}
	WRITE_ONCE(probe_stopping, true);
	for (i = 0; i < nr; i++) {
		nivcsw += READ_ONCE(runners[i]->nivcsw);
		kthread_join(runners[i]);
	}
	kt_info("rcu-tasks-probe: %u runners on %u CPUs, rcu=%s, preemption=%s: %lu loads and "
		"unloads, probe hits %ld (misses %ld), runners preempted %lu times, tasks grace "
		"periods %lu; mean load %llu us, mean exit (the Tasks RCU wait) %llu us", nr, num_online_cpus(), rcu_variant_name(), preempt_model_name(),
		loads, atomic_long_read(&probe_hits), atomic_long_read(&probe_misses), nivcsw,
		rcu_tasks_gp_count() - gp0, (unsigned long long)(load_ns / loads / 1000),
		(unsigned long long)(exit_ns / loads / 1000));
	KT_EXPECT(t, loads == probe_loads && atomic_long_read(&probe_hits) > 0, "loads %lu hits %ld",
		  loads, atomic_long_read(&probe_hits));
	rcu_barrier();			/* the runners' task structs */
	test_module_same(t, &base, "the load/unload loop");
}

/*
 * ktest=rcu_tasks_probe_migrate: a task preempted inside the probe
 * handler because its affinity changed must stay a holdout while the
 * scheduler moves it. __schedule() takes such a task off its CPU's queue
 * and the task that runs next there queues it on an allowed CPU
 * (migrate_after_switch()); in between the task is runnable but on no
 * queue, and the scan, which reads on_rq without the run-queue lock,
 * must not take it for blocked. Two CPUs, "from" and "to" (the ktest's):
 *
 *   - a runner bound to "from" hits probestress_site over and over;
 *   - at each unload, when the scan chooses the runner as a holdout while
 *     it runs inside the handler (the tasks_rcu_holdout point), the test
 *     wakes a filler thread bound to "from" (asleep until then, so no
 *     holdout) and moves the runner to "to": the IPI preempts it inside
 *     the handler and the filler runs next on "from";
 *   - the migrate_off_rq point, in the filler, holds the runner off every
 *     queue for up to 200 ms, interrupts off, and records a Tasks RCU
 *     grace period that ends meanwhile.
 * The filler keeps "from" from looking idle, so that no woken task is
 * queued behind the hold. The scan itself must run on "to": on "from" it
 * would find the runner switched out, or wait behind the hold. Wherever
 * the rcu_tasks kthread last ran, a wake-up keeps it there while both
 * CPUs are busy, so the test pins it to "to" for its rounds, as taskset
 * would a kernel thread, and gives it back all CPUs after. A grace period that ends
 * during the hold dropped a task that is still inside: probe_detach()
 * returns and the module's exit panics, naming the task still inside.
 * Preemptible kernels only (elsewhere the runner moves at its next
 * voluntary switch, outside the handler).
 */
#define PM_HOLD_NS	(200 * 1000000ULL)
#define PM_WINDOWS	2
#define PM_ATTEMPTS	12

static struct task *pm_runner;
static volatile bool pm_in_hit, pm_fill, pm_unloaded;
static volatile unsigned long pm_seq, pm_seq_chosen;
static volatile int pm_window;		/* 0 off, 1 armed, 2 holding, 3 held */
static unsigned int pm_from, pm_to;
static unsigned long pm_early, pm_flips;
static DECLARE_WAIT_QUEUE_HEAD(pm_wq);

static int pm_runner_fn(void *arg)
{
	unsigned long n = 0;

	while (!READ_ONCE(probe_stopping)) {
		bool hit;

		WRITE_ONCE(pm_seq, pm_seq + 1);	/* a new visit to the site */
		WRITE_ONCE(pm_in_hit, true);
		hit = probe_hit(&probestress_site, n++);
		WRITE_ONCE(pm_in_hit, false);
		if (hit) {
			atomic_long_inc(&probe_hits);
			cond_resched();	/* outside the handler: a quiescent state */
		} else {
			atomic_long_inc(&probe_misses);
			schedule_timeout_uninterruptible(1);
		}
	}
	return 0;
}

static int pm_filler_fn(void *arg)
{
	while (!READ_ONCE(probe_stopping)) {
		wait_event(pm_wq, READ_ONCE(pm_fill) || READ_ONCE(probe_stopping));
		WRITE_ONCE(pm_fill, false);
	}
	return 0;
}

/* The scan chose a holdout (in the rcu_tasks kthread, under its walk). */
static int pm_chosen(void *arg)
{
	if (arg != pm_runner || READ_ONCE(pm_window) != 1 || !READ_ONCE(pm_in_hit) ||
	    cpu_curr(pm_from) != pm_runner)
		return 0;
	pm_seq_chosen = READ_ONCE(pm_seq);
	WRITE_ONCE(pm_fill, true);
	wake_up(&pm_wq);			/* queued behind the runner on "from" */
	set_cpus_allowed_one(pm_runner, pm_to);	/* preempts it there */
	pm_flips++;
	return 0;
}

/* On "from", in the filler, interrupts off: the runner is on no queue. */
static int pm_hold(void *arg)
{
	unsigned long gp;
	u64 end;

	if (arg != pm_runner || READ_ONCE(pm_window) != 1 || !READ_ONCE(pm_in_hit) ||
	    READ_ONCE(pm_seq) != pm_seq_chosen)
		return 0;		/* not inside the visit the scan saw */
	gp = rcu_tasks_gp_count();
	WRITE_ONCE(pm_window, 2);
	end = ktime_get_ns() + PM_HOLD_NS;
	while (rcu_tasks_gp_count() == gp && ktime_get_ns() < end)
		cpu_relax();
	if (rcu_tasks_gp_count() != gp) {
		pm_early++;
		/* Still inside: let the module's exit look. */
		end = ktime_get_ns() + PM_HOLD_NS;
		while (!READ_ONCE(pm_unloaded) && ktime_get_ns() < end)
			cpu_relax();
	}
	WRITE_ONCE(pm_window, 3);
	return 0;
}

static void pm_find_kthread(struct task *p, void *arg)
{
	struct task **kt = arg;

	if (!*kt && !strcmp(p->name, "rcu_tasks") && get_task_unless_zero(p))
		*kt = p;
}

KTEST_MANUAL(rcu_tasks_probe_migrate)
{
	struct task *kt = NULL;
	unsigned int attempts = 0, windows = 0;
	struct task *filler;
	char err[QS_MODULE_ERRLEN];
	const void *img;
	size_t size;
	cpumask_t all;
	int r;

	if (num_online_cpus() < 2 || strcmp(preempt_model_name(), "kpreempt")) {
		ktest_skip(t, "needs 2 CPUs and a preemptible kernel: the runner is preempted "
			   "inside the handler");
		return;
	}
	if (fault_set_handler(FAULT_migrate_off_rq, NULL)) {
		ktest_skip(t, "needs CONFIG_FAULT_INJECT: the move is held at its fault point");
		return;
	}
	KT_ASSERT(t, !test_module_image("probestress", &img, &size), "no probestress.ko in the initrd");
	r = load_module(img, size, NULL, err, sizeof(err));	/* warm up */
	KT_ASSERT(t, r == 0, "insmod probestress: %s", err);
	KT_ASSERT(t, unload_module("probestress", 0, NULL) == 0, "rmmod probestress");

	pm_to = smp_processor_id();
	set_cpus_allowed_one(current, pm_to);
	for_each_task(pm_find_kthread, &kt);	/* the unload started it */
	KT_ASSERT(t, kt, "no rcu_tasks kthread after an unload");
	set_cpus_allowed_one(kt, pm_to);
	pm_from = 0;
	while (pm_from == pm_to || !cpu_online(pm_from))
		pm_from++;
	WRITE_ONCE(probe_stopping, false);
	/* The filler first: the walk meets it (asleep) before the runner. */
	filler = kthread_create_on_cpu(pm_filler_fn, NULL, pm_from, "pm_filler");
	KT_ASSERT(t, filler, "no memory for the filler");
	wake_up_process(filler);
	pm_runner = kthread_create_on_cpu(pm_runner_fn, NULL, pm_from, "pm_runner");
	KT_ASSERT(t, pm_runner, "no memory for the runner");
	wake_up_process(pm_runner);
	fault_set_handler(FAULT_tasks_rcu_holdout, pm_chosen);
	fault_set_handler(FAULT_migrate_off_rq, pm_hold);

	while (windows < PM_WINDOWS && attempts < PM_ATTEMPTS) {
		long h0 = atomic_long_read(&probe_hits);
		u64 end;

		attempts++;
		r = load_module(img, size, NULL, err, sizeof(err));
		if (r) {
			KT_EXPECT(t, 0, "insmod probestress: %d %s", r, err);
			break;
		}
		do
			schedule_timeout_uninterruptible(2);
		while (atomic_long_read(&probe_hits) - h0 < 2);
		pm_seq_chosen = ~0UL;
		WRITE_ONCE(pm_unloaded, false);
		WRITE_ONCE(pm_window, 1);
		r = unload_module("probestress", 0, NULL);
		WRITE_ONCE(pm_unloaded, true);
		KT_EXPECT(t, r == 0, "rmmod probestress: %d", r);
		end = ktime_get_ns() + 2 * PM_HOLD_NS;
		while (READ_ONCE(pm_window) == 2 && ktime_get_ns() < end)
			schedule_timeout_uninterruptible(1);
		if (READ_ONCE(pm_window) == 3)
			windows++;
		WRITE_ONCE(pm_window, 0);
		set_cpus_allowed_one(pm_runner, pm_from);	/* back for the next round */
	}
	fault_set_handler(FAULT_tasks_rcu_holdout, NULL);
	fault_set_handler(FAULT_migrate_off_rq, NULL);
	WRITE_ONCE(probe_stopping, true);
	wake_up(&pm_wq);
	kthread_join(pm_runner);
	kthread_join(filler);
	cpumask_copy(&all, &cpu_online_mask);
	set_cpus_allowed(current, &all);
	set_cpus_allowed(kt, &all);
	put_task(kt);
	kt_info("rcu-tasks-probe-migrate: cpu%u to cpu%u, rcu=%s: %u unloads, runner moved while "
		"chosen %lu times, held off its queue inside the handler %u times, grace periods "
		"ended meanwhile %lu", pm_from, pm_to, rcu_variant_name(), attempts, pm_flips,
		windows, pm_early);
	KT_EXPECT(t, pm_early == 0, "a Tasks RCU grace period ended while a task preempted "
		  "inside the probe handler was off every run queue (%lu times)", pm_early);
	KT_EXPECT(t, windows > 0, "the runner was never held off its queue inside the handler "
		  "(%u unloads, %lu moves)", attempts, pm_flips);
	rcu_barrier();			/* the threads' task structs */
}
