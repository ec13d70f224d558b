/*
 * Ticket spinlocks.
 *
 * A lock is a pair of 16-bit counters: `next`, the ticket the next arrival
 * takes (one locked xadd), and `owner`, the ticket now served. Waiters are
 * served in arrival order, so no CPU starves under contention.
 *
 * Fairness has a price on a virtual machine with more vCPUs than host
 * CPUs: the lock can only pass to the next ticket's vCPU, and if the host
 * has descheduled that vCPU every waiter waits for it (we measured 0.5 ms
 * per contended acquisition at -smp 4 on 2 host CPUs under TCG, 12 ms under
 * nested KVM). So, like Linux's virt_spin_lock(), under a hypervisor the
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
#include <softirq.h>

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
} spinlock_t;

#define SPINLOCK_INIT(n)	{ .val = 0, .holder = -1, .name = (n) }
#define DEFINE_SPINLOCK(x)	spinlock_t x = SPINLOCK_INIT(#x)

void spin_lock_init(spinlock_t *l, const char *name);
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

static __always_inline void spin_lock(spinlock_t *l)
{
	preempt_disable();
	arch_spin_lock(l);
	l->holder = smp_processor_id();
}

static __always_inline bool spin_trylock(spinlock_t *l)
{
	preempt_disable();
	if (arch_spin_trylock(l)) {
		l->holder = smp_processor_id();
		return true;
	}
	preempt_enable();
	return false;
}

static __always_inline void spin_unlock(spinlock_t *l)
{
	l->holder = -1;
	arch_spin_unlock(l);
	preempt_enable();
}

static __always_inline unsigned long spin_lock_irqsave(spinlock_t *l)
{
	unsigned long flags = local_irq_save();
	spin_lock(l);
	return flags;
}

/* Interrupts back on before preemption: a reschedule at preempt_enable()
 * can then happen at once instead of being skipped with interrupts off. */
static __always_inline void spin_unlock_irqrestore(spinlock_t *l, unsigned long flags)
{
	l->holder = -1;
	arch_spin_unlock(l);
	local_irq_restore(flags);
	preempt_enable();
}

static __always_inline void spin_lock_irq(spinlock_t *l)
{
	local_irq_disable();
	spin_lock(l);
}

static __always_inline void spin_unlock_irq(spinlock_t *l)
{
	l->holder = -1;
	arch_spin_unlock(l);
	local_irq_enable();
	preempt_enable();
}

/* Softirqs off on this CPU, for data that softirq handlers also lock. */
static __always_inline void spin_lock_bh(spinlock_t *l)
{
	local_bh_disable();
	spin_lock(l);
}

static __always_inline void spin_unlock_bh(spinlock_t *l)
{
	spin_unlock(l);
	local_bh_enable();
}

#endif
