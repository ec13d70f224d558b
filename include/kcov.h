/*
 * KCOV (kernel/kcov/, docs/kcov.md): the kernel side of coverage-guided
 * fuzzing. The interface user programs see is include/uapi/kcov.h; this
 * is what the rest of the kernel calls.
 *
 *   kcov_task_exit(t)   a task that ends gives its buffer back
 *   kcov_all_dump()     with kcov.all=1, print every PC reached (poweroff)
 *   __no_kcov           a function the compiler leaves uninstrumented
 *
 * Without CONFIG_KCOV each is nothing.
 */
#ifndef _KCOV_H
#define _KCOV_H

#include <compiler.h>

struct task;

#ifdef CONFIG_KCOV
#define __no_kcov	__attribute__((no_sanitize_coverage))
void kcov_task_exit(struct task *t);
void kcov_all_dump(void);
#else
#define __no_kcov
static inline void kcov_task_exit(struct task *t) { }
static inline void kcov_all_dump(void) { }
#endif

#endif
