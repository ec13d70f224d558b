/*
 * Ticket spinlocks.
 *
 * A lock is a pair of 16-bit counters: `next`, the ticket the next arrival
 * takes (one locked xadd), and `owner`, the ticket now served. Waiters are
 * served in arrival order, so no CPU starves under contention.
 *
 * Fairness has a price on a virtual machine with more vCPUs than host
 * CPUs: the lock can only pass to the next ticket's vCPU, and if the host
 * has descheduled that vCPU every waiter waits for it (docs/locking.md has
 * the figures). So, like Linux's virt_spin_lock(), under a hypervisor the
 * kernel by default takes locks test-and-set style instead: a waiter spins
 * until the lock looks free and then tries to grab it, whoever it is.
 * Unfair, but no convoy. "spinlock=ticket" or "spinlock=tas" on the command
 * line overrides the choice (kernel/lib/locks.c). Taking a lock
 * disables preemption (preempt_count), which is what makes "sleeping with a
 * spinlock held" detectable. A CPU that takes a lock it already holds would
 * spin forever; the lock records its holder and panics instead, naming the
 * lock.
 */
#ifndef _SPINLOCK_H
#define _SPINLOCK_H

#include <compiler.h>
#include <barrier.h>
#include <preempt.h>
#include <arch/cpu.h>
#include <bottom_half.h>
#include <lockdep.h>

typedef struct spinlock {
	union {
		volatile u32 val;
		struct {
			volatile u16 owner;	/* ticket being served */
			volatile u16 next;	/* next ticket to hand out */
		};
	};
	volatile int holder;		/* CPU holding it, -1 if none (debug) */
	const char *name;
	struct lockdep_map dep_map;	/* empty without CONFIG_PROVE_LOCKING */
} spinlock_t;

#define SPINLOCK_INIT(n)	{ .val = 0, .holder = -1, .name = (n), LOCKDEP_MAP_INIT(n) }
#define DEFINE_SPINLOCK(x)	spinlock_t x = SPINLOCK_INIT(#x)

/* Each call site is a lock class of its own (include/lockdep.h). */
void __spin_lock_init(spinlock_t *l, const char *name, const struct lock_class_key *key);
#define spin_lock_init(l, name)						\
	do {								\
		static const struct lock_class_key __key;		\
		__spin_lock_init((l), (name), &__key);			\
	} while (0)
/* Test-and-set acquisition (see above); fixed at boot before SMP. */
extern bool spin_tas_mode;
void spinlock_choose_mode(void);
const char *spinlock_mode_name(void);
void __spin_lock_recursion(spinlock_t *l) __noreturn;

static __always_inline bool spin_is_locked_raw(spinlock_t *l)
{
	u32 v = READ_ONCE(l->val);
	return (u16)v != (u16)(v >> 16);
}

static __always_inline bool arch_spin_trylock(spinlock_t *l)
{
	u32 old = READ_ONCE(l->val);

	if ((u16)old != (u16)(old >> 16))
		return false;
	return __atomic_compare_exchange_n(&l->val, &old, old + (1U << 16), false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static __always_inline void arch_spin_lock_tas(spinlock_t *l)
{
	while (!arch_spin_trylock(l)) {
		if (unlikely(READ_ONCE(l->holder) == (int)smp_processor_id()))
			__spin_lock_recursion(l);
		do
			cpu_relax();
		while (spin_is_locked_raw(l));
	}
}

static __always_inline void arch_spin_lock(spinlock_t *l)
{
	u32 inc = 1U << 16;

	if (spin_tas_mode) {
		arch_spin_lock_tas(l);
		return;
	}

	u32 old = __atomic_fetch_add(&l->val, inc, __ATOMIC_ACQUIRE);
	u16 ticket = old >> 16;

	if (likely((u16)old == ticket))
		return;
	if (unlikely(READ_ONCE(l->holder) == (int)smp_processor_id()))
		__spin_lock_recursion(l);
	while (READ_ONCE(l->owner) != ticket)
		cpu_relax();
	barrier();	/* acquire: TSO keeps later loads after this one */
}

static __always_inline void arch_spin_unlock(spinlock_t *l)
{
	/* Release: only the holder writes owner, and TSO orders the stores. */
	smp_store_release(&l->owner, (u16)(l->owner + 1));
}

static __always_inline bool spin_is_locked(spinlock_t *l)
{
	u32 v = READ_ONCE(l->val);
	return (u16)v != (u16)(v >> 16);
}

/*
 * The lock calls are macros so that the validator can name the file and
 * line of each one (LOCK_SITE is a null constant without it). The lock is
 * announced to the validator before spinning, so an order that would
 * deadlock is reported before it does.
 */
#define spin_lock(l)			do { __spin_lock((l), 0, LOCK_SITE); __acquire(l); } while (0)
#define spin_lock_nested(l, sub)	do { __spin_lock((l), (sub), LOCK_SITE); __acquire(l); } while (0)
#define spin_trylock(l)			__cond_lock(l, __spin_trylock((l), LOCK_SITE))
#define spin_unlock(l)			do { __release(l); __spin_unlock((l), LOCK_SITE); } while (0)
#define spin_lock_irqsave(l)		({ unsigned long __f = __spin_lock_irqsave((l), 0, LOCK_SITE); \
					   __acquire(l); __f; })
#define spin_lock_irqsave_nested(l, sub) ({ unsigned long __f =				\
					   __spin_lock_irqsave((l), (sub), LOCK_SITE);	\
					   __acquire(l); __f; })
#define spin_unlock_irqrestore(l, f)	do { __release(l); __spin_unlock_irqrestore((l), (f), LOCK_SITE); } while (0)
#define spin_lock_irq(l)		do { __spin_lock_irq((l), LOCK_SITE); __acquire(l); } while (0)
#define spin_unlock_irq(l)		do { __release(l); __spin_unlock_irq((l), LOCK_SITE); } while (0)
#define spin_lock_bh(l)			do { __spin_lock_bh((l), LOCK_SITE); __acquire(l); } while (0)
#define spin_unlock_bh(l)		do { __release(l); __spin_unlock_bh((l), LOCK_SITE); } while (0)

static __always_inline void __spin_lock(spinlock_t *l, unsigned int sub,
					const struct lock_site *site)
{
	preempt_disable();
	lock_acquire(&l->dep_map, sub, false, site);
	arch_spin_lock(l);
	l->holder = smp_processor_id();
}

static __always_inline bool __spin_trylock(spinlock_t *l, const struct lock_site *site)
{
	preempt_disable();
	if (arch_spin_trylock(l)) {
		l->holder = smp_processor_id();
		lock_acquire(&l->dep_map, 0, true, site);
		return true;
	}
	preempt_enable();
	return false;
}

static __always_inline void __spin_unlock(spinlock_t *l, const struct lock_site *site)
{
	lock_release(&l->dep_map, site);
	l->holder = -1;
	arch_spin_unlock(l);
	preempt_enable();
}

static __always_inline unsigned long __spin_lock_irqsave(spinlock_t *l, unsigned int sub,
							 const struct lock_site *site)
{
	unsigned long flags = local_irq_save();
	__spin_lock(l, sub, site);
	return flags;
}

/* Interrupts back on before preemption: a reschedule at preempt_enable()
 * can then happen at once instead of being skipped with interrupts off. */
static __always_inline void __spin_unlock_irqrestore(spinlock_t *l, unsigned long flags,
						     const struct lock_site *site)
{
	lock_release(&l->dep_map, site);
	l->holder = -1;
	arch_spin_unlock(l);
	local_irq_restore(flags);
	preempt_enable();
}

static __always_inline void __spin_lock_irq(spinlock_t *l, const struct lock_site *site)
{
	local_irq_disable();
	__spin_lock(l, 0, site);
}

static __always_inline void __spin_unlock_irq(spinlock_t *l, const struct lock_site *site)
{
	lock_release(&l->dep_map, site);
	l->holder = -1;
	arch_spin_unlock(l);
	local_irq_enable();
	preempt_enable();
}

/* Softirqs off on this CPU, for data that softirq handlers also lock. */
static __always_inline void __spin_lock_bh(spinlock_t *l, const struct lock_site *site)
{
	local_bh_disable();
	__spin_lock(l, 0, site);
}

static __always_inline void __spin_unlock_bh(spinlock_t *l, const struct lock_site *site)
{
	__spin_unlock(l, site);
	local_bh_enable();
}

#endif
