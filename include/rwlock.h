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
#include <softirq.h>

#define RW_WRITER	0x80000000U

typedef struct {
	volatile u32 cnt;
} __aligned(64) rwlock_t;

#define RWLOCK_INIT		{ 0 }
#define DEFINE_RWLOCK(x)	rwlock_t x = RWLOCK_INIT

static inline void rwlock_init(rwlock_t *l) { l->cnt = 0; }

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

static __always_inline void read_lock(rwlock_t *l) { preempt_disable(); arch_read_lock(l); }
static __always_inline void read_unlock(rwlock_t *l) { arch_read_unlock(l); preempt_enable(); }
static __always_inline void write_lock(rwlock_t *l) { preempt_disable(); arch_write_lock(l); }
static __always_inline void write_unlock(rwlock_t *l) { arch_write_unlock(l); preempt_enable(); }

static __always_inline unsigned long read_lock_irqsave(rwlock_t *l)
{ unsigned long f = local_irq_save(); read_lock(l); return f; }
static __always_inline void read_unlock_irqrestore(rwlock_t *l, unsigned long f)
{ read_unlock(l); local_irq_restore(f); }
static __always_inline unsigned long write_lock_irqsave(rwlock_t *l)
{ unsigned long f = local_irq_save(); write_lock(l); return f; }
static __always_inline void write_unlock_irqrestore(rwlock_t *l, unsigned long f)
{ write_unlock(l); local_irq_restore(f); }

/* Softirqs off on this CPU, for data that softirq handlers also lock. */
static __always_inline void read_lock_bh(rwlock_t *l) { local_bh_disable(); read_lock(l); }
static __always_inline void read_unlock_bh(rwlock_t *l) { read_unlock(l); local_bh_enable(); }
static __always_inline void write_lock_bh(rwlock_t *l) { local_bh_disable(); write_lock(l); }
static __always_inline void write_unlock_bh(rwlock_t *l) { write_unlock(l); local_bh_enable(); }

#endif
