/*
 * Wait queues: a list of sleeping tasks and the condition they wait for.
 *
 * The sleeper's side, wait_event(wq, cond), is the classic loop that
 * cannot lose a wake-up:
 *
 *	for (;;) {
 *		prepare_to_wait(wq, &wait, TASK_UNINTERRUPTIBLE);  // on the queue, state set
 *		if (cond)
 *			break;
 *		schedule();
 *	}
 *	finish_wait(wq, &wait);
 *
 * The waker makes cond true and then calls wake_up(wq). Either the sleeper
 * sees cond before sleeping, or it was already on the queue with its state
 * set, and wake_up() sets it back to TASK_RUNNING (schedule() then returns
 * at once, or the task is put back on a run queue).
 */
#ifndef _WAIT_H
#define _WAIT_H

#include <list.h>
#include <spinlock.h>

struct task;

#define WQ_FLAG_EXCLUSIVE	1	/* wake_up() wakes only one of these */

struct wait_queue_entry {
	struct task *task;
	unsigned int flags;
	struct list_head entry;
};

struct wait_queue_head {
	spinlock_t lock;
	struct list_head head;
};

#define WAIT_QUEUE_HEAD_INIT(name) \
	{ SPINLOCK_INIT(#name), LIST_HEAD_INIT((name).head) }
#define DECLARE_WAIT_QUEUE_HEAD(name) \
	struct wait_queue_head name = WAIT_QUEUE_HEAD_INIT(name)
#define DEFINE_WAIT(name) \
	struct wait_queue_entry name = { .task = current, .entry = LIST_HEAD_INIT((name).entry) }

void init_waitqueue_head(struct wait_queue_head *wq);
void init_wait_entry(struct wait_queue_entry *w);
void add_wait_queue(struct wait_queue_head *wq, struct wait_queue_entry *w);
void remove_wait_queue(struct wait_queue_head *wq, struct wait_queue_entry *w);
void prepare_to_wait(struct wait_queue_head *wq, struct wait_queue_entry *w, long state);
void prepare_to_wait_exclusive(struct wait_queue_head *wq, struct wait_queue_entry *w,
			       long state);
void finish_wait(struct wait_queue_head *wq, struct wait_queue_entry *w);

/* Wake the tasks on wq in `state`: all non-exclusive ones and nr exclusive ones. */
void __wake_up(struct wait_queue_head *wq, long state, int nr);
#define wake_up(wq)			__wake_up(wq, TASK_NORMAL, 1)
#define wake_up_all(wq)			__wake_up(wq, TASK_NORMAL, 0)
#define wake_up_interruptible(wq)	__wake_up(wq, TASK_INTERRUPTIBLE, 1)

static inline bool waitqueue_active(struct wait_queue_head *wq)
{
	return !list_empty(&wq->head);
}

/* Sleep until cond is true. might_sleep() checks the context first. */
#define wait_event(wq, cond)						\
do {									\
	DEFINE_WAIT(__w);						\
	might_sleep();							\
	for (;;) {							\
		prepare_to_wait(&(wq), &__w, TASK_UNINTERRUPTIBLE);	\
		if (cond)						\
			break;						\
		schedule();						\
	}								\
	finish_wait(&(wq), &__w);					\
} while (0)

/* As wait_event(); returns -EINTR if the task was interrupted (task_interrupt). */
#define wait_event_interruptible(wq, cond)				\
({									\
	DEFINE_WAIT(__w);						\
	int __ret = 0;							\
	might_sleep();							\
	for (;;) {							\
		prepare_to_wait(&(wq), &__w, TASK_INTERRUPTIBLE);	\
		if (cond)						\
			break;						\
		if (signal_pending(current)) {				\
			__ret = -EINTR;					\
			break;						\
		}							\
		schedule();						\
	}								\
	finish_wait(&(wq), &__w);					\
	__ret;								\
})

/* Sleep until cond or `timeout` jiffies pass; returns the jiffies left (>= 1) or 0. */
#define wait_event_timeout(wq, cond, timeout)				\
({									\
	DEFINE_WAIT(__w);						\
	long __left = (timeout);					\
	might_sleep();							\
	for (;;) {							\
		prepare_to_wait(&(wq), &__w, TASK_UNINTERRUPTIBLE);	\
		if (cond) {						\
			if (!__left)					\
				__left = 1;				\
			break;						\
		}							\
		if (!__left)						\
			break;						\
		__left = schedule_timeout(__left);			\
	}								\
	finish_wait(&(wq), &__w);					\
	__left;								\
})

#endif
