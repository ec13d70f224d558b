/*
 * The stress test's hook in d_lookup() (kernel/fs/dcache_stress.c), a
 * compile-time switch: with CONFIG_DCACHE_STRESS_HOOK off, dstress_on()
 * is the constant false and the compiler drops the test branches from
 * the lookup's chain walk.
 */
#ifndef _FS_DCACHE_HOOK_H
#define _FS_DCACHE_HOOK_H

#include <fs.h>

#ifdef CONFIG_DCACHE_STRESS_HOOK
#define DCACHE_STRESS_HOOK	1
#else
#define DCACHE_STRESS_HOOK	0
#endif

static inline bool dstress_on(void)
{
	return DCACHE_STRESS_HOOK && unlikely(READ_ONCE(dcache_stress_window) != NULL);
}

#endif
