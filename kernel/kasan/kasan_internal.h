/* Shared by the KASAN runtime's files (kernel/kasan/), none instrumented. */
#ifndef _KASAN_INTERNAL_H
#define _KASAN_INTERNAL_H

#include <kasan.h>
#include <mm.h>
#include <arch/cpu.h>
#include <string.h>

static inline u8 *kasan_mem_to_shadow(unsigned long addr)
{
	return (u8 *)((addr >> 3) + KASAN_SHADOW_OFFSET);
}

static inline unsigned long kasan_shadow_to_mem(const u8 *s)
{
	return ((unsigned long)s - KASAN_SHADOW_OFFSET) << 3;
}

static inline u64 kasan_pte_nx(void)
{
	return rdmsr(MSR_EFER) & EFER_NXE ? PTE_NX : 0;
}

/*
 * A test-and-set lock with interrupts off: the runtime is called from
 * inside the allocators and spinlock_t's validator, which must not find
 * themselves again underneath.
 */
typedef struct { volatile int v; } kasan_lock_t;

static inline unsigned long kasan_lock(kasan_lock_t *l)
{
	unsigned long flags = local_irq_save();

	while (__atomic_exchange_n(&l->v, 1, __ATOMIC_ACQUIRE))
		while (l->v)
			__builtin_ia32_pause();
	return flags;
}

static inline void kasan_unlock(kasan_lock_t *l, unsigned long flags)
{
	__atomic_store_n(&l->v, 0, __ATOMIC_RELEASE);
	local_irq_restore(flags);
}

/* shadow.c: the real shadow; returns the pages it took. */
unsigned long kasan_init_shadow(void);

/* stackdepot.c: a stack trace stored once, named by a 32-bit handle (0: none). */
#define KASAN_STACK_DEPTH	16
u32 kasan_save_stack(unsigned int skip);
unsigned int kasan_fetch_stack(u32 handle, unsigned long *ips);
void kasan_stackdepot_init(void);
unsigned long kasan_stackdepot_used(void);
void kasan_print_stack(u32 handle);
void kasan_print_trace_from(unsigned long ip);

#endif
