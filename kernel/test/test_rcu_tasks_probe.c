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
