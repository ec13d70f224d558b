/*
 * Memory barriers for x86-64 (TSO).
 *
 * x86 keeps loads ordered with loads and stores with stores, and never lets
 * a store pass an earlier load. The one reordering it allows is a later load
 * passing an earlier store (the store buffer), so only smp_mb() needs a real
 * fence; smp_rmb()/smp_wmb() only stop the compiler. This is the ordering
 * argument of seed 000 Appendix B, specialised to x86.
 */
#ifndef _BARRIER_H
#define _BARRIER_H

#include <compiler.h>

/*
 * KCSAN models the reorderings a weaker machine (or the compiler) may
 * make of plain accesses: it keeps a sampled plain access "in flight"
 * until the next release or full barrier, which these tell it about
 * (kernel/kcsan/kcsan.c, docs/kcsan.md). Without KCSAN, nothing.
 */
#ifdef CONFIG_KCSAN
void kcsan_release(void);
#else
#define kcsan_release()	do { } while (0)
#endif

#define mb()		__asm__ __volatile__("mfence" ::: "memory")
#define rmb()		__asm__ __volatile__("lfence" ::: "memory")
#define wmb()		__asm__ __volatile__("sfence" ::: "memory")

/* A locked add to the stack is a full barrier and cheaper than mfence. */
#define smp_mb()	do { kcsan_release();						\
			     __asm__ __volatile__("lock; addl $0,-4(%%rsp)" ::: "memory", "cc"); \
			} while (0)
#define smp_rmb()	barrier()
#define smp_wmb()	do { kcsan_release(); barrier(); } while (0)

/* Release/acquire come for free on TSO; only the compiler must be held back. */
#define smp_store_release(p, v) do { kcsan_release(); barrier(); WRITE_ONCE(*(p), (v)); } while (0)
#define smp_load_acquire(p) ({ typeof(*(p)) ___v = READ_ONCE(*(p)); barrier(); ___v; })

static inline void cpu_relax(void)
{
	__asm__ __volatile__("pause" ::: "memory");
}

#endif
