/* Between dcache.c and dcache_lru.c: the shrinker's unhash of one dentry. */
#ifndef _FS_DCACHE_LRU_H
#define _FS_DCACHE_LRU_H

#include <fs.h>

/* dcache_lock held: if only the cache references d and it is negative,
 * unhash it (no lookup can take a new reference after) and say so. */
bool __d_unhash_unused(struct dentry *d);

#endif
