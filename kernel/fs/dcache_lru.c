/*
 * The dcache's LRU and its shrinker (docs/fs.md, "The LRU and the
 * shrinker").
 *
 * In ramfs the tree of positive dentries is the filesystem: there is no
 * disk to read a name back from, so a positive dentry can never be
 * reclaimed (Linux's ramfs pins them the same way). What the cache holds
 * beyond the files is negative dentries: each unlink, rmdir and rename
 * leaves one for the name it took away. Those go on dentry_lru, oldest at
 * the head, and the shrinker frees the ones only the cache references.
 *
 * Lock-free lookups (dcache=rcu) never touch the list: a hit only sets
 * d_referenced (when it is clear, so a hot dentry costs no store), and
 * the shrinker gives such a dentry a second chance at the tail, as
 * Linux's DCACHE_REFERENCED does. The list and its length are under
 * dcache_lock, which every writer already holds when it adds, turns
 * positive or unhashes a dentry.
 *
 * Freeing races the lookups exactly as unlink does: __d_unhash_unused()
 * checks d_count == 1 (the cache's reference alone) and unhashes under
 * d->d_lock, the lock a lookup takes its reference under, so no lookup can
 * take one after; the cache's reference is then dropped and dput() hands
 * the memory to call_rcu(), for readers still standing on it in the chain.
 *
 * When it runs (there is no general memory-pressure callback in kmalloc,
 * kernel/mm/kmalloc.c, so the filesystem answers for its own memory):
 *   - past the bound: d_alloc() of a negative dentry past dcache.lru_max
 *     shrinks the excess at once (dcache_lru_enforce());
 *   - on kmalloc failure: the filesystem's allocations (dentries, inodes,
 *     file data) go through fs_kmalloc(), which on failure shrinks the
 *     whole LRU, waits for those frees with rcu_barrier() and retries once;
 *   - on demand: qs_dcache(QS_DCACHE_SHRINK) from user space, and the tests.
 */
#include <fs.h>
#include <kmalloc.h>
#include <cmdline.h>
#include <string.h>
#include <lockdep.h>
#include "dcache_lru.h"

#define SHRINK_BATCH	32

static LIST_HEAD(dentry_lru);
static long lru_len;			/* under dcache_lock */
static unsigned long dcache_lru_max = 4096;
CMDLINE_ULONG("dcache.lru_max", dcache_lru_max, 0, 1UL << 24,
	      "dcache.lru_max=N: unused negative dentries kept at most (default 4096, 0..16M)");

static atomic_long_t shrunk, bound_shrinks, pressure_retries, pressure_saved;
/* Seed 000 Figures 9-10 and seed 004 Figure 7 plot call_rcu() latency
 * under dbench: here, of the dcache's own callbacks, queued to invoked. */
static atomic_long_t cb_count, cb_sum_ns, cb_max_ns, cb_hist[40];

void d_lru_add(struct dentry *d)
{
	lockdep_assert_held(&dcache_lock);
	list_add_tail(&d->d_lru, &dentry_lru);
	lru_len++;
}

void d_lru_del(struct dentry *d)
{
	lockdep_assert_held(&dcache_lock);
	if (list_empty(&d->d_lru))
		return;
	list_del_init(&d->d_lru);
	lru_len--;
}

long dcache_shrink(long nr)
{
	long freed = 0;

	while (freed < nr) {
		struct dentry *batch[SHRINK_BATCH];
		int n = 0;
		long scan;

		spin_lock(&dcache_lock);
		/* Twice the length: a referenced dentry rotated to the tail gets
		 * its second look within the same call. */
		scan = 2 * lru_len;
		while (n < SHRINK_BATCH && freed + n < nr && scan-- > 0 &&
		       !list_empty(&dentry_lru)) {
			struct dentry *d = list_first_entry(&dentry_lru, struct dentry, d_lru);

			if (READ_ONCE(d->d_referenced)) {
				WRITE_ONCE(d->d_referenced, false);
				list_move_tail(&d->d_lru, &dentry_lru);
				continue;
			}
			if (!__d_unhash_unused(d)) {
				/* someone holds it (a create about to turn it
				 * positive, a lookup): look again later */
				list_move_tail(&d->d_lru, &dentry_lru);
				continue;
			}
			list_del_init(&d->d_lru);
			lru_len--;
			batch[n++] = d;
		}
		spin_unlock(&dcache_lock);
		/* The cache's references: each dput() ends in call_rcu(). */
		for (int i = 0; i < n; i++)
			dput(batch[i]);
		freed += n;
		if (n < SHRINK_BATCH)
			break;		/* nothing more to free in this pass */
	}
	if (freed)
		atomic_long_add(freed, &shrunk);
	return freed;
}

void dcache_lru_enforce(void)
{
	long over = READ_ONCE(lru_len) - (long)READ_ONCE(dcache_lru_max);

	if (over > 0)
		atomic_long_add(dcache_shrink(over), &bound_shrinks);
}

void *fs_kmalloc(size_t size)
{
	void *p = kmalloc(size);

	if (p)
		return p;
	atomic_long_inc(&pressure_retries);
	/* The memory only comes back after the readers' grace period. */
	if (dcache_shrink(1L << 40))
		rcu_barrier();
	p = kmalloc(size);
	if (p)
		atomic_long_inc(&pressure_saved);
	return p;
}

void *fs_kzalloc(size_t size)
{
	void *p = fs_kmalloc(size);

	if (p)
		memset(p, 0, size);
	return p;
}

void dcache_get_stats(struct dcache_stats *s)
{
	s->dentries = nr_dentries_alive();
	s->lru = READ_ONCE(lru_len);
	s->lru_max = READ_ONCE(dcache_lru_max);
	s->shrunk = atomic_long_read(&shrunk);
	s->bound_shrinks = atomic_long_read(&bound_shrinks);
	s->pressure_retries = atomic_long_read(&pressure_retries);
	s->pressure_saved = atomic_long_read(&pressure_saved);
	s->cb_count = atomic_long_read(&cb_count);
	s->cb_sum_ns = atomic_long_read(&cb_sum_ns);
	s->cb_max_ns = atomic_long_read(&cb_max_ns);
	for (int i = 0; i < 40; i++)
		s->cb_hist[i] = atomic_long_read(&cb_hist[i]);
}

void dcache_note_cb_latency(u64 ns)
{
	int b = ns ? 63 - __builtin_clzll(ns) : 0;
	long max;

	atomic_long_inc(&cb_count);
	atomic_long_add((long)ns, &cb_sum_ns);
	atomic_long_inc(&cb_hist[b < 40 ? b : 39]);
	while ((long)ns > (max = atomic_long_read(&cb_max_ns)) &&
	       atomic_long_cmpxchg(&cb_max_ns, max, (long)ns) != max)
		;
}

void dcache_reset_cb_latency(void)
{
	atomic_long_set(&cb_count, 0);
	atomic_long_set(&cb_sum_ns, 0);
	atomic_long_set(&cb_max_ns, 0);
	for (int i = 0; i < 40; i++)
		atomic_long_set(&cb_hist[i], 0);
}

/* For the tests: the bound, changed and put back. */
unsigned long dcache_lru_set_max(unsigned long max)
{
	unsigned long old = READ_ONCE(dcache_lru_max);

	WRITE_ONCE(dcache_lru_max, max);
	return old;
}
