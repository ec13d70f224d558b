/*
 * Tasks RCU (include/rcupdate_tasks.h, docs/rcu/tasks.md).
 *
 * Follows the design of Linux's kernel/rcu/tasks.h (classic Tasks RCU:
 * rcu_tasks_wait_gp(), its holdout list and check_holdout_task()), in
 * our own smaller code, under every variant of this tree.
 *
 * Readers are implicit: code that runs between two voluntary context
 * switches, which a preemptible kernel may preempt in the middle (a
 * trampoline, a probe handler). A task preempted there is still on its
 * run queue and has made no voluntary switch since.
 *
 * Quiescent states, per task: a voluntary context switch or cond_resched()
 * (the scheduler calls rcu_tasks_hook_qs(), which counts them in the
 * task's rcu_tasks_qs), a tick that interrupted user mode (the same hook,
 * from the tick), not being runnable at all (blocked or exited: it is
 * not inside a trampoline), or being frozen on an offline CPU after a
 * voluntary switch (CPU hotplug: rcu_tasks_frozen()). Idle tasks never
 * run one. on_rq is read without the run-queue lock, so it must be 0
 * only for a task that blocked or exited: a task the scheduler is moving
 * (between CPUs, or preempted on a CPU its affinity excludes until it is
 * queued elsewhere) is TASK_ON_RQ_MIGRATING, nonzero, and may well be
 * inside a trampoline.
 *
 * A grace period (rcu_tasks_wait_gp()):
 *   1. walking the task list (for_each_task(): under rcu_read_lock()
 *      with tasklist=rcu, the default, or under the list lock with
 *      tasklist=lock), every task but the caller and the idle tasks that
 *      is runnable goes on the holdout list with a reference and a
 *      snapshot of its rcu_tasks_qs;
 *   2. until the list is empty: sleep 1, 2, then 4 ticks at a time, then drop each holdout that
 *      is no longer runnable or whose count moved.
 * A task that became runnable after step 1 entered any trampoline after
 * the grace period began, so it cannot hold the old one.
 *
 * The walk under RCU can meet a task that is exiting, even one whose last
 * reference is gone and whose free waits only for the walk's read-side
 * section to end: the reference is get_task_unless_zero(), and a task it
 * fails on has made its last switch, so it is no holdout. A task the walk
 * misses was added after the walk began (it becomes runnable, at its
 * first instruction, after the grace period began) or removed before it
 * got there (it exited): neither can be inside the old trampoline.
 *
 * Departures from Linux: no synchronize_rcu() before the scan (a task
 * still being made is not runnable yet, so the walk skips it, and on_rq
 * is nonzero for every runnable task at every moment, so no transition
 * needs waiting out), no stall warnings, no per-CPU callback lists; the
 * kthread starts on first use.
 */
#include "rcu_internal.h"
#include <rcupdate_tasks.h>
#include <rcu_hooks.h>
#include <upcalls.h>
#include <sched.h>
#include <completion.h>
#include <kasan.h>
#include <kmalloc.h>
#include <mutex.h>
#include <spinlock.h>
#include <wait.h>
#include <time.h>
#include <panic.h>
#include <printk.h>
#include <export.h>
#include <fault_inject.h>

struct rcu_tasks_holdout {
	struct list_head list;
	struct task *t;
	unsigned long qs;		/* t->rcu_tasks_qs when the GP began */
};

static DEFINE_SPINLOCK(rcu_tasks_cbs_lock);
static LIST_HEAD(rcu_tasks_cbs);		/* queued, not yet taken */
static DECLARE_WAIT_QUEUE_HEAD(rcu_tasks_wq);
static DEFINE_MUTEX(rcu_tasks_start_mutex);
static struct task *rcu_tasks_kthread_task;
static unsigned long rcu_tasks_gps;

void rcu_tasks_hook_qs(void)
{
	struct task *t = current;

	WRITE_ONCE(t->rcu_tasks_qs, t->rcu_tasks_qs + 1);
}

unsigned long rcu_tasks_gp_count(void)
{
	return READ_ONCE(rcu_tasks_gps);
}

/*
 * CPU hotplug (kernel/sched/hotplug.c): a kernel thread queued on a
 * parked CPU stays there, frozen, until the CPU returns (user tasks move
 * off). If its last switch away was voluntary (or it is the stopper in
 * the park loop) it is in no trampoline, and enters none before it runs
 * again, from the scheduler, after the CPU returns: a quiescent state.
 * The dying CPU lets each of its threads run on to such a switch before
 * it goes, as Linux's kthread_park(); one that was preempted all the
 * same (it never gave the CPU up within the stopper's wait) may be
 * inside a trampoline, so it stays a holdout until it runs again.
 * Moving it to a live CPU instead would unbind it for good, and per-CPU
 * daemons (rcu-taskq's answer for their CPU) must not run elsewhere.
 */
static bool rcu_tasks_frozen(struct task *t)
{
	return cpu_is_parked(READ_ONCE(t->cpu)) && !READ_ONCE(t->preempted);
}

/* Step 1, for each task, from for_each_task(): under rcu_read_lock() or
 * the task list lock (tasklist=), so t may be exiting under us. */
static void rcu_tasks_collect(struct task *t, void *arg)
{
	struct list_head *holdouts = arg;
	struct rcu_tasks_holdout *h;

	if (t == current || t->is_idle || !READ_ONCE(t->on_rq) ||
	    READ_ONCE(t->state) == TASK_DEAD || rcu_tasks_frozen(t))
		return;
	/* A delay here lets t exit and drop its last reference between the
	 * checks above and the reference below. */
	fault_inject(tasks_rcu_holdout, t);
	/* Zero: t has made its last switch and only awaits its free. */
	if (!get_task_unless_zero(t))
		return;
	h = kmalloc(sizeof(*h));
	if (!h)
		panic("rcu_tasks: no memory for a holdout");
	h->t = t;
	h->qs = READ_ONCE(t->rcu_tasks_qs);
	list_add_tail(&h->list, holdouts);
}

/* Step 2's test (check_holdout_task() in Linux). */
static bool rcu_tasks_holdout_done(struct rcu_tasks_holdout *h)
{
	struct task *t = h->t;

	return !READ_ONCE(t->on_rq) || READ_ONCE(t->state) == TASK_DEAD ||
	       READ_ONCE(t->rcu_tasks_qs) != h->qs || rcu_tasks_frozen(t);
}

static void rcu_tasks_wait_gp(void)
{
	LIST_HEAD(holdouts);
	long wait = 1;

	smp_mb();	/* the updater's unlink before the snapshots */
	for_each_task(rcu_tasks_collect, &holdouts);
	while (!list_empty(&holdouts)) {
		struct rcu_tasks_holdout *h, *n;

		schedule_timeout_uninterruptible(wait);
		if (wait < 4)
			wait *= 2;
		list_for_each_entry_safe(h, n, &holdouts, list) {
			if (!rcu_tasks_holdout_done(h))
				continue;
			list_del(&h->list);
			put_task(h->t);
			kfree(h);
		}
	}
	smp_mb();	/* every holdout's switch before anything is freed */
	WRITE_ONCE(rcu_tasks_gps, rcu_tasks_gps + 1);
}

static int rcu_tasks_kthread(void *arg)
{
	for (;;) {
		LIST_HEAD(batch);
		unsigned long flags;

		wait_event(rcu_tasks_wq, !list_empty(&rcu_tasks_cbs));
		flags = spin_lock_irqsave(&rcu_tasks_cbs_lock);
		list_splice_init(&rcu_tasks_cbs, &batch);
		spin_unlock_irqrestore(&rcu_tasks_cbs_lock, flags);
		/* The grace period begins after every callback in batch was
		 * queued; they run in order, so rcu_barrier_tasks() works. */
		rcu_tasks_wait_gp();
		while (!list_empty(&batch)) {
			struct rcu_head *h = list_first_entry(&batch, struct rcu_head, list);

			list_del(&h->list);
			h->func(h->arg);
		}
		cond_resched();
	}
	return 0;
}

void call_rcu_tasks(struct rcu_head *head, void (*func)(void *arg), void *arg)
{
	unsigned long flags;

	if (!READ_ONCE(rcu_tasks_kthread_task)) {
		mutex_lock(&rcu_tasks_start_mutex);
		if (!rcu_tasks_kthread_task)
			rcu_tasks_kthread_task = kthread_run(rcu_tasks_kthread, NULL, "rcu_tasks");
		mutex_unlock(&rcu_tasks_start_mutex);
	}
	head->func = func;
	head->arg = arg;
	kasan_record_queue(head, KASAN_QUEUED_BY_CALL_RCU_TASKS);
	flags = spin_lock_irqsave(&rcu_tasks_cbs_lock);
	list_add_tail(&head->list, &rcu_tasks_cbs);
	spin_unlock_irqrestore(&rcu_tasks_cbs_lock, flags);
	wake_up(&rcu_tasks_wq);
}
EXPORT_SYMBOL(call_rcu_tasks);

struct rcu_tasks_sync {
	struct rcu_head head;
	struct completion done;
};

static void rcu_tasks_wakeme(void *arg)
{
	complete(&((struct rcu_tasks_sync *)arg)->done);
}

void synchronize_rcu_tasks(void)
{
	struct rcu_tasks_sync s;

	might_sleep();
	init_completion(&s.done);
	call_rcu_tasks(&s.head, rcu_tasks_wakeme, &s);
	wait_for_completion(&s.done);
}
EXPORT_SYMBOL(synchronize_rcu_tasks);

/* Batches run in order, so a callback queued now runs after all earlier. */
void rcu_barrier_tasks(void)
{
	synchronize_rcu_tasks();
}
EXPORT_SYMBOL(rcu_barrier_tasks);
