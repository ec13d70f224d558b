/*
 * The filesystem's namespace calls (kernel/fs/syscalls.c). Paths are
 * resolved from the caller's working directory unless they start with '/'.
 * Errors are Linux's.
 */
#ifndef _UAPI_FS_H
#define _UAPI_FS_H

/*
 * 110-119 the filesystem (kernel/fs). Not 100-109: user/bin/fuzz.c calls
 * 0-103 at random with random arguments, and a mkdir or create that
 * succeeds leaves a file behind; the fuzzer calls 110-118 on purpose,
 * inside a directory of its own that it removes afterwards (tame_fs()).
 */
#define SYS_mkdir		110	/* (path, mode) */
#define SYS_rmdir		111	/* (path) */
#define SYS_unlink		112	/* (path) */
#define SYS_rename		113	/* (from, to) */
#define SYS_stat		114	/* (path, struct qs_stat *) */
#define SYS_qs_creat		115	/* (path, mode, excl): an empty file, no descriptor */
#define SYS_chdir		116	/* (path) */
#define SYS_getcwd		117	/* (buf, size) -> the length with its NUL; ERANGE, ENOENT */
#define SYS_qs_getdents		118	/* (fd, struct qs_dirent *, n) -> entries read, 0 at the end */
#define SYS_qs_dcache		119	/* (QS_DCACHE_*, arg, struct qs_dcache_stats *) */

/* qs_dcache(): the dentry cache's LRU and the latency of its call_rcu()s. */
#define QS_DCACHE_STATS		0	/* fill the stats; arg 1: then zero the latency record */
#define QS_DCACHE_SHRINK	1	/* free up to arg (0: all) unused negative dentries -> how
					 * many (root only; their memory returns after a grace period) */

#define QS_DCACHE_HIST		40	/* latency buckets: [i] counts [2^i, 2^(i+1)) ns */

struct qs_dcache_stats {
	int64_t dentries;		/* alive, the root and those waiting for call_rcu() too */
	int64_t lru, lru_max;		/* unused negative dentries on the LRU, its bound */
	uint64_t shrunk;		/* freed by the shrinker since boot */
	uint64_t bound_shrinks;		/* of which past the bound */
	uint64_t pressure_retries;	/* fs allocations that failed and shrank the LRU */
	uint64_t pressure_saved;	/* of which the retry succeeded */
	uint64_t cb_count;		/* dentry frees through call_rcu() since the last reset */
	uint64_t cb_sum_ns, cb_max_ns;	/* their latency, queued to invoked */
	uint64_t cb_hist[QS_DCACHE_HIST];
	uint32_t mode;			/* 0: dcache=rcu, 1: dcache=lock */
	uint32_t pad;
};

#endif
