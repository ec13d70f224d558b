/*
 * The lock validator (CONFIG_PROVE_LOCKING): lockdep's core ideas, sized
 * for this kernel. docs/locking.md explains each report.
 *
 * Locks are grouped into classes by where they are initialised: every
 * spin_lock_init()/rwlock_init()/mutex_init() call site owns a static
 * struct lock_class_key, and a lock initialised statically (SPINLOCK_INIT,
 * DEFINE_SPINLOCK, DEFINE_MUTEX, ...) is a class of its own, keyed by its
 * address. A rule learned about one lock of a class holds for all of them,
 * which is what lets one run find a deadlock that needs two CPUs and bad
 * luck to happen.
 *
 * Each task keeps the stack of locks it holds (struct lockdep_task, in
 * struct task). Taking B while the top of that stack is A records the
 * order A -> B in a graph of classes; an order that closes a cycle is
 * reported the first time it is seen, with both chains. Each class also
 * remembers in which contexts it was taken (in a hard IRQ, in a softirq,
 * with interrupts or softirqs enabled): a lock used in an interrupt and
 * also taken where that interrupt can arrive is reported. The first report
 * turns the validator off, as lockdep's does: later ones would be its
 * echoes.
 *
 * With the option off every hook below is an empty inline or a constant:
 * locks carry no extra field and the lock paths no extra instruction.
 */
#ifndef _LOCKDEP_H
#define _LOCKDEP_H

#include <types.h>
#include <compiler.h>
#include <arch/cpu.h>

struct task;

/* Where a lock was taken: file and line of the lock call. */
struct lock_site {
	const char *file;
	int line;
};

/* One per initialisation site; only its address matters. */
struct lock_class_key {
	char unused;
};

/* spin_lock_nested()'s subclass for the second of two locks of one class. */
#define SINGLE_DEPTH_NESTING	1
#define LOCKDEP_MAX_SUBCLASSES	4

#ifdef CONFIG_PROVE_LOCKING

#define LOCKDEP_MAX_DEPTH	48

struct lockdep_map {
	const struct lock_class_key *key;	/* NULL: a statically initialised lock */
	const char *name;
	unsigned short class_idx[LOCKDEP_MAX_SUBCLASSES];	/* cached; 0 = not looked up */
};

struct held_lock {
	struct lockdep_map *map;
	const struct lock_site *site;
	unsigned short class_idx;
	unsigned char irq_ctx;		/* hard/soft IRQ nesting it was taken in */
	unsigned char trylock;
};

struct lockdep_task {
	int depth;
	struct held_lock held[LOCKDEP_MAX_DEPTH];
};

#define LOCK_SITE	({ static const struct lock_site __ls = { __FILE__, __LINE__ }; &__ls; })
#define LOCKDEP_MAP_INIT(n)	.dep_map = { .key = NULL, .name = (n) },

extern int debug_locks;		/* 1 until the first report */

void lockdep_init_map(struct lockdep_map *m, const char *name,
		      const struct lock_class_key *key);
void lock_acquire(struct lockdep_map *m, unsigned int subclass, bool trylock,
		  const struct lock_site *site);
void lock_release(struct lockdep_map *m, const struct lock_site *site);
bool lock_is_held(const struct lockdep_map *m);
/* A lock taken by one task and released by another (rq->lock across a
 * context switch): its held-lock entry moves with it. */
void lockdep_handoff(struct lockdep_map *m, struct task *from, struct task *to);
void lockdep_print_held_locks(struct task *t);
void lockdep_print_graph(void);

void lockdep_assert_held_failed(const char *expr, const struct lock_site *site);
void lockdep_assert_context_failed(const char *what, const char *why,
				   const struct lock_site *site);
bool lockdep_softirqs_can_run(void);

#define lockdep_is_held(l)	lock_is_held(&(l)->dep_map)

#define lockdep_assert_held(l)						\
	do {								\
		if (unlikely(debug_locks && !lockdep_is_held(l)))	\
			lockdep_assert_held_failed(#l, LOCK_SITE);	\
	} while (0)

#define lockdep_assert_irqs_disabled()					\
	do {								\
		if (unlikely(debug_locks && !irqs_disabled()))		\
			lockdep_assert_context_failed(			\
				"lockdep_assert_irqs_disabled()",	\
				"interrupts are enabled", LOCK_SITE);	\
	} while (0)

/* Softirqs cannot run on this CPU here: in a softirq or hard IRQ, with
 * bottom halves disabled, or with interrupts off. */
#define lockdep_assert_bh_disabled()					\
	do {								\
		if (unlikely(debug_locks && lockdep_softirqs_can_run()))	\
			lockdep_assert_context_failed(			\
				"lockdep_assert_bh_disabled()",		\
				"softirqs can run", LOCK_SITE);		\
	} while (0)

#else /* !CONFIG_PROVE_LOCKING */

struct lockdep_map { };
struct lockdep_task { };

#define LOCK_SITE	((const struct lock_site *)0)
#define LOCKDEP_MAP_INIT(n)
#define debug_locks	0

static inline void lockdep_init_map(struct lockdep_map *m, const char *name,
				    const struct lock_class_key *key) { }
static __always_inline void lock_acquire(struct lockdep_map *m, unsigned int subclass,
					 bool trylock, const struct lock_site *site) { }
static __always_inline void lock_release(struct lockdep_map *m,
					 const struct lock_site *site) { }
static inline void lockdep_handoff(struct lockdep_map *m, struct task *from,
				   struct task *to) { }
static inline void lockdep_print_held_locks(struct task *t) { }
static inline void lockdep_print_graph(void) { }

/* Without the validator nobody can say; callers use it only inside checks
 * that are compiled out too (rcu_dereference_check()). */
#define lockdep_is_held(l)		({ (void)(l); 1; })
#define lockdep_assert_held(l)		do { (void)(l); } while (0)
#define lockdep_assert_irqs_disabled()	do { } while (0)
#define lockdep_assert_bh_disabled()	do { } while (0)

#endif /* CONFIG_PROVE_LOCKING */

#endif
