/* panic, BUG, WARN. */
#ifndef _PANIC_H
#define _PANIC_H

#include <compiler.h>

struct pt_regs;

__printf(1, 2) __noreturn void panic(const char *fmt, ...);
__noreturn void panic_regs(const struct pt_regs *regs, const char *fmt, ...);
void warn_slowpath(const char *file, int line, const char *cond);

/* The CPU that panicked, -1 if none: other CPUs stop when they see it. */
extern volatile int panic_cpu;

#define BUG()		panic("BUG at %s:%d", __FILE__, __LINE__)
#define BUG_ON(c)	do { if (unlikely(c)) panic("BUG_ON(%s) at %s:%d", #c, __FILE__, __LINE__); } while (0)
#define WARN_ON(c)	({ bool __w = !!(c); if (unlikely(__w)) warn_slowpath(__FILE__, __LINE__, #c); __w; })
#define WARN_ON_ONCE(c)	({ static bool __once; bool __w = !!(c); \
			   if (unlikely(__w) && !__once) { __once = true; warn_slowpath(__FILE__, __LINE__, #c); } __w; })

#endif
