/*
 * What printf's integer flags print, as C11 7.21.6.1 says, for both
 * engines: the kernel's (kernel/lib/vsnprintf.c, checked by the KTEST
 * printf_shared_cases) and the user library's (user/lib/stdio.c, checked
 * by libctest). One table, so the two cannot drift apart on a case it
 * holds (they did: "%+ d" printed " 7" in user programs).
 *
 *	#define X(want, fmt, arg) ...
 *	PRINTF_INT_CASES(X)
 *
 * "%#x" of 0 is left out: the kernel prints "0x0" as Linux does
 * (include/printf_num.h), C and the user library "0" (libctest checks it).
 *
 * Each format takes one int. Callers pass fmt through a variable: GCC's
 * format check warns (and -Werror fails) on "%+ d", whose ' ' C ignores.
 */
#ifndef _UAPI_PRINTF_CASES_H
#define _UAPI_PRINTF_CASES_H

#define PRINTF_INT_CASES(X)						\
	X("+7", "%+d", 7)						\
	X(" 7", "% d", 7)						\
	X("+7", "%+ d", 7)		/* '+' wins over ' ' */		\
	X("+7", "% +d", 7)						\
	X("-7", "%+ d", -7)						\
	X("  +7", "%+4d", 7)						\
	X("+007", "%+04d", 7)						\
	X(" 007", "% 04d", 7)						\
	X("+0", "%+d", 0)						\
	X("-0007", "%05d", -7)						\
	X("-7   |", "%-5d|", -7)					\
	X("00042", "%.5d", 42)						\
	X("0x1f", "%#x", 0x1f)						\
	X("0X1F", "%#X", 0x1f)						\
	X("    0x1f", "%#8x", 0x1f)					\
	X("0x00001f", "%#08x", 0x1f)	/* zeros after the prefix */	\
	X("0x1f    |", "%-#8x|", 0x1f)					\
	X("017", "%#o", 15)

#endif
