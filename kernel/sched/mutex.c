/*
 * Mutexes (include/mutex.h): a sleeping lock with an owner. The fast path
 * is a compare-and-swap of the owner from NULL; with waiters, unlock hands
 * the mutex to the first of them (FIFO) by writing it as the new owner,
 * so ownership never passes through "free" while someone waits.
 */
#include "sched.h"
#include <mutex.h>
#include <printk.h>
#include <panic.h>
#include <arch/irq.h>

struct mutex_waiter {
	struct list_head list;
	struct task *task;
};

void mutex_init(struct mutex *m, const char *name)
{
	spin_lock_init(&m->wait_lock, "mutex");
	m->owner = NULL;
	INIT_LIST_HEAD(&m->wait_list);
	m->name = name;
}

static bool mutex_try_fast(struct mutex *m)
{
	struct task *none = NULL;
	return __atomic_compare_exchange_n(&m->owner, &none, current, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

bool mutex_trylock(struct mutex *m)
{
	unsigned long flags;
	bool ok;

	flags = spin_lock_irqsave(&m->wait_lock);
	ok = list_empty(&m->wait_list) && mutex_try_fast(m);
	spin_unlock_irqrestore(&m->wait_lock, flags);
	return ok;
}

static int mutex_lock_common(struct mutex *m, long state)
{
	struct mutex_waiter w = { .task = current };
	unsigned long flags;
	int ret = 0;

	might_sleep();
	if (unlikely(READ_ONCE(m->owner) == current))
		panic("mutex %s: %s/%d locks it again (deadlock)", m->name,
		      current->name, current->pid);
	flags = spin_lock_irqsave(&m->wait_lock);
	if (list_empty(&m->wait_list) && mutex_try_fast(m))
		goto out;
	list_add_tail(&w.list, &m->wait_list);
	for (;;) {
		if (READ_ONCE(m->owner) == current)
			break;			/* handed to us by mutex_unlock */
		if (state == TASK_INTERRUPTIBLE && signal_pending(current)) {
			list_del(&w.list);
			ret = -EINTR;
			break;
		}
		WRITE_ONCE(current->state, state);
		spin_unlock_irqrestore(&m->wait_lock, flags);
		schedule();
		flags = spin_lock_irqsave(&m->wait_lock);
	}
	WRITE_ONCE(current->state, TASK_RUNNING);
out:
	spin_unlock_irqrestore(&m->wait_lock, flags);
	return ret;
}

void mutex_lock(struct mutex *m)
{
	mutex_lock_common(m, TASK_UNINTERRUPTIBLE);
}

int mutex_lock_interruptible(struct mutex *m)
{
	return mutex_lock_common(m, TASK_INTERRUPTIBLE);
}

void mutex_unlock(struct mutex *m)
{
	unsigned long flags;

	if (unlikely(READ_ONCE(m->owner) != current)) {
		printk("WARNING: mutex %s unlocked by %s/%d, owner %s\n", m->name,
		       current->name, current->pid,
		       m->owner ? m->owner->name : "(none)");
		dump_stack();
		return;
	}
	struct task *wake = NULL;

	flags = spin_lock_irqsave(&m->wait_lock);
	if (list_empty(&m->wait_list)) {
		smp_store_release(&m->owner, NULL);
	} else {
		struct mutex_waiter *w =
			list_first_entry(&m->wait_list, struct mutex_waiter, list);
		list_del(&w->list);
		wake = w->task;
		get_task(wake);
		WRITE_ONCE(m->owner, wake);	/* handoff */
	}
	spin_unlock_irqrestore(&m->wait_lock, flags);
	if (wake) {			/* after the unlock: see up() */
		try_to_wake_up(wake, TASK_NORMAL);
		put_task(wake);
	}
	preempt_check_resched();
}
