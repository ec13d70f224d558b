/*
 * Destination cache entries (dst.h): allocation, references, and the
 * free that seed 000 Figure 5 defers with call_rcu().
 *
 * Linux 2.4's dst_free() put an entry that packets still held on a
 * dst_garbage list, which a timer rescanned until the holders were gone.
 * Here the cache owns a reference of its own instead (later Linux does
 * the same), so dst_free() is a release, and whichever of the cache and
 * the packets lets go last frees the entry: no list, no rescanning, and
 * no window in which a holder's release and the garbage scan could both
 * free it.
 */
#include <net/dst.h>
#include <kmalloc.h>
#include <string.h>
#include <time.h>

static atomic_long_t dst_alive;

void *dst_alloc(size_t size)
{
	struct dst_entry *dst = kzalloc(size);

	if (!dst)
		return NULL;
	atomic_set(&dst->__refcnt, 1);
	dst->lastuse = jiffies;
	atomic_long_inc(&dst_alive);
	return dst;
}

static void dst_destroy(struct dst_entry *dst)
{
	kfree(dst);		/* with poisoning on, a late reader reads 0x6b from here on */
	atomic_long_dec(&dst_alive);
}

void dst_release(struct dst_entry *dst)
{
	if (dst && atomic_dec_and_test(&dst->__refcnt))
		dst_destroy(dst);
}

void dst_free(void *arg)
{
	dst_release(arg);
}

long dst_entries_alive(void)
{
	return atomic_long_read(&dst_alive);
}
