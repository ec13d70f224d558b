/*
 * Keeping the route cache small and current (route_cache.c has the
 * design): flushes by generation, and garbage collection, after Linux
 * 2.4's rt_garbage_collect() and rt_check_expire() with 2.6's rt_genid.
 *
 *   rt_cache_flush()     a table or interface change: every entry made
 *                        so far is stale (rt_is_expired()), at the cost
 *                        of one increment. Lookups skip stale entries;
 *                        rt_intern_hash() removes those in the chain it
 *                        inserts into; the GC timer removes the rest.
 *   rt_garbage_collect() passes over every bucket removing stale entries
 *                        and unused ones (only the cache's reference)
 *                        idle at least `expire`, halving expire after
 *                        each pass, until the cache is down to
 *                        ip_rt_gc_thresh (2.4's loop). Run by the timer
 *                        above the threshold or after a flush, and at
 *                        once by an insertion that finds the cache full
 *                        (at most every ip_rt_gc_min_interval: a flood
 *                        otherwise spends its time collecting).
 *   rt_check_expire()    the timer, every ip_rt_gc_interval: the above,
 *                        or else only entries idle ip_rt_gc_timeout.
 *
 * Every removal is rt_remove() under the bucket's write lock: call_rcu()
 * with rtcache=rcu (Figure 5), at once with rtcache=rwlock.
 */
#include <net/route.h>
#include <rculist.h>
#include <timer.h>
#include <time.h>
#include <errno.h>

#define INT_MAX_GOAL	0x7fffffff

static unsigned long ip_rt_gc_timeout = 10 * HZ;	/* unused this long: expired */
static unsigned long ip_rt_gc_interval = HZ / 2;
static unsigned long ip_rt_gc_min_interval = HZ / 20 ? HZ / 20 : 1;

static DEFINE_SPINLOCK(rt_gc_lock);		/* one collector at a time */
static unsigned long rt_gc_last;		/* jiffies of the last collection */
static unsigned int rt_gc_swept_genid;		/* the generation the last one swept up to */
static struct timer_list rt_gc_timer;

void rt_cache_flush(void)
{
	/* After the change it describes (a locked add: a full barrier on x86);
	 * the slow path reads it before the table (route.c). */
	atomic_inc(&rt_genid);
}

static inline unsigned long rt_age(const struct rtable *rt, unsigned long now)
{
	return now - READ_ONCE(rt->u.dst.lastuse);
}

/* Bucket i, write-locked: stale entries, and up to limit unused ones idle >= expire. */
static int rt_gc_bucket(unsigned int i, enum rt_cache_mode mode, unsigned long expire,
			int limit, unsigned long now)
{
	struct rtable *rth;
	struct hlist_node *n;
	int removed = 0;

	rt_bucket_lock(i, mode);
	hlist_for_each_entry_safe(rth, n, &rt_hash_table[i].chain, rt_next) {
		if (rt_is_expired(rth) ||
		    (removed < limit && atomic_read(&rth->u.dst.__refcnt) == 1 &&
		     rt_age(rth, now) >= expire)) {
			rt_remove(rth, mode);
			removed++;
		}
	}
	rt_bucket_unlock(i, mode);
	return removed;
}

static int rt_gc_pass(enum rt_cache_mode mode, unsigned long expire, int goal)
{
	unsigned long now = jiffies;
	int removed = 0;

	for (unsigned int i = 0; i < RT_HASH_SIZE; i++) {
		if (hlist_empty(&rt_hash_table[i].chain))
			continue;		/* a racing insert waits for the next pass */
		removed += rt_gc_bucket(i, mode, expire, goal > removed ? goal - removed : 0, now);
	}
	return removed;
}

int rt_garbage_collect(enum rt_cache_mode mode, bool sync)
{
	unsigned long expire = ip_rt_gc_timeout;
	unsigned int genid;
	int goal;

	if (mode == RT_CACHE_OFF)
		return 0;
	if (!spin_trylock(&rt_gc_lock)) {
		RT_CACHE_STAT_INC(gc_ignored);
		return -EBUSY;
	}
	if (sync && jiffies - rt_gc_last < ip_rt_gc_min_interval) {
		spin_unlock(&rt_gc_lock);
		RT_CACHE_STAT_INC(gc_ignored);
		return -EBUSY;
	}
	RT_CACHE_STAT_INC(gc_total);
	rt_gc_last = jiffies;
	genid = atomic_read(&rt_genid);
	goal = atomic_read(&rt_entries) - (int)ip_rt_gc_thresh;
	for (;;) {
		goal -= rt_gc_pass(mode, expire, goal);
		if (goal <= 0 || expire == 0)
			break;
		expire >>= 1;			/* 2.4: not enough; take younger ones too */
	}
	rt_gc_swept_genid = genid;
	spin_unlock(&rt_gc_lock);
	if (goal > 0) {
		RT_CACHE_STAT_INC(gc_goal_miss);	/* the rest are in use */
		return -ENOBUFS;
	}
	return 0;
}

/* Softirq context (the timer): softirqs are off for the whole of it. */
static void rt_check_expire(unsigned long data)
{
	enum rt_cache_mode mode = rt_cache_mode();

	if (mode != RT_CACHE_OFF) {
		if ((unsigned long)atomic_read(&rt_entries) > ip_rt_gc_thresh ||
		    READ_ONCE(rt_gc_swept_genid) != (unsigned int)atomic_read(&rt_genid))
			rt_garbage_collect(mode, false);
		else
			rt_gc_pass(mode, ip_rt_gc_timeout, INT_MAX_GOAL);
	}
	mod_timer(&rt_gc_timer, jiffies + ip_rt_gc_interval);
}

static void rt_flush_bucket(unsigned int i, enum rt_cache_mode mode)
{
	struct rtable *rth;
	struct hlist_node *n;

	rt_bucket_lock(i, mode);
	hlist_for_each_entry_safe(rth, n, &rt_hash_table[i].chain, rt_next)
		rt_remove(rth, mode);
	rt_bucket_unlock(i, mode);
}

void rt_flush_all(enum rt_cache_mode lock_mode)
{
	for (unsigned int i = 0; i < RT_HASH_SIZE; i++) {
		local_bh_disable();
		rt_flush_bucket(i, lock_mode);
		local_bh_enable();
	}
}

void rt_run_flush(void)
{
	for (unsigned int i = 0; i < RT_HASH_SIZE; i++) {
		enum rt_cache_mode mode;

		local_bh_disable();
		mode = rt_cache_mode();
		if (mode != RT_CACHE_OFF)	/* off: empty, or being emptied by a mode switch */
			rt_flush_bucket(i, mode);
		local_bh_enable();
	}
}

void rt_gc_init(void)
{
	setup_timer(&rt_gc_timer, rt_check_expire, 0);
	mod_timer(&rt_gc_timer, jiffies + ip_rt_gc_interval);
}
