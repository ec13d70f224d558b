/*
 * Mutexes: sleeping locks with an owner. Only the owner may unlock; a
 * task that locks a mutex it already holds is reported (it would sleep
 * forever). Unlock hands the mutex directly to the first waiter (FIFO).
 */
#ifndef _MUTEX_H
#define _MUTEX_H

#include <list.h>
#include <spinlock.h>

struct task;

struct mutex {
	spinlock_t wait_lock;
	struct task *owner;
	struct list_head wait_list;
	const char *name;
};

#define MUTEX_INITIALIZER(n) \
	{ SPINLOCK_INIT(#n), NULL, LIST_HEAD_INIT((n).wait_list), #n }
#define DEFINE_MUTEX(n)	struct mutex n = MUTEX_INITIALIZER(n)

void mutex_init(struct mutex *m, const char *name);
void mutex_lock(struct mutex *m);
int mutex_lock_interruptible(struct mutex *m);	/* 0 or -EINTR */
bool mutex_trylock(struct mutex *m);		/* true if acquired */
void mutex_unlock(struct mutex *m);

static inline bool mutex_is_locked(struct mutex *m)
{
	return READ_ONCE(m->owner) != NULL;
}

#endif
