/* Raw system calls: numbers (include/uapi/quiescent.h) and syscall(). */
#ifndef _USER_SYS_SYSCALL_H
#define _USER_SYS_SYSCALL_H

#include <quiescent.h>

/* The call, with errno set and -1 returned on failure. */
long syscall(long nr, ...);

/* The call, returning what the kernel returned (a negative errno on failure). */
static inline long __syscall6(long n, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;

	__asm__ __volatile__("syscall"
			     : "=a"(ret)
			     : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			     : "rcx", "r11", "memory");
	return ret;
}

#define __syscall0(n)			__syscall6(n, 0, 0, 0, 0, 0, 0)
#define __syscall1(n, a)		__syscall6(n, (long)(a), 0, 0, 0, 0, 0)
#define __syscall2(n, a, b)		__syscall6(n, (long)(a), (long)(b), 0, 0, 0, 0)
#define __syscall3(n, a, b, c)		__syscall6(n, (long)(a), (long)(b), (long)(c), 0, 0, 0)

#endif
