/*
 * Timed sleeps: schedule_timeout() and msleep().
 *
 * Until kernel timers exist (the next issue), each CPU keeps a plain list
 * of tasks sleeping with a deadline, and its tick (scheduler_tick) wakes
 * the expired ones, so a wake-up comes from a timer interrupt, with a
 * resolution of one tick. A sleeper is on the list of the CPU it went to
 * sleep on (task->sleep_cpu), whatever CPU it wakes up on.
 */
#include "sched.h"
#include <time.h>
#include <smp.h>

/*
 * Sleep in the state the caller has set (TASK_RUNNING: return at once,
 * as in Linux) until woken or for `timeout` jiffies. Returns the jiffies
 * left, 0 if the time ran out.
 */
long schedule_timeout(long timeout)
{
	struct task *me = current;
	unsigned long expire, flags;
	struct rq *rq;
	int cpu;

	if (timeout == MAX_SCHEDULE_TIMEOUT) {
		schedule();
		return timeout;
	}
	if (timeout <= 0) {
		WRITE_ONCE(me->state, TASK_RUNNING);
		return 0;
	}
	expire = jiffies + timeout;

	flags = local_irq_save();
	rq = this_rq();
	spin_lock(&rq->sleep_lock);
	me->sleep_expires = expire;
	me->sleep_cpu = rq->cpu;
	list_add_tail(&me->sleep_list, &rq->sleepers);
	spin_unlock(&rq->sleep_lock);
	local_irq_restore(flags);

	schedule();

	/*
	 * Woken early (or preempted before sleeping): leave the list. The
	 * tick that takes us off it sets sleep_cpu to -1 under the same lock;
	 * CPU hotplug's sleepers_migrate() may move us to another CPU's list
	 * between our read and our lock, and then sleep_cpu names that one:
	 * look again, or we would stay linked there after we return.
	 */
	while ((cpu = READ_ONCE(me->sleep_cpu)) >= 0) {
		bool gone;

		rq = cpu_rq(cpu);
		flags = spin_lock_irqsave(&rq->sleep_lock);
		gone = me->sleep_cpu == cpu;
		if (gone) {
			list_del_init(&me->sleep_list);
			me->sleep_cpu = -1;
		}
		spin_unlock_irqrestore(&rq->sleep_lock, flags);
		if (gone)
			break;
	}
	long left = (long)(expire - jiffies);
	return left < 0 ? 0 : left;
}

/*
 * An interruptible sleep must not begin after task_interrupt() has run:
 * its wake-up found us still running and did nothing. The state is set
 * before the look at `interrupted`, and task_interrupt() sets `interrupted`
 * before it looks at the state, each with a full barrier in between:
 * either we see the flag here, or it sees us asleep and wakes us.
 */
long schedule_timeout_interruptible(long timeout)
{
	WRITE_ONCE(current->state, TASK_INTERRUPTIBLE);
	smp_mb();		/* the state, then the flag (task_interrupt: the reverse) */
	if (signal_pending(current)) {
		WRITE_ONCE(current->state, TASK_RUNNING);
		return timeout;
	}
	return schedule_timeout(timeout);
}

long schedule_timeout_uninterruptible(long timeout)
{
	WRITE_ONCE(current->state, TASK_UNINTERRUPTIBLE);
	return schedule_timeout(timeout);
}

/* Sleep at least ms milliseconds (rounded up to whole ticks, plus one). */
void msleep(unsigned int ms)
{
	long timeout = msecs_to_jiffies(ms) + 1;

	might_sleep();
	while (timeout)
		timeout = schedule_timeout_uninterruptible(timeout);
}

/*
 * From this CPU's tick: wake the sleepers whose time has come. The wake-up
 * happens under sleep_lock, so the task cannot leave schedule_timeout()
 * (and perhaps exit and be freed) before we are done with it.
 */
void sched_sleep_tick(void)
{
	struct rq *rq = this_rq();
	struct task *p, *n;
	unsigned long now = jiffies;

	if (list_empty(&rq->sleepers))
		return;
	spin_lock(&rq->sleep_lock);
	list_for_each_entry_safe(p, n, &rq->sleepers, sleep_list) {
		if (time_before(now, p->sleep_expires))
			continue;
		list_del_init(&p->sleep_list);
		p->sleep_cpu = -1;
		try_to_wake_up(p, TASK_NORMAL);
	}
	spin_unlock(&rq->sleep_lock);
}

/*
 * CPU hotplug: the timed sleepers of a CPU whose tick has stopped move to
 * CPU to's list (sleep_cpu with them, under both locks, as
 * schedule_timeout() reads it under the lock it names).
 */
void sleepers_migrate(unsigned int from, unsigned int to)
{
	struct rq *a = cpu_rq(from), *b = cpu_rq(to);
	unsigned long flags = local_irq_save();
	struct task *p, *n;

	if (from < to) {
		spin_lock(&a->sleep_lock);
		spin_lock_nested(&b->sleep_lock, SINGLE_DEPTH_NESTING);
	} else {
		spin_lock(&b->sleep_lock);
		spin_lock_nested(&a->sleep_lock, SINGLE_DEPTH_NESTING);
	}
	list_for_each_entry_safe(p, n, &a->sleepers, sleep_list) {
		list_del(&p->sleep_list);
		list_add_tail(&p->sleep_list, &b->sleepers);
		WRITE_ONCE(p->sleep_cpu, (int)to);
	}
	spin_unlock(&a->sleep_lock);
	spin_unlock(&b->sleep_lock);
	local_irq_restore(flags);
}
