/*
 * rcu_barrier() against a dead task's free. put_task() drops a task's
 * last reference with interrupts off (finish_task_switch() does) by
 * parking it for a tasklet, which queues its free on call_rcu() later:
 * the free is asked for before an rcu_barrier() that comes between the
 * two, but not yet queued. rcu_barrier() waits for every callback queued
 * before it; a caller that counts tasks, or unloads the code a task ran,
 * needs it to wait for that free as well.
 *
 * The tasklet may run at once or late, as the host schedules the vCPUs;
 * the fault-injection point at its start (dead_tasks_tasklet,
 * docs/fault-injection.md) holds the task parked until the barrier has
 * returned, so the order the race allows is the one tested, every run.
 */
#include <ktest.h>
#include <rcupdate.h>
#include <sched.h>
#include <time.h>
#include <printk.h>
#include <fault_inject.h>
#include <arch/irq.h>

static volatile int rbt_hold;

static int rbt_hold_parked(void *arg)
{
	return READ_ONCE(rbt_hold);
}

static int rbt_exit(void *arg)
{
	return 0;
}

/* Earlier tests' tasks, still being freed, would move the count. */
static long rbt_settled_alive(void)
{
	long n = -1;

	for (int i = 0; i < 200 && n != nr_tasks_alive(); i++) {
		n = nr_tasks_alive();
		rcu_barrier();
		msleep(1);
	}
	return nr_tasks_alive();
}

KTEST(rcu_barrier_dead_task)
{
	unsigned long flags;
	long alive0, alive1;
	struct task *p;

	if (fault_set_handler(FAULT_dead_tasks_tasklet, NULL)) {
		printk("rcu-barrier-dead-task: skipped (needs CONFIG_FAULT_INJECT)\n");
		return;
	}
	p = kthread_run(rbt_exit, NULL, "rbt_exit");
	KT_ASSERT(t, p, "kthread_run failed");
	get_task(p);
	kthread_join(p);
	/* The exit's own reference goes in the next switch on its CPU. */
	for (int i = 0; i < 5000 && atomic_read(&p->usage) > 1; i++)
		msleep(1);
	KT_ASSERT(t, atomic_read(&p->usage) == 1, "the exited task still has %d references",
		  atomic_read(&p->usage));
	alive0 = rbt_settled_alive();

	WRITE_ONCE(rbt_hold, 1);
	fault_set_handler(FAULT_dead_tasks_tasklet, rbt_hold_parked);
	flags = local_irq_save();
	put_task(p);			/* the last reference, interrupts off: parked */
	local_irq_restore(flags);
	rcu_barrier();
	alive1 = nr_tasks_alive();
	WRITE_ONCE(rbt_hold, 0);
	fault_set_handler(FAULT_dead_tasks_tasklet, NULL);

	printk("rcu-barrier-dead-task: tasks alive %ld before put_task(), %ld after rcu_barrier()\n",
	       alive0, alive1);
	KT_EXPECT(t, alive1 == alive0 - 1,
		  "rcu_barrier() returned before the free of a task put with interrupts off "
		  "(%ld tasks alive, %ld expected)", alive1, alive0 - 1);
	/* Released, the tasklet queues it; a test that counts tasks calls
	 * rcu_barrier() first, which (fixed) waits for it as well. */
}
