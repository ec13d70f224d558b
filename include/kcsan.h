/*
 * KCSAN, the kernel's data-race detector (kernel/kcsan/, docs/kcsan.md).
 * With CONFIG_KCSAN the compiler's ThreadSanitizer instrumentation calls
 * the runtime on every load and store; the runtime samples a few, stalls
 * the CPU with a watchpoint set on each, and reports another CPU's
 * conflicting access as a data race.
 *
 *   data_race(expr)              an intended race, never reported: say why
 *                                beside it (docs/kcsan.md lists each one)
 *   ASSERT_EXCLUSIVE_WRITER(x)   no other CPU writes x while this runs
 *   ASSERT_EXCLUSIVE_ACCESS(x)   no other CPU touches x while this runs
 *   __no_kcsan                   a function the compiler leaves alone
 *
 * Without CONFIG_KCSAN each is the plain code.
 */
#ifndef _KCSAN_H
#define _KCSAN_H

#include <compiler.h>

#define KCSAN_ACCESS_WRITE		0x1
#define KCSAN_ACCESS_MARKED		0x2	/* READ_ONCE(), WRITE_ONCE(), atomics */
#define KCSAN_ACCESS_ASSERT_WRITER	0x4
#define KCSAN_ACCESS_ASSERT_ACCESS	0x8

#ifdef CONFIG_KCSAN
#define __no_kcsan	__attribute__((no_sanitize_thread, noinline))
void kcsan_disable_current(void);
void kcsan_enable_current(void);
void kcsan_check(const volatile void *ptr, unsigned long size, unsigned int type,
		 unsigned long ip);
#define data_race(expr) ({							\
	kcsan_disable_current();						\
	__auto_type __kcsan_v = (expr);						\
	kcsan_enable_current();							\
	__kcsan_v;								\
})
/* Not inlined: its return address is the assertion's place. */
void __kcsan_assert(const volatile void *ptr, unsigned long size, unsigned int type);
#define ASSERT_EXCLUSIVE_WRITER(var)						\
	__kcsan_assert(&(var), sizeof(var), KCSAN_ACCESS_ASSERT_WRITER)
#define ASSERT_EXCLUSIVE_ACCESS(var)						\
	__kcsan_assert(&(var), sizeof(var), KCSAN_ACCESS_ASSERT_ACCESS)
/* After the CPUs are up (kmain): checking starts. */
void kcsan_init(void);
/* Reports so far (tests). */
unsigned long kcsan_reports(void);
/* Test hooks: sample every access for a while, with this stall. */
void kcsan_set_sampling(unsigned long skip, unsigned long udelay_us);
void kcsan_get_sampling(unsigned long *skip, unsigned long *udelay_us);
/* kmalloc()/kfree(): the object this CPU just allocated, whose
 * initialising stores the runtime watches until they are ordered
 * (kcsan.fresh, docs/kcsan.md); kfree() ends that. */
void kcsan_alloc(const void *p, unsigned long size);
void kcsan_free(const void *p);
/* Test hook: kcsan.fresh=N from now on; returns what it was. */
unsigned long kcsan_set_fresh(unsigned long n);
#else
static inline void kcsan_alloc(const void *p, unsigned long size) { }
static inline void kcsan_free(const void *p) { }
#define __no_kcsan
#define data_race(expr)			(expr)
#define ASSERT_EXCLUSIVE_WRITER(var)	do { (void)&(var); } while (0)
#define ASSERT_EXCLUSIVE_ACCESS(var)	do { (void)&(var); } while (0)
static inline unsigned long kcsan_reports(void) { return 0; }
static inline void kcsan_init(void) { }
#endif

#endif
