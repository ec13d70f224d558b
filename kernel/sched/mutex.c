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

void __mutex_init(struct mutex *m, const char *name, const struct lock_class_key *key)
{
	spin_lock_init(&m->wait_lock, "mutex");
	m->owner = NULL;
	INIT_LIST_HEAD(&m->wait_list);
	m->name = name;
	lockdep_init_map(&m->dep_map, name, key);
}

static bool mutex_try_fast(struct mutex *m)
{
	struct task *none = NULL;
	return __atomic_compare_exchange_n(&m->owner, &none, current, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

bool mutex_trylock_at(struct mutex *m, const struct lock_site *site)
{
	unsigned long flags;
	bool ok;

	flags = spin_lock_irqsave(&m->wait_lock);
	ok = list_empty(&m->wait_list) && mutex_try_fast(m);
	spin_unlock_irqrestore(&m->wait_lock, flags);
	if (ok)
		lock_acquire(&m->dep_map, 0, true, site);
	return ok;
}

static int mutex_lock_common(struct mutex *m, long state, const struct lock_site *site)
{
	struct mutex_waiter w = { .task = current };
	unsigned long flags;
	int ret = 0;

	might_sleep();
	lock_acquire(&m->dep_map, 0, false, site);	/* before we may block */
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
	if (ret)
		lock_release(&m->dep_map, site);
	return ret;
}

void mutex_lock_at(struct mutex *m, const struct lock_site *site)
{
	mutex_lock_common(m, TASK_UNINTERRUPTIBLE, site);
}

int mutex_lock_interruptible_at(struct mutex *m, const struct lock_site *site)
{
	return mutex_lock_common(m, TASK_INTERRUPTIBLE, site);
}

void mutex_unlock_at(struct mutex *m, const struct lock_site *site)
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

	lock_release(&m->dep_map, site);

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

/* The plain functions, for modules and callers that take their address. */
void (mutex_lock)(struct mutex *m) { mutex_lock_at(m, NULL); }
int (mutex_lock_interruptible)(struct mutex *m) { return mutex_lock_interruptible_at(m, NULL); }
bool (mutex_trylock)(struct mutex *m) { return mutex_trylock_at(m, NULL); }
void (mutex_unlock)(struct mutex *m) { mutex_unlock_at(m, NULL); }
