/*
 * The task list on RCU (seed 001 Table 4) under fire, and its benchmark.
 *
 * tasklist_stress: one reader per CPU walks every task and looks up
 * recent pids in the PID hash under rcu_read_lock(), lingering on each
 * task and checking its magic before and after; two churners create
 * kernel threads that exit on their own or are kthread_stop()ped. With
 * CONFIG_DEBUG_KMALLOC_POISON a task struct freed under a reader reads
 * as poison: on a real RCU variant call_rcu() waits for the reader, on
 * the busted one it does not, and the reader panics. At the end every
 * task struct the test made must be freed (memory back at its baseline).
 *
 * bench_tasklist: a `ps`-like walk's latency and the kthread create/exit
 * rate while both run, tasklist=rcu against tasklist=lock, in one boot.
 */
#include <ktest.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <printk.h>
#include <panic.h>
#include <rcupdate.h>
#include <kmalloc.h>

#define STRESS_NS	3000000000ULL
#define BENCH_NS	1000000000ULL

static volatile bool tl_stop;
static atomic_t tl_recent_pid;
static atomic_long_t tl_visits, tl_lookups, tl_made;

static void tl_check(struct task *p, const char *how)
{
	if (READ_ONCE(p->magic) != TASK_MAGIC)
		panic("tasklist: a rcu reader on CPU %u found a freed task (%s)",
		      smp_processor_id(), how);
}

static void tl_visit(struct task *p, void *arg)
{
	unsigned int *linger_us = arg;

	tl_check(p, "walk");
	if (*linger_us)
		udelay(*linger_us);	/* a `ps` copying the task out */
	tl_check(p, "walk, after lingering");
	atomic_long_inc(&tl_visits);
}

/*
 * Stand on one task for a while, as kill() does between finding a task
 * and signalling it: the churners' newest threads are about to exit, so
 * this is where a free that does not wait for readers shows.
 */
static void tl_chase(int pid)
{
	struct task *p;

	rcu_read_lock();
	p = find_task_by_pid(pid);
	if (p) {
		for (int i = 0; i < 40; i++) {
			tl_check(p, "pid lookup, lingering");
			udelay(10);
		}
		/* kill()'s way to keep it past the read section */
		if (get_task_unless_zero(p)) {
			rcu_read_unlock();
			tl_check(p, "referenced");
			put_task(p);
		} else {
			rcu_read_unlock();
		}
		atomic_long_inc(&tl_lookups);
	} else {
		rcu_read_unlock();
	}
}

static int tl_reader(void *arg)
{
	unsigned int linger = 1;

	while (!READ_ONCE(tl_stop)) {
		int pid = atomic_read(&tl_recent_pid);

		for_each_task(tl_visit, &linger);
		for (int d = 0; d < 3; d++)
			tl_chase(pid + d);
		schedule_timeout_interruptible(1);
	}
	return 0;
}

static int tl_short(void *arg)
{
	return 0;
}

static int tl_until_stopped(void *arg)
{
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/* Create and end kernel threads until told to stop (the fork/exit storm). */
static int tl_churner(void *arg)
{
	long n = 0;

	while (!READ_ONCE(tl_stop)) {
		struct task *a = kthread_create(tl_short, NULL, "tl-short");
		struct task *b = kthread_run(tl_until_stopped, NULL, "tl-stop");

		if (a) {
			/* Readers chase it before it runs, exits and is freed. */
			atomic_set(&tl_recent_pid, a->pid);
			udelay(50);
			wake_up_process(a);
			kthread_join(a);
			n++;
		}
		if (b) {
			kthread_stop(b);
			n++;
		}
		if (!a || !b)
			msleep(1);
	}
	atomic_long_add(n, &tl_made);
	return 0;
}

static void tl_wait_freed(long alive0)
{
	rcu_barrier();
	for (u64 t0 = ktime_get_ns(); ktime_get_ns() - t0 < 5000000000ULL && nr_tasks_alive() > alive0; ) {
		msleep(5);
		rcu_barrier();
	}
}

KTEST_MANUAL(tasklist_stress)
{
	struct task *r[CONFIG_NR_CPUS], *c[2];
	long alive0;
	struct kmalloc_stats k0, k1;
	unsigned int cpu;

	rcu_barrier();		/* earlier tests' dead tasks: freed by call_rcu() */
	alive0 = nr_tasks_alive();
	kmalloc_get_stats(&k0);
	WRITE_ONCE(tl_stop, false);
	atomic_long_set(&tl_visits, 0);
	atomic_long_set(&tl_lookups, 0);
	atomic_long_set(&tl_made, 0);
	for_each_possible_cpu(cpu)
		r[cpu] = kthread_create_on_cpu(tl_reader, NULL, cpu, "tl-read%u", cpu);
	for (int i = 0; i < 2; i++)
		c[i] = kthread_run(tl_churner, NULL, "tl-churn%d", i);
	for_each_possible_cpu(cpu)
		if (r[cpu])
			wake_up_process(r[cpu]);
	msleep(STRESS_NS / 1000000);
	WRITE_ONCE(tl_stop, true);
	for (int i = 0; i < 2; i++)
		if (c[i])
			kthread_join(c[i]);
	for_each_possible_cpu(cpu)
		if (r[cpu])
			kthread_join(r[cpu]);
	tl_wait_freed(alive0);
	kmalloc_get_stats(&k1);
	KT_EXPECT(t, atomic_long_read(&tl_made) > 0, "no kernel thread was made");
	KT_EXPECT(t, nr_tasks_alive() == alive0, "%ld task structs alive, %ld before",
		  nr_tasks_alive(), alive0);
	KT_EXPECT(t, k1.objects <= k0.objects,
		  "kmalloc: %ld objects live, %ld before",
		  k1.objects, k0.objects);
	kt_info("tasklist=%s %u CPUs: %ld threads made and ended, %ld task visits, %ld pid lookups, no freed task seen",
		tasklist_is_rcu() ? "rcu" : "lock", nr_cpu_ids, atomic_long_read(&tl_made),
		atomic_long_read(&tl_visits), atomic_long_read(&tl_lookups));
}

/* One mode: a walker (lingering 5 us a task, like ps's copy) against two churners. */
static void tl_bench_one(bool rcu, u64 *walk_ns, long *made_per_s)
{
	struct task *c[2];
	unsigned int linger = 5;
	u64 t0, sum = 0;
	long walks = 0;

	tasklist_set_rcu(rcu);
	WRITE_ONCE(tl_stop, false);
	atomic_long_set(&tl_made, 0);
	for (int i = 0; i < 2; i++)
		c[i] = kthread_run(tl_churner, NULL, "tl-churn%d", i);
	t0 = ktime_get_ns();
	while (ktime_get_ns() - t0 < BENCH_NS) {
		u64 s = ktime_get_ns();

		for_each_task(tl_visit, &linger);
		sum += ktime_get_ns() - s;
		walks++;
		msleep(1);
	}
	WRITE_ONCE(tl_stop, true);
	for (int i = 0; i < 2; i++)
		if (c[i])
			kthread_join(c[i]);
	*walk_ns = walks ? sum / walks : 0;
	*made_per_s = atomic_long_read(&tl_made) * 1000000000LL / (long)(ktime_get_ns() - t0);
}

KTEST_MANUAL(bench_tasklist)
{
	bool was = tasklist_is_rcu();
	u64 wr, wl;
	long fr, fl;
	long alive0;

	rcu_barrier();
	alive0 = nr_tasks_alive();
	tl_bench_one(true, &wr, &fr);
	tl_bench_one(false, &wl, &fl);
	tasklist_set_rcu(was);
	tl_wait_freed(alive0);
	bench_json("{\"bench\":\"tasklist\",\"mode\":\"rcu\",\"cpus\":%u,\"walk_ns\":%lu,\"forks_per_s\":%ld}",
	       nr_cpu_ids, (unsigned long)wr, fr);
	bench_json("{\"bench\":\"tasklist\",\"mode\":\"lock\",\"cpus\":%u,\"walk_ns\":%lu,\"forks_per_s\":%ld}",
	       nr_cpu_ids, (unsigned long)wl, fl);
	printk("tasklist-bench: %u CPUs: walk rcu %lu ns, lock %lu ns; kthreads/s rcu %ld, lock %ld; fork rate rcu/lock %ld.%02ld\n",
	       nr_cpu_ids, (unsigned long)wr, (unsigned long)wl, fr, fl,
	       fl ? fr / fl : 0, fl ? fr * 100 / fl % 100 : 0);
	KT_EXPECT(t, fr > 0 && fl > 0, "no kernel thread made (rcu %ld, lock %ld)", fr, fl);
	KT_EXPECT(t, nr_tasks_alive() == alive0, "%ld task structs alive, %ld before",
		  nr_tasks_alive(), alive0);
}
