/*
 * Tasks RCU's holdout scan meets a task that is exiting.
 *
 *   ktest=rcu_tasks_dying_holdout
 *
 * With tasklist=rcu (the default) the scan walks the task list under
 * rcu_read_lock(), so it can meet a task that has left the list and
 * dropped its last reference: the struct is still there until the
 * reader ends, but its free is already queued. A reference taken then
 * raises a count from zero, and the scan's later put_task() frees the
 * task a second time. The test makes that happen every time: a thread
 * bound to another CPU spins (runnable, so the scan chooses it as a
 * holdout); the scan's fault point (tasks_rcu_holdout) stops there on
 * that thread, lets it exit, and waits until its count is zero before
 * the scan goes on to take its reference. get_task() warns on a count
 * of zero; the scan must skip such a task (it is not inside any
 * trampoline: it has exited). Needs two CPUs and CONFIG_FAULT_INJECT.
 */
#include <rcupdate_tasks.h>
#include <rcupdate.h>
#include <ktest.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <atomic.h>
#include <arch/cpu.h>
#include <fault_inject.h>

#define DH_WAIT_NS	(500 * 1000000ULL)

static struct task *dh_victim;	/* no reference of ours: it may be freed */
static volatile bool dh_go;
static volatile int dh_seen;	/* 1: met with its count at zero; 2: it never got there */

static int dh_victim_fn(void *arg)
{
	while (!READ_ONCE(dh_go))
		cpu_relax();	/* runnable and running: the scan takes it */
	return 0;
}

/* At the scan's point, on each task it chose: hold it on ours until it is gone. */
static int dh_hold(void *arg)
{
	struct task *t = arg;
	u64 end;

	if (t != READ_ONCE(dh_victim) || READ_ONCE(dh_seen))
		return 0;
	WRITE_ONCE(dh_go, true);
	end = ktime_get_ns() + DH_WAIT_NS;
	/* t stays readable: the walk's read-side section holds its free back. */
	while (atomic_read(&t->usage) && ktime_get_ns() < end)
		cpu_relax();
	WRITE_ONCE(dh_seen, atomic_read(&t->usage) ? 2 : 1);
	return 0;
}

KTEST_MANUAL(rcu_tasks_dying_holdout)
{
	unsigned int cpu = 0, me;
	struct task *v;
	u64 end;

	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs 2 CPUs: the victim exits while the scan holds");
		return;
	}
	if (fault_set_handler(FAULT_tasks_rcu_holdout, NULL)) {
		ktest_skip(t, "needs CONFIG_FAULT_INJECT: the scan is held at its fault point");
		return;
	}
	if (!tasklist_is_rcu()) {
		ktest_skip(t, "tasklist=lock: the scan holds the list lock, no task leaves meanwhile");
		return;
	}
	synchronize_rcu_tasks();	/* the kthread started, before we watch */
	me = smp_processor_id();
	while (cpu == me || !cpu_online(cpu))
		cpu++;
	WRITE_ONCE(dh_go, false);
	WRITE_ONCE(dh_seen, 0);
	v = kthread_create_on_cpu(dh_victim_fn, NULL, cpu, "tasks_victim");
	KT_ASSERT(t, v, "no memory for the victim thread");
	wake_up_process(v);
	end = ktime_get_ns() + DH_WAIT_NS;
	while (cpu_curr(cpu) != v && ktime_get_ns() < end)
		schedule_timeout_uninterruptible(1);
	KT_ASSERT(t, cpu_curr(cpu) == v, "the victim never ran on cpu%u", cpu);
	WRITE_ONCE(dh_victim, v);
	put_task(v);		/* its own reference is now the last one */

	fault_set_handler(FAULT_tasks_rcu_holdout, dh_hold);
	synchronize_rcu_tasks();
	fault_set_handler(FAULT_tasks_rcu_holdout, NULL);
	WRITE_ONCE(dh_victim, NULL);
	WRITE_ONCE(dh_go, true);	/* if the scan never met it, let it go now */
	rcu_barrier();		/* the victim's free, before the next test */
	kt_info("rcu-tasks-dying-holdout: the scan met the victim %s; tasks grace periods %lu",
		dh_seen == 1 ? "after its last reference was gone" :
		dh_seen == 2 ? "but it never dropped its reference" : "never",
		rcu_tasks_gp_count());
	KT_EXPECT(t, dh_seen == 1, "the window never opened (seen %d): the scan did not "
		  "meet the victim with its count at zero", dh_seen);
}
