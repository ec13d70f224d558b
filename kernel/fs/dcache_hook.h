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

/* The rename-walk test's hook (dcache_rename_test.c): called on each node
 * of a lock-free chain walk before its ->next is read; NULL otherwise. */
extern void (*dcache_walk_node)(struct dentry *d);

static inline bool dwalk_on(void)
{
	return DCACHE_STRESS_HOOK && unlikely(READ_ONCE(dcache_walk_node) != NULL);
}

/* The hash-table bucket of a name hash (the test picks colliding names). */
unsigned int d_hash_bucket(unsigned int h);

#endif
