/*
 * What the route cache shows of itself: rtstat's counters (Linux's
 * /proc/net/stat/rt_cache), its entries bucket by bucket (rtstat -c), and
 * the longest chain. These read the table as a lookup does, under the
 * mode's read side, and copy what they see.
 */
#include <net/route.h>
#include <rculist.h>
#include <string.h>
#include <time.h>
#include <smp.h>

/* Copy one entry out (any mode: the caller's read side keeps rt alive). */
static void rt_fill_entry(const struct rtable *rt, struct qs_rtcache_entry *e, unsigned long now)
{
	const struct net_device *dev = rt->u.dst.dev;

	memset(e, 0, sizeof(*e));
	e->dst = rt->key.dst;
	e->src = rt->key.src;
	e->iif = rt->key.iif;
	e->tos = rt->key.tos;
	e->gateway = rt->rt_gateway;
	e->prefsrc = rt->rt_src;
	e->flags = (rt->rt_flags & RTCF_LOCAL ? QS_RTLOOKUP_LOCAL : 0) |
		   (rt->rt_flags & RTCF_BROADCAST ? QS_RTLOOKUP_BROADCAST : 0) | QS_RTLOOKUP_CACHED;
	e->refcnt = atomic_read(&rt->u.dst.__refcnt);
	e->use = READ_ONCE(rt->u.dst.__use);
	e->age_ms = (now - READ_ONCE(rt->u.dst.lastuse)) * 1000 / HZ;
	e->stale = rt_is_expired(rt);
	strlcpy(e->dev, dev->name, sizeof(e->dev));
}

/* Walk bucket hash as the mode reads: fill out[] (if any) up to max; the chain's length. */
static int rt_walk_bucket(unsigned int hash, struct qs_rtcache_entry *out, int max)
{
	struct rt_hash_bucket *b = &rt_hash_table[hash];
	unsigned long now = jiffies;
	enum rt_cache_mode mode;
	struct rtable *rth;
	int n = 0;

	local_bh_disable();
	mode = rt_cache_mode();
	if (mode == RT_CACHE_RCU) {
		rcu_read_lock_bh();
		hlist_for_each_entry_rcu(rth, &b->chain, rt_next) {
			if (out && n < max)
				rt_fill_entry(rth, &out[n], now);
			n++;
		}
		rcu_read_unlock_bh();
	} else if (mode == RT_CACHE_RWLOCK) {
		read_lock(&b->lock);		/* softirqs are off: 2.4's read_lock_bh() */
		hlist_for_each_entry(rth, &b->chain, rt_next) {
			if (out && n < max)
				rt_fill_entry(rth, &out[n], now);
			n++;
		}
		read_unlock(&b->lock);
	}
	local_bh_enable();
	return n;
}

int rt_cache_dump_bucket(unsigned int hash, struct qs_rtcache_entry *out, int max)
{
	int n = rt_walk_bucket(hash, out, max);

	return n < max ? n : max;
}

unsigned int rt_longest_chain(void)
{
	unsigned int longest = 0;

	for (unsigned int i = 0; i < RT_HASH_SIZE; i++) {
		unsigned int n = rt_walk_bucket(i, NULL, 0);

		if (n > longest)
			longest = n;
	}
	return longest;
}

void rt_cache_get_stats(struct qs_rtstat *st)
{
	unsigned int cpu;

	memset(st, 0, sizeof(*st));
	for_each_possible_cpu(cpu) {
		const struct rt_cache_stat *s = per_cpu_ptr(&rt_cache_stat, cpu);

		st->in_hit += s->in_hit;
		st->in_slow_tot += s->in_slow_tot;
		st->in_no_route += s->in_no_route;
		st->in_brd += s->in_brd;
		st->in_martian_dst += s->in_martian_dst;
		st->in_martian_src += s->in_martian_src;
		st->out_hit += s->out_hit;
		st->out_slow_tot += s->out_slow_tot;
		st->gc_total += s->gc_total;
		st->gc_ignored += s->gc_ignored;
		st->gc_goal_miss += s->gc_goal_miss;
		st->gc_dst_overflow += s->gc_dst_overflow;
		st->in_hlist_search += s->in_hlist_search;
		st->out_hlist_search += s->out_hlist_search;
		st->chain_evictions += s->chain_evictions;
		st->uncached += s->uncached;
	}
	st->mode = rt_cache_mode();
	st->forwarding = ip_forwarding();
	st->buckets = RT_HASH_SIZE;
	st->max_size = ip_rt_max_size;
	st->gc_thresh = ip_rt_gc_thresh;
	st->chain_max = ip_rt_chain_max;
	st->genid = (unsigned int)atomic_read(&rt_genid);
	st->entries = atomic_read(&rt_entries);
	st->entries_alive = dst_entries_alive();
	st->longest_chain = rt_longest_chain();
	st->mode_switches = READ_ONCE(rt_mode_switches);
}
