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
	struct lockdep_map dep_map;	/* empty without CONFIG_PROVE_LOCKING */
};

#define MUTEX_INITIALIZER(n) \
	{ SPINLOCK_INIT(#n), NULL, LIST_HEAD_INIT((n).wait_list), #n, LOCKDEP_MAP_INIT(#n) }
#define DEFINE_MUTEX(n)	struct mutex n = MUTEX_INITIALIZER(n)

/* Each call site is a lock class of its own (include/lockdep.h). */
void __mutex_init(struct mutex *m, const char *name, const struct lock_class_key *key);
#define mutex_init(m, name)						\
	do {								\
		static const struct lock_class_key __key;		\
		__mutex_init((m), (name), &__key);			\
	} while (0)

/* Macros so that the validator can name the caller's file and line; the
 * functions of the same names remain for modules (parenthesised there). */
void mutex_lock(struct mutex *m);
int mutex_lock_interruptible(struct mutex *m);	/* 0 or -EINTR */
bool mutex_trylock(struct mutex *m);		/* true if acquired */
void mutex_unlock(struct mutex *m);
void mutex_lock_at(struct mutex *m, const struct lock_site *site);
int mutex_lock_interruptible_at(struct mutex *m, const struct lock_site *site);
bool mutex_trylock_at(struct mutex *m, const struct lock_site *site);
void mutex_unlock_at(struct mutex *m, const struct lock_site *site);
#define mutex_lock(m)			mutex_lock_at((m), LOCK_SITE)
#define mutex_lock_interruptible(m)	mutex_lock_interruptible_at((m), LOCK_SITE)
#define mutex_trylock(m)		mutex_trylock_at((m), LOCK_SITE)
#define mutex_unlock(m)			mutex_unlock_at((m), LOCK_SITE)

static inline bool mutex_is_locked(struct mutex *m)
{
	return READ_ONCE(m->owner) != NULL;
}

#endif
