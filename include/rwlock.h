/*
 * Reader-writer spinlocks.
 *
 * One 32-bit word: the low 31 bits count readers inside, bit 31 marks a
 * writer inside or waiting. A reader gets in with one locked increment when
 * no writer is there; a writer first claims bit 31 (keeping new readers
 * out, so readers cannot starve it) and then waits for the readers to
 * drain. Every read acquire still writes the shared word, which is why
 * rwlock readers do not scale and why RCU exists (seed 001, Figure 1).
 */
#ifndef _RWLOCK_H
#define _RWLOCK_H

#include <compiler.h>
#include <barrier.h>
#include <preempt.h>
#include <arch/cpu.h>
#include <bottom_half.h>
#include <lockdep.h>

#define RW_WRITER	0x80000000U

typedef struct {
	volatile u32 cnt;
	struct lockdep_map dep_map;	/* empty without CONFIG_PROVE_LOCKING */
} __aligned(64) rwlock_t;

#define RWLOCK_INIT_NAMED(n)	{ .cnt = 0, LOCKDEP_MAP_INIT(n) }
#define RWLOCK_INIT		RWLOCK_INIT_NAMED("rwlock")
#define DEFINE_RWLOCK(x)	rwlock_t x = RWLOCK_INIT_NAMED(#x)

/* Each call site is a lock class of its own (include/lockdep.h). */
#define rwlock_init(l)							\
	do {								\
		static const struct lock_class_key __key;		\
		(l)->cnt = 0;						\
		lockdep_init_map(&(l)->dep_map, #l, &__key);		\
	} while (0)

static __always_inline void arch_read_lock(rwlock_t *l)
{
	for (;;) {
		u32 v = __atomic_add_fetch(&l->cnt, 1, __ATOMIC_ACQUIRE);
		if (likely(!(v & RW_WRITER)))
			return;
		__atomic_sub_fetch(&l->cnt, 1, __ATOMIC_RELAXED);
		while (READ_ONCE(l->cnt) & RW_WRITER)
			cpu_relax();
	}
}

static __always_inline void arch_read_unlock(rwlock_t *l)
{
	__atomic_sub_fetch(&l->cnt, 1, __ATOMIC_RELEASE);
}

static __always_inline void arch_write_lock(rwlock_t *l)
{
	for (;;) {
		u32 v = READ_ONCE(l->cnt);
		if (!(v & RW_WRITER) &&
		    __atomic_compare_exchange_n(&l->cnt, &v, v | RW_WRITER, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			break;
		cpu_relax();
	}
	while (READ_ONCE(l->cnt) != RW_WRITER)	/* readers drain */
		cpu_relax();
	barrier();
}

static __always_inline void arch_write_unlock(rwlock_t *l)
{
	__atomic_fetch_and(&l->cnt, ~RW_WRITER, __ATOMIC_RELEASE);
}

/*
 * To the validator a read lock is the same as a write lock: a writer
 * waiting here keeps new readers out, so even a reader taking the lock it
 * already reads can deadlock (docs/locking.md: read-recursive locks).
 */
#define read_lock(l)		__read_lock((l), LOCK_SITE)
#define read_unlock(l)		__read_unlock((l), LOCK_SITE)
#define write_lock(l)		__write_lock((l), LOCK_SITE)
#define write_unlock(l)		__write_unlock((l), LOCK_SITE)
#define read_lock_irqsave(l)	({ unsigned long __f = local_irq_save(); read_lock(l); __f; })
#define read_unlock_irqrestore(l, f)	do { read_unlock(l); local_irq_restore(f); } while (0)
#define write_lock_irqsave(l)	({ unsigned long __f = local_irq_save(); write_lock(l); __f; })
#define write_unlock_irqrestore(l, f)	do { write_unlock(l); local_irq_restore(f); } while (0)
/* Softirqs off on this CPU, for data that softirq handlers also lock. */
#define read_lock_bh(l)		do { local_bh_disable(); read_lock(l); } while (0)
#define read_unlock_bh(l)	do { read_unlock(l); local_bh_enable(); } while (0)
#define write_lock_bh(l)	do { local_bh_disable(); write_lock(l); } while (0)
#define write_unlock_bh(l)	do { write_unlock(l); local_bh_enable(); } while (0)

static __always_inline void __read_lock(rwlock_t *l, const struct lock_site *site)
{
	preempt_disable();
	lock_acquire(&l->dep_map, 0, false, site);
	arch_read_lock(l);
}

static __always_inline void __read_unlock(rwlock_t *l, const struct lock_site *site)
{
	lock_release(&l->dep_map, site);
	arch_read_unlock(l);
	preempt_enable();
}

static __always_inline void __write_lock(rwlock_t *l, const struct lock_site *site)
{
	preempt_disable();
	lock_acquire(&l->dep_map, 0, false, site);
	arch_write_lock(l);
}

static __always_inline void __write_unlock(rwlock_t *l, const struct lock_site *site)
{
	lock_release(&l->dep_map, site);
	arch_write_unlock(l);
	preempt_enable();
}

#endif
