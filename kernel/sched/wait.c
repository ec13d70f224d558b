/*
 * Wait queues (include/wait.h) and completions (include/completion.h).
 * Queue locks are taken with interrupts off: wake-ups come from
 * interrupt handlers too.
 */
#include "sched.h"

void init_waitqueue_head(struct wait_queue_head *wq)
{
	spin_lock_init(&wq->lock, "wait_queue");
	INIT_LIST_HEAD(&wq->head);
}

void init_wait_entry(struct wait_queue_entry *w)
{
	w->task = current;
	w->flags = 0;
	INIT_LIST_HEAD(&w->entry);
}

void add_wait_queue(struct wait_queue_head *wq, struct wait_queue_entry *w)
{
	unsigned long flags = spin_lock_irqsave(&wq->lock);
	w->flags &= ~WQ_FLAG_EXCLUSIVE;
	list_add(&w->entry, &wq->head);
	spin_unlock_irqrestore(&wq->lock, flags);
}

void remove_wait_queue(struct wait_queue_head *wq, struct wait_queue_entry *w)
{
	unsigned long flags = spin_lock_irqsave(&wq->lock);
	list_del_init(&w->entry);
	spin_unlock_irqrestore(&wq->lock, flags);
}

/*
 * Queue ourselves (once) and set our state, both under the queue lock:
 * a waker that makes the condition true after this point finds us on
 * the queue and sets us running again, so the sleep cannot be lost.
 */
static void __prepare(struct wait_queue_head *wq, struct wait_queue_entry *w,
		      long state, bool exclusive)
{
	unsigned long flags = spin_lock_irqsave(&wq->lock);

	if (list_empty(&w->entry)) {
		if (exclusive) {
			w->flags |= WQ_FLAG_EXCLUSIVE;
			list_add_tail(&w->entry, &wq->head);
		} else {
			w->flags &= ~WQ_FLAG_EXCLUSIVE;
			list_add(&w->entry, &wq->head);
		}
	}
	WRITE_ONCE(current->state, state);
	spin_unlock_irqrestore(&wq->lock, flags);
}

void prepare_to_wait(struct wait_queue_head *wq, struct wait_queue_entry *w, long state)
{
	__prepare(wq, w, state, false);
}

void prepare_to_wait_exclusive(struct wait_queue_head *wq, struct wait_queue_entry *w,
			       long state)
{
	__prepare(wq, w, state, true);
}

void finish_wait(struct wait_queue_head *wq, struct wait_queue_entry *w)
{
	WRITE_ONCE(current->state, TASK_RUNNING);
	if (!list_empty(&w->entry))
		remove_wait_queue(wq, w);
}

void __wake_up(struct wait_queue_head *wq, long state, int nr)
{
	unsigned long flags = spin_lock_irqsave(&wq->lock);
	struct wait_queue_entry *w, *n;

	list_for_each_entry_safe(w, n, &wq->head, entry) {
		bool excl = w->flags & WQ_FLAG_EXCLUSIVE;

		if (try_to_wake_up(w->task, state) && excl && nr && !--nr)
			break;
	}
	spin_unlock_irqrestore(&wq->lock, flags);
	preempt_check_resched();
}

/* ---------------------------------------------------------------- completions */

#define COMPLETE_ALL	(~0U)

void init_completion(struct completion *c)
{
	c->done = 0;
	init_waitqueue_head(&c->wait);
}

void reinit_completion(struct completion *c)
{
	WRITE_ONCE(c->done, 0);
}

void complete(struct completion *c)
{
	unsigned long flags = spin_lock_irqsave(&c->wait.lock);

	struct wait_queue_entry *w;

	if (c->done != COMPLETE_ALL)
		c->done++;
	/* Wake one waiter that is not awake yet: it takes the count we added. */
	list_for_each_entry(w, &c->wait.head, entry)
		if (try_to_wake_up(w->task, TASK_NORMAL))
			break;
	spin_unlock_irqrestore(&c->wait.lock, flags);
	preempt_check_resched();
}

void complete_all(struct completion *c)
{
	unsigned long flags = spin_lock_irqsave(&c->wait.lock);
	struct wait_queue_entry *w;

	c->done = COMPLETE_ALL;
	list_for_each_entry(w, &c->wait.head, entry)
		try_to_wake_up(w->task, TASK_NORMAL);
	spin_unlock_irqrestore(&c->wait.lock, flags);
	preempt_check_resched();
}

/* Wait in `state` up to timeout jiffies; 1+ if done (count taken), 0 time-out, -EINTR. */
static long do_wait_for_common(struct completion *c, long timeout, long state)
{
	struct wait_queue_entry w;
	unsigned long flags;

	might_sleep();
	init_wait_entry(&w);
	flags = spin_lock_irqsave(&c->wait.lock);
	if (!c->done) {
		list_add_tail(&w.entry, &c->wait.head);
		do {
			if (state == TASK_INTERRUPTIBLE && signal_pending(current)) {
				timeout = -EINTR;
				break;
			}
			WRITE_ONCE(current->state, state);
			spin_unlock_irqrestore(&c->wait.lock, flags);
			timeout = schedule_timeout(timeout);
			flags = spin_lock_irqsave(&c->wait.lock);
		} while (!c->done && timeout);
		list_del_init(&w.entry);
		WRITE_ONCE(current->state, TASK_RUNNING);
		if (!c->done) {
			spin_unlock_irqrestore(&c->wait.lock, flags);
			return timeout < 0 ? timeout : 0;
		}
	}
	if (c->done != COMPLETE_ALL)
		c->done--;
	spin_unlock_irqrestore(&c->wait.lock, flags);
	return timeout ? timeout : 1;
}

void wait_for_completion(struct completion *c)
{
	do_wait_for_common(c, MAX_SCHEDULE_TIMEOUT, TASK_UNINTERRUPTIBLE);
}

long wait_for_completion_timeout(struct completion *c, long timeout)
{
	return do_wait_for_common(c, timeout, TASK_UNINTERRUPTIBLE);
}

int wait_for_completion_interruptible(struct completion *c)
{
	long r = do_wait_for_common(c, MAX_SCHEDULE_TIMEOUT, TASK_INTERRUPTIBLE);
	return r < 0 ? (int)r : 0;
}

bool try_wait_for_completion(struct completion *c)
{
	unsigned long flags = spin_lock_irqsave(&c->wait.lock);
	bool ok = c->done != 0;

	if (ok && c->done != COMPLETE_ALL)
		c->done--;
	spin_unlock_irqrestore(&c->wait.lock, flags);
	return ok;
}

bool completion_done(struct completion *c)
{
	return READ_ONCE(c->done) != 0;
}
