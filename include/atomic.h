/* Atomic integers built on GCC's __atomic builtins (lock-prefixed on x86). */
#ifndef _ATOMIC_H
#define _ATOMIC_H

#include <compiler.h>

typedef struct { volatile int counter; } atomic_t;
typedef struct { volatile long counter; } atomic_long_t;

#define ATOMIC_INIT(i)	{ (i) }

#define __ATOMIC_OPS(prefix, T, V)						\
static inline V prefix##_read(const T *a) { return READ_ONCE(a->counter); }	\
static inline void prefix##_set(T *a, V i) { WRITE_ONCE(a->counter, i); }	\
static inline void prefix##_add(V i, T *a)					\
{ __atomic_fetch_add(&a->counter, i, __ATOMIC_SEQ_CST); }			\
static inline void prefix##_sub(V i, T *a)					\
{ __atomic_fetch_sub(&a->counter, i, __ATOMIC_SEQ_CST); }			\
static inline V prefix##_add_return(V i, T *a)					\
{ return __atomic_add_fetch(&a->counter, i, __ATOMIC_SEQ_CST); }		\
static inline V prefix##_sub_return(V i, T *a)					\
{ return __atomic_sub_fetch(&a->counter, i, __ATOMIC_SEQ_CST); }		\
static inline V prefix##_fetch_add(V i, T *a)					\
{ return __atomic_fetch_add(&a->counter, i, __ATOMIC_SEQ_CST); }		\
static inline V prefix##_xchg(T *a, V n)					\
{ return __atomic_exchange_n(&a->counter, n, __ATOMIC_SEQ_CST); }		\
static inline V prefix##_cmpxchg(T *a, V old, V n)				\
{										\
	__atomic_compare_exchange_n(&a->counter, &old, n, false,		\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);	\
	return old;								\
}										\
static inline void prefix##_inc(T *a) { prefix##_add(1, a); }			\
static inline void prefix##_dec(T *a) { prefix##_sub(1, a); }			\
static inline V prefix##_inc_return(T *a) { return prefix##_add_return(1, a); }	\
static inline V prefix##_dec_return(T *a) { return prefix##_sub_return(1, a); }	\
static inline bool prefix##_dec_and_test(T *a) { return prefix##_sub_return(1, a) == 0; }

__ATOMIC_OPS(atomic, atomic_t, int)
__ATOMIC_OPS(atomic_long, atomic_long_t, long)

/* Bit operations on unsigned long bitmaps (CPU masks and the like). */
static inline void set_bit(unsigned nr, volatile unsigned long *addr)
{
	__atomic_fetch_or(&addr[nr / 64], 1UL << (nr % 64), __ATOMIC_SEQ_CST);
}

static inline void clear_bit(unsigned nr, volatile unsigned long *addr)
{
	__atomic_fetch_and(&addr[nr / 64], ~(1UL << (nr % 64)), __ATOMIC_SEQ_CST);
}

static inline bool test_bit(unsigned nr, const volatile unsigned long *addr)
{
	return (READ_ONCE(addr[nr / 64]) >> (nr % 64)) & 1;
}

static inline bool test_and_set_bit(unsigned nr, volatile unsigned long *addr)
{
	unsigned long m = 1UL << (nr % 64);
	return __atomic_fetch_or(&addr[nr / 64], m, __ATOMIC_SEQ_CST) & m;
}

static inline bool test_and_clear_bit(unsigned nr, volatile unsigned long *addr)
{
	unsigned long m = 1UL << (nr % 64);
	return __atomic_fetch_and(&addr[nr / 64], ~m, __ATOMIC_SEQ_CST) & m;
}

#endif
