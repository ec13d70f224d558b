/*
 * Tasks RCU test (include/rcupdate_tasks.h, docs/rcu/tasks.md), kmalloc
 * poisoning on:
 *
 *   ktest=rcu_tasks_trampoline   runner threads, one more than the CPUs, "execute a
 *       trampoline": they load the current one and check its magic again
 *       and again for a couple of milliseconds with no voluntary switch
 *       (a preemptible kernel preempts them there, since they outnumber
 *       the CPUs). A writer installs a new trampoline and frees the old
 *       one after synchronize_rcu_tasks() or call_rcu_tasks(). A runner
 *       that finds poison was left inside a freed trampoline.
 *
 * Tasks RCU does not use the RCU variant (it works under rcu-busted too);
 * the mutant tests/mutants/tasks-preempted-left-out.toml (a preempted
 * task taken for one not inside) fails it under a preemptible kernel.
 */
#include <rcupdate_tasks.h>
#include <ktest.h>
#include <cmdline.h>
#include <kmalloc.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <atomic.h>
#include <printk.h>

#define TRAMP_LIVE	0x7a3b7a3b7a3b7a3bUL

struct trampoline {
	unsigned long magic;
	struct rcu_head rh;
};

static unsigned long tasks_test_duration_s = 2;
CMDLINE_ULONG("rcu_tasks_test.duration", tasks_test_duration_s, 1, 3600,
	      "rcu_tasks_test.duration=S: the Tasks RCU test runs S seconds (default 2, 1..3600)");

/* Read by runners with no lock at all: Tasks RCU's readers are implicit. */
static struct trampoline *tramp_cur;
static volatile bool tramp_stopping;
static atomic_long_t tramp_runs, tramp_bad, tramp_updates, tramp_inflight;
static atomic_t tramp_reports;

static int tramp_runner(void *arg)
{
	while (!READ_ONCE(tramp_stopping)) {
		struct trampoline *p = smp_load_acquire(&tramp_cur);
		int i;

		for (i = 0; i < 50; i++) {	/* inside: no voluntary switch */
			unsigned long m = READ_ONCE(p->magic);

			if (m != TRAMP_LIVE) {
				atomic_long_inc(&tramp_bad);
				if (atomic_inc_return(&tramp_reports) <= 3)
					printk("rcu-tasks-test: ERROR: cpu%u runner inside a freed "
					       "trampoline (magic %lx)\n", smp_processor_id(), m);
				break;
			}
			udelay(100);
		}
		atomic_long_inc(&tramp_runs);
		cond_resched();			/* outside: a quiescent state */
	}
	return 0;
}

static void tramp_free_cb(void *arg)
{
	struct trampoline *p = arg;

	p->magic = 0;
	kfree(p);
	atomic_long_dec(&tramp_inflight);
}

static int tramp_writer(void *arg)
{
	unsigned long n = 0;

	while (!READ_ONCE(tramp_stopping)) {
		struct trampoline *new = kmalloc(sizeof(*new)), *old = tramp_cur;

		new->magic = TRAMP_LIVE;
		smp_store_release(&tramp_cur, new);
		atomic_long_inc(&tramp_updates);
		if (++n & 1) {
			synchronize_rcu_tasks();
			old->magic = 0;
			kfree(old);
		} else {
			atomic_long_inc(&tramp_inflight);
			call_rcu_tasks(&old->rh, tramp_free_cb, old);
			if (atomic_long_read(&tramp_inflight) > 16)
				rcu_barrier_tasks();
		}
		schedule_timeout_uninterruptible(1);
	}
	return 0;
}

KTEST_MANUAL(rcu_tasks_trampoline)
{
	struct task *runners[2 * CONFIG_NR_CPUS], *writer;
	unsigned int nr = num_online_cpus() + 1, i;
	struct kmalloc_stats k0, k1;
	unsigned long gp0 = rcu_tasks_gp_count();

	rcu_barrier_tasks();		/* its kthread's memory before the baseline */
	rcu_barrier();			/* dead tasks are freed by call_rcu() */
	kmalloc_get_stats(&k0);
	tramp_cur = kmalloc(sizeof(*tramp_cur));
	tramp_cur->magic = TRAMP_LIVE;
	WRITE_ONCE(tramp_stopping, false);
	for (i = 0; i < nr; i++)
		runners[i] = kthread_run(tramp_runner, NULL, "tramp_runner/%u", i);
	writer = kthread_run(tramp_writer, NULL, "tramp_writer");
	schedule_timeout_uninterruptible(msecs_to_jiffies(tasks_test_duration_s * 1000));
	WRITE_ONCE(tramp_stopping, true);
	kthread_join(writer);
	for (i = 0; i < nr; i++)
		kthread_join(runners[i]);
	rcu_barrier_tasks();
	tramp_cur->magic = 0;
	kfree(tramp_cur);
	tramp_cur = NULL;
	rcu_barrier();			/* the runners' task structs */
	kmalloc_get_stats(&k1);
	printk("rcu-tasks-test: %u runners on %u CPUs, rcu=%s, preemption=%s: runs %ld, "
	       "trampolines replaced %ld, tasks grace periods %lu\n", nr, num_online_cpus(),
	       rcu_variant_name(), preempt_model_name(), atomic_long_read(&tramp_runs),
	       atomic_long_read(&tramp_updates), rcu_tasks_gp_count() - gp0);
	if (atomic_long_read(&tramp_bad))
		printk("rcu-tasks-test: FAILURE: %ld runs were inside a freed trampoline\n",
		       atomic_long_read(&tramp_bad));
	else
		printk("rcu-tasks-test: SUCCESS\n");
	KT_EXPECT(t, atomic_long_read(&tramp_bad) == 0, "runs inside a freed trampoline");
	KT_EXPECT(t, atomic_long_read(&tramp_updates) > 0, "no trampoline replaced");
	KT_EXPECT(t, k1.objects == k0.objects, "kmalloc objects %ld -> %ld", k0.objects, k1.objects);
}
