/*
 * Counting semaphores (include/semaphore.h), as in Linux's
 * kernel/locking/semaphore.c: a sleeper queues a waiter on the
 * semaphore's list; up() with sleepers gives the unit straight to the
 * first one (waiter->up) instead of incrementing the count, so the woken
 * task owns it already and no third task can steal it in between.
 */
#include "sched.h"
#include <semaphore.h>
#include <time.h>

struct semaphore_waiter {
	struct list_head list;
	struct task *task;
	bool up;
};

void sema_init(struct semaphore *s, unsigned int n)
{
	spin_lock_init(&s->lock, "semaphore");
	s->count = n;
	INIT_LIST_HEAD(&s->wait_list);
}

/* Called with s->lock held (interrupts off); returns with it held. */
static int __down_common(struct semaphore *s, long state, long timeout, unsigned long *flags)
	__must_hold(&s->lock)
{
	struct semaphore_waiter w = { .task = current, .up = false };

	list_add_tail(&w.list, &s->wait_list);
	for (;;) {
		if (state == TASK_INTERRUPTIBLE && signal_pending(current))
			goto interrupted;
		if (timeout <= 0)
			goto timed_out;
		WRITE_ONCE(current->state, state);
		spin_unlock_irqrestore(&s->lock, *flags);
		timeout = schedule_timeout(timeout);
		*flags = spin_lock_irqsave(&s->lock);
		if (w.up)
			return 0;
	}
timed_out:
	list_del(&w.list);
	return -ETIMEDOUT;
interrupted:
	list_del(&w.list);
	return -EINTR;
}

static int down_common(struct semaphore *s, long state, long timeout)
{
	unsigned long flags;
	int ret = 0;

	might_sleep();
	flags = spin_lock_irqsave(&s->lock);
	if (likely(s->count > 0))
		s->count--;
	else
		ret = __down_common(s, state, timeout, &flags);
	spin_unlock_irqrestore(&s->lock, flags);
	return ret;
}

void down(struct semaphore *s)
{
	down_common(s, TASK_UNINTERRUPTIBLE, MAX_SCHEDULE_TIMEOUT);
}

int down_interruptible(struct semaphore *s)
{
	return down_common(s, TASK_INTERRUPTIBLE, MAX_SCHEDULE_TIMEOUT);
}

int down_timeout(struct semaphore *s, long jiffies)
{
	return down_common(s, TASK_UNINTERRUPTIBLE, jiffies);
}

int down_trylock(struct semaphore *s)
{
	unsigned long flags = spin_lock_irqsave(&s->lock);
	int busy = s->count == 0;

	if (!busy)
		s->count--;
	spin_unlock_irqrestore(&s->lock, flags);
	return busy;
}

/*
 * The wake-up happens after the semaphore's lock is dropped (as Linux's
 * wake_q does): the woken task's first act is to take that lock, and a
 * waker still holding it, whose vCPU the hypervisor then deschedules,
 * would make it spin for a host time slice. The reference keeps the task
 * alive in between.
 */
void up(struct semaphore *s)
{
	unsigned long flags = spin_lock_irqsave(&s->lock);
	struct task *wake = NULL;

	if (likely(list_empty(&s->wait_list))) {
		s->count++;
	} else {
		struct semaphore_waiter *w =
			list_first_entry(&s->wait_list, struct semaphore_waiter, list);
		list_del(&w->list);
		wake = w->task;
		get_task(wake);
		WRITE_ONCE(w->up, true);	/* w may vanish once we unlock */
	}
	spin_unlock_irqrestore(&s->lock, flags);
	if (wake) {
		try_to_wake_up(wake, TASK_NORMAL);
		put_task(wake);
	}
	preempt_check_resched();
}
