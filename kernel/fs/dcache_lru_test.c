/*
 * fs_dcache_lru: the LRU of unused negative dentries and its shrinker
 * (dcache_lru.c), one rule at a time, with exact counts (nothing else
 * changes the namespace while it runs):
 *   - each unlink leaves one negative dentry on the LRU;
 *   - a lookup's hit gives a dentry a second chance: the shrinker frees
 *     the oldest unreferenced ones first;
 *   - a dentry someone holds is never freed;
 *   - past dcache.lru_max, creating a negative dentry shrinks the excess;
 *   - a failed fs_kmalloc() shrinks the whole LRU before it gives up;
 *   - at the end every dentry and kmalloc byte is back.
 */
#include <fs.h>
#include <ktest.h>
#include <kmalloc.h>
#include <string.h>
#include <printk.h>

#define LRU_NAMES	40

static void mkname(char *buf, size_t size, int i)
{
	snprintf(buf, size, "/lrut/n%d", i);
}

/* Create and unlink /lrut/n<i>: one negative dentry for the name. */
static bool leave_negative(struct ktest_ctx *t, int i)
{
	char path[32];
	struct dentry *d;

	mkname(path, sizeof(path), i);
	if (!KT_EXPECT(t, vfs_create(fs_root, path, 0644, true, &d) == 0, "create %s", path))
		return false;
	dput(d);
	return KT_EXPECT(t, vfs_unlink(fs_root, path) == 0, "unlink %s", path);
}

/* n<i>'s dentry (a negative one), referenced; NULL if not cached. */
static struct dentry *cached_get(struct dentry *dir, int i)
{
	char name[16];

	snprintf(name, sizeof(name), "n%d", i);
	return d_lookup(dir, name, strlen(name));
}

/* Is n<i> in the cache? The lookup marks it referenced, as any does. */
static bool cached(struct dentry *dir, int i)
{
	struct dentry *d = cached_get(dir, i);

	if (d)
		dput(d);
	return d != NULL;
}

KTEST(fs_dcache_lru)
{
	struct kmalloc_stats k0, k1;
	struct dcache_stats s0, s;
	struct dentry *dir, *held;
	unsigned long max;
	long dent0, n;
	int i;

	dcache_shrink(1L << 30);
	rcu_barrier();
	kmalloc_get_stats(&k0);
	dent0 = nr_dentries_alive();
	max = dcache_lru_set_max(1UL << 20);
	dcache_get_stats(&s0);
	KT_EXPECT(t, s0.lru == 0, "LRU empty after a full shrink: %ld", s0.lru);
	if (!KT_EXPECT(t, vfs_mkdir(fs_root, "/lrut", 0755) == 0, "mkdir /lrut") ||
	    !KT_EXPECT(t, path_lookup(fs_root, "/lrut", &dir) == 0, "lookup /lrut"))
		goto restore;

	for (i = 0; i < LRU_NAMES; i++)
		if (!leave_negative(t, i))
			goto out;
	dcache_get_stats(&s);
	KT_EXPECT(t, s.lru == LRU_NAMES, "%d unlinks: %ld on the LRU", LRU_NAMES, s.lru);

	/* Second chance: the first ten looked up survive a shrink of 30. */
	for (i = 0; i < 10; i++)
		KT_EXPECT(t, cached(dir, i), "n%d cached before the shrink", i);
	n = dcache_shrink(LRU_NAMES - 10);
	KT_EXPECT(t, n == LRU_NAMES - 10, "shrink of %d freed %ld", LRU_NAMES - 10, n);
	for (i = 0; i < LRU_NAMES; i++)
		KT_EXPECT(t, cached(dir, i) == (i < 10),
			  "n%d %s after the shrink", i, i < 10 ? "referenced, kept" : "unreferenced, freed");

	/* A held dentry is not freed, however hard the shrink. */
	held = cached_get(dir, 0);
	KT_EXPECT(t, held && !held->d_inode, "n0 held");
	n = dcache_shrink(1L << 30);
	dcache_get_stats(&s);
	KT_EXPECT(t, n == 9 && s.lru == 1, "shrink all with n0 held: freed %ld, LRU %ld", n, s.lru);
	KT_EXPECT(t, cached(dir, 0), "n0 still cached while held");
	if (held)
		dput(held);
	KT_EXPECT(t, dcache_shrink(1L << 30) == 1, "n0 freed once let go");

	/* The bound: past 5, each new negative dentry shrinks the oldest. */
	dcache_lru_set_max(5);
	for (i = 0; i < 20; i++) {
		if (!leave_negative(t, 100 + i))
			goto out;
		dcache_get_stats(&s);
		KT_EXPECT(t, s.lru == (i < 5 ? i + 1 : 5), "bound 5, %d unlinks: LRU %ld", i + 1, s.lru);
	}
	KT_EXPECT(t, s.bound_shrinks - s0.bound_shrinks == 15, "bound shrinks %lu",
		  s.bound_shrinks - s0.bound_shrinks);
	dcache_lru_set_max(1UL << 20);

	/* Memory pressure: an allocation that cannot succeed empties the LRU first. */
	KT_EXPECT(t, fs_kmalloc(1UL << 40) == NULL, "a 1 TiB fs_kmalloc()");
	dcache_get_stats(&s);
	KT_EXPECT(t, s.lru == 0 && s.pressure_retries == s0.pressure_retries + 1,
		  "after a failed fs_kmalloc(): LRU %ld, pressure retries %lu", s.lru,
		  s.pressure_retries - s0.pressure_retries);
	printk("dcache-lru: 40 negative dentries, 30 shrunk past 10 referenced, 1 held kept, "
	       "bound 5 held through 20 unlinks (%lu bound shrinks), a failed allocation emptied it\n",
	       s.bound_shrinks - s0.bound_shrinks);
out:
	dput(dir);
	KT_EXPECT(t, vfs_rmdir(fs_root, "/lrut") == 0, "rmdir /lrut");
restore:
	dcache_lru_set_max(max);
	dcache_shrink(1L << 30);
	rcu_barrier();
	kmalloc_get_stats(&k1);
	KT_EXPECT(t, nr_dentries_alive() == dent0, "dentries %ld -> %ld", dent0, nr_dentries_alive());
	KT_EXPECT(t, k1.objects == k0.objects && k1.bytes == k0.bytes,
		  "kmalloc objects %ld -> %ld, bytes %ld -> %ld", k0.objects, k1.objects,
		  k0.bytes, k1.bytes);
}
