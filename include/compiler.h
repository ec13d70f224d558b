/* Compiler helpers: attributes, READ_ONCE/WRITE_ONCE, container_of. */
#ifndef _COMPILER_H
#define _COMPILER_H

#include <types.h>

#define __packed	__attribute__((packed))
#define __aligned(x)	__attribute__((aligned(x)))
#define __section(s)	__attribute__((section(s)))
#define __used		__attribute__((used))
#define __unused	__attribute__((unused))
#define __noreturn	__attribute__((noreturn))
#define __noinline	__attribute__((noinline))
#define __always_inline	inline __attribute__((always_inline))
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#define __cacheline_aligned __aligned(64)
/*
 * The tick's line: what CPU 0's tick writes every jiffy (jiffies and its
 * time stamp), on a cache line the linker script gives nothing else, so
 * that a read-mostly variable placed beside them (the TSC's calibration,
 * the softirq table) is not invalidated on every CPU at every tick.
 */
#define __tick_line	__attribute__((section(".data.tick_line")))

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define ALIGN_UP(x, a)	(((x) + ((a) - 1)) & ~((typeof(x))(a) - 1))
#define ALIGN_DOWN(x, a) ((x) & ~((typeof(x))(a) - 1))
#define MIN(a, b)	((a) < (b) ? (a) : (b))
#define MAX(a, b)	((a) > (b) ? (a) : (b))

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

/*
 * __user marks a pointer into the calling process's memory: only
 * copy_from_user()/copy_to_user() (include/uaccess.h) may use it.
 * __acquires(l)/__releases(l)/__must_hold(l) say that a function returns
 * with l held, is entered with it held and drops it, or keeps it held;
 * sparse (make check) counts each lock's context through every function
 * and reports one left unbalanced ("context imbalance"). A lookup that
 * returns its object locked or NULL cannot be counted that way: it ends
 * with __lock_handoff(l), and the unlock that matches it begins with
 * __lock_takeback(l) (the lock validator still checks them at run time).
 * __iomem marks a device's registers (ioremap()): only mmio_read32()/
 * mmio_write32() (include/arch/io.h) may touch them.
 * __rcu marks a pointer that RCU readers load without a lock: read it with
 * rcu_dereference*() or rcu_access_pointer(), write it with
 * rcu_assign_pointer() or RCU_INIT_POINTER() (docs/rcu/checking.md). To GCC
 * it is nothing; the sparse checker (make check) gives it an address space
 * of its own so a plain load or store of such a pointer is reported.
 */
#ifdef __CHECKER__
#define __user		__attribute__((noderef, address_space(__user)))
#define __iomem		__attribute__((noderef, address_space(__iomem)))
#define __rcu		__attribute__((noderef, address_space(__rcu)))
#define __force		__attribute__((force))
#define __kernel	__attribute__((address_space(0)))
#define __acquires(x)	__attribute__((context(x, 0, 1)))
#define __releases(x)	__attribute__((context(x, 1, 0)))
#define __must_hold(x)	__attribute__((context(x, 1, 1)))
#define __acquire(x)	__context__(x, 1)
#define __release(x)	__context__(x, -1)
#define __cond_lock(x, c)	((c) ? ({ __acquire(x); 1; }) : 0)
#define __lock_handoff(x)	__context__(x, -1)
#define __lock_takeback(x)	__context__(x, 1)
#else
#define __acquires(x)
#define __releases(x)
#define __must_hold(x)
#define __acquire(x)	((void)0)
#define __release(x)	((void)0)
#define __cond_lock(x, c)	(c)
#define __lock_handoff(x)	((void)0)
#define __lock_takeback(x)	((void)0)
#define __user
#define __iomem
#define __kernel
#define __rcu
#define __force
#endif

#define STATIC_ASSERT(c) _Static_assert(c, #c)

/* A compiler barrier: the compiler may not move memory accesses across it. */
#define barrier()	__asm__ __volatile__("" ::: "memory")

/*
 * READ_ONCE/WRITE_ONCE: exactly one access of the whole object, never torn,
 * fused or re-read by the compiler. They order nothing against other CPUs;
 * that is the job of smp_mb() and friends in <barrier.h>.
 */
#define READ_ONCE(x)		(*(const volatile typeof(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile typeof(x) *)&(x) = (v))

#endif
