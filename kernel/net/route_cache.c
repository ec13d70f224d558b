/*
 * The IPv4 route cache: seed 000 section 2.4 ("Read-Copy Update and IP
 * Route Cache", Figures 5-7), with Linux 2.4's names (rt_hash_table,
 * rt_hash_bucket, rt_intern_hash, rt_free, rtstat).
 *
 * Every packet asks for its route, and most packets belong to a flow
 * whose route was asked for a moment ago, so Linux kept the answers in a
 * hash table keyed by (destination, source, TOS, input interface). In
 * 2.4 each bucket had a reader-writer lock: lookups in parallel, but
 * every lookup wrote the lock's cache line, which bounced between CPUs.
 * Section 2.4 removed the readers' locks:
 *   1. delete read_lock_bh()/read_unlock_bh() around the chain walk
 *      (rt_cache_get_rcu() has rcu_read_lock_bh() in their place: the
 *      walk is in softirq context, and with softirqs off no CPU can pass
 *      through a quiescent state);
 *   2. writers' write_lock_bh() becomes a spinlock (rt_hash_locks[]);
 *   3. a barrier between fetching a pointer and dereferencing it
 *      (rcu_dereference() inside hlist_for_each_entry_rcu());
 *   4. dst_free() of a removed entry goes through call_rcu(), so it runs
 *      only after every reader that might stand on the entry is done
 *      (rt_free(), Figure 5).
 * Figure 6 is the speedup of ip_route_output_key() on up to 8 CPUs and
 * Figure 7 its kernel profile; kernel/net/route_bench.c measures the
 * same lookups here (docs/net-route-cache.md).
 *
 * One kernel, three designs (rtcache= at boot, qs_rtcache() at run time):
 *   rcu     the paper's;
 *   rwlock  2.4's: readers read_lock the bucket, writers write_lock it and
 *           free what they remove at once (no reader can be on it);
 *   off     no cache: every packet looks up the routing table, as Linux
 *           3.6 and later do.
 * A switch while packets flow: rt_cache_set_mode().
 *
 * Where we depart from the paper and from 2.4, and why:
 *   1. Entries are in hlist chains (the issue; 2.4 linked them through
 *      rt_next in the dst_entry); removal is hlist_del_rcu().
 *   2. The cache holds a reference of its own on every hashed entry, and
 *      dst_free() (the call_rcu() callback of Figure 5) drops it; the last
 *      holder frees the entry (net/dst.c says why this replaces 2.4's
 *      dst_garbage list).
 *   3. The hash is keyed (SipHash with a secret drawn at boot): 2.4's
 *      unkeyed rt_hash_code() let anyone who can send packets choose
 *      addresses that all land in one chain. Linux 2.6 keyed it with
 *      jhash and a random rt_hash_rnd; SipHash is what Linux uses now for
 *      such tables.
 *   4. Bounded: at most ip_rt_max_size entries and ip_rt_chain_max per
 *      chain. Where 2.4 failed the lookup ("dst cache overflow",
 *      ENOBUFS), the answer here is still given, just not kept
 *      (DST_NOCACHE): a flood cannot make routing fail.
 *   5. A flush is a new generation (rt_genid, as Linux 2.6.25 did) rather
 *      than 2.4's walk of the whole table: entries of an older
 *      generation are skipped by lookups and removed later (route_gc.c).
 */
#include <net/route.h>
#include <rculist.h>
#include <fault_inject.h>
#include <siphash.h>
#include <mutex.h>
#include <cmdline.h>
#include <string.h>
#include <errno.h>
#include <printk.h>
#include <time.h>
#include <arch/cpu.h>

struct rt_hash_bucket rt_hash_table[RT_HASH_SIZE];
const unsigned int rt_hash_mask = RT_HASH_SIZE - 1;
static spinlock_t rt_hash_locks[RT_HASH_LOCK_SZ];
static siphash_key_t rt_hash_secret;
static bool rt_secret_fixed;

atomic_t rt_entries;
atomic_t rt_pending_free;
atomic_t rt_genid;
int rt_mode = RT_CACHE_RCU;		/* enum rt_cache_mode; rt_cache_mode() reads it */
unsigned long rt_mode_switches;
static DEFINE_MUTEX(rt_mode_mutex);

unsigned long ip_rt_max_size = 4096;
unsigned long ip_rt_gc_thresh;			/* ip_rt_max_size / 2 */
unsigned long ip_rt_chain_max = 8;		/* 2.4's ip_rt_gc_elasticity */

DEFINE_PER_CPU(struct rt_cache_stat, rt_cache_stat);

static const char *const rt_mode_names[] = {
	[RT_CACHE_RCU] = "rcu", [RT_CACHE_RWLOCK] = "rwlock", [RT_CACHE_OFF] = "off",
};

const char *rt_cache_mode_name(enum rt_cache_mode mode)
{
	return mode <= RT_CACHE_OFF ? rt_mode_names[mode] : "?";
}

static int set_rtcache(const char *v)
{
	for (int m = RT_CACHE_RCU; v && m <= RT_CACHE_OFF; m++)
		if (!strcmp(v, rt_mode_names[m])) {
			rt_mode = m;
			return 0;
		}
	printk("rtcache=%s: not a mode; the choices are rcu, rwlock and off (keeping rcu)\n",
	       v ? v : "");
	return -EINVAL;
}
CMDLINE_PARAM("rtcache", set_rtcache,
	      "rtcache=rcu|rwlock|off: the route cache's design (default rcu; seed 000 2.4)");

CMDLINE_ULONG_TAGGED("rtcache.max_size", max_size, ip_rt_max_size, 16, 65536,
		     "rtcache.max_size=N: most route cache entries (default 4096, 16..65536)");
CMDLINE_ULONG_TAGGED("rtcache.chain_max", chain_max, ip_rt_chain_max, 2, 64,
		     "rtcache.chain_max=N: most entries in one hash chain (default 8, 2..64)");

/* "rtcache.secret=<32 hex digits>": for tests that play an attacker who knows it. */
static int set_rtcache_secret(const char *v)
{
	u64 k[2] = { 0, 0 };

	if (!v || strlen(v) != 32)
		return -EINVAL;
	for (int i = 0; i < 32; i++) {
		char c = v[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;

		if (d < 0)
			return -EINVAL;
		k[i / 16] = k[i / 16] << 4 | d;
	}
	rt_hash_secret.key[0] = k[0];
	rt_hash_secret.key[1] = k[1];
	rt_secret_fixed = true;
	return 0;
}
CMDLINE_PARAM("rtcache.secret", set_rtcache_secret,
	      "rtcache.secret=<32 hex digits>: fix the route cache's hash key (tests only)");

/* ---- The hash */

unsigned int rt_hash_code(u32 daddr, u32 saddr, int iif, u8 tos)
{
	return siphash_2u64((u64)daddr << 32 | saddr, (u64)(u32)iif << 8 | tos,
			    &rt_hash_secret) & rt_hash_mask;
}

static bool rdrand64(u64 *v)
{
	u32 a, b, c, d;
	u8 ok = 0;

	cpuid(1, 0, &a, &b, &c, &d);
	if (!(c & (1U << 30)))
		return false;			/* no RDRAND on this CPU */
	for (int tries = 0; tries < 10 && !ok; tries++)
		__asm__ __volatile__("rdrand %0; setc %1" : "=r"(*v), "=qm"(ok));
	return ok;
}

/* The secret: RDRAND where the CPU has it, else the TSC (weak, and said so). */
static const char *rt_secret_init(void)
{
	u64 r0, r1;

	if (rt_secret_fixed)
		return "fixed by rtcache.secret=";
	if (rdrand64(&r0) && rdrand64(&r1)) {
		rt_hash_secret.key[0] = r0;
		rt_hash_secret.key[1] = r1;
		return "rdrand";
	}
	r0 = rdtsc();
	r1 = siphash_2u64(r0, (u64)(unsigned long)&r0, &rt_hash_secret);
	rt_hash_secret.key[0] = r0 * 0x9e3779b97f4a7c15ULL;
	rt_hash_secret.key[1] = r1 ^ rdtsc();
	return "the TSC (no RDRAND: guessable)";
}

/* ---- Locks for writers */

spinlock_t *rt_hash_lock_addr(unsigned int hash)
{
	return &rt_hash_locks[hash & (RT_HASH_LOCK_SZ - 1)];
}

void rt_bucket_lock(unsigned int hash, enum rt_cache_mode mode)
{
	if (mode == RT_CACHE_RWLOCK)
		write_lock(&rt_hash_table[hash].lock);
	else {
		spin_lock(rt_hash_lock_addr(hash));
		__lock_handoff(rt_hash_lock_addr(hash));	/* one of two locks */
	}
}

void rt_bucket_unlock(unsigned int hash, enum rt_cache_mode mode)
{
	if (mode == RT_CACHE_RWLOCK)
		write_unlock(&rt_hash_table[hash].lock);
	else {
		__lock_takeback(rt_hash_lock_addr(hash));
		spin_unlock(rt_hash_lock_addr(hash));
	}
}

/* ---- Lookups (softirqs off, as every caller of the cache) */

static inline bool compare_keys(const struct rt_key *a, const struct rt_key *b)
{
	return a->dst == b->dst && a->src == b->src && a->iif == b->iif && a->tos == b->tos;
}

static inline void rt_search_stat(bool input)
{
	if (input)
		RT_CACHE_STAT_INC(in_hlist_search);
	else
		RT_CACHE_STAT_INC(out_hlist_search);
}

/* rtcache=rcu: no lock, no store but the reference on a hit (seed 000 2.4). */
static struct rtable *rt_cache_get_rcu(const struct rt_key *key, unsigned int hash, bool input)
{
	struct rtable *rth;

	rcu_read_lock_bh();
	hlist_for_each_entry_rcu(rth, &rt_hash_table[hash].chain, rt_next) {
		if (compare_keys(&rth->key, key) && !rt_is_expired(rth)) {
			fault_inject(rt_lookup_match, rth);
			/* The reference is taken inside the section: dst_free()
			 * cannot drop the cache's before a grace period ends,
			 * so the count cannot reach zero under us. */
			dst_use(&rth->u.dst, jiffies);
			rcu_read_unlock_bh();
			return rth;
		}
		rt_search_stat(input);
	}
	rcu_read_unlock_bh();
	return NULL;
}

/* rtcache=rwlock: Linux 2.4, the bucket's reader-writer lock. */
static struct rtable *rt_cache_get_rwlock(const struct rt_key *key, unsigned int hash, bool input)
{
	struct rt_hash_bucket *b = &rt_hash_table[hash];
	struct rtable *rth;

	read_lock_bh(&b->lock);
	hlist_for_each_entry(rth, &b->chain, rt_next) {
		if (compare_keys(&rth->key, key) && !rt_is_expired(rth)) {
			dst_use(&rth->u.dst, jiffies);
			read_unlock_bh(&b->lock);
			return rth;
		}
		rt_search_stat(input);
	}
	read_unlock_bh(&b->lock);
	return NULL;
}

struct rtable *rt_cache_lookup(const struct rt_key *key, bool input)
{
	enum rt_cache_mode mode = rt_cache_mode();
	unsigned int hash;
	struct rtable *rt;

	if (mode == RT_CACHE_OFF)
		return NULL;
	hash = rt_hash_code(key->dst, key->src, key->iif, key->tos);
	if (mode == RT_CACHE_RWLOCK)
		rt = rt_cache_get_rwlock(key, hash, input);
	else				/* RT_CACHE_RCU */
		rt = rt_cache_get_rcu(key, hash, input);
	if (rt && input)
		RT_CACHE_STAT_INC(in_hit);
	else if (rt)
		RT_CACHE_STAT_INC(out_hit);
	return rt;
}

/* ---- Insertion and removal */

static void rt_free_rcu(void *dst)
{
	atomic_dec(&rt_pending_free);
	dst_free(dst);
}

/* Figure 5: rt_free() frees through call_rcu(), after a grace period. */
static inline void rt_free(struct rtable *rt)
{
	atomic_inc(&rt_pending_free);	/* before the entry leaves rt_entries' count */
	call_rcu(&rt->u.dst.rcu_head, rt_free_rcu, &rt->u.dst);
}

void rt_remove(struct rtable *rt, enum rt_cache_mode mode)
{
	hlist_del_rcu(&rt->rt_next);	/* a reader on rt still walks on: rt->rt_next is intact */
	WRITE_ONCE(rt->u.dst.obsolete, DST_OBSOLETE_KILL);
	if (mode == RT_CACHE_RWLOCK) {
		atomic_dec(&rt_entries);
		dst_free(&rt->u.dst);	/* 2.4: we hold the write lock, no reader is on it */
	} else {
		rt_free(rt);		/* counted as waiting first: the sum never dips */
		atomic_dec(&rt_entries);
	}
}

/* An answer the cache does not keep: the caller's alone. */
static struct rtable *rt_uncached(struct rtable *rt)
{
	rt->u.dst.flags |= DST_NOCACHE;
	RT_CACHE_STAT_INC(uncached);
	return rt;
}

/*
 * One more entry, if that stays within ip_rt_max_size: the count never
 * passes it. Nor may the entries hashed plus those removed and waiting
 * for their grace period pass RT_ALIVE_FACTOR times it: a removal moves
 * an entry from one count to the other, so only an insertion can raise
 * the sum, and with slow grace periods (a long reader, X-rcu) a flood of
 * misses is answered uncached (freed at its last release, no grace
 * period) instead of piling evictions up without bound. The two counts
 * are read apart, so CPUs racing here may pass the sum by one each.
 */
static bool rt_alive_full(int entries)
{
	return (unsigned long)(entries + atomic_read(&rt_pending_free)) >=
	       RT_ALIVE_FACTOR * ip_rt_max_size;
}

static bool rt_take_slot(void)
{
	int v = atomic_read(&rt_entries), old;

	while ((unsigned long)v < ip_rt_max_size && !rt_alive_full(v)) {
		old = atomic_cmpxchg(&rt_entries, v, v + 1);
		if (old == v)
			return true;
		v = old;
	}
	return false;
}

/* A slot, after a GC if the cache is full; false: none. */
static bool rt_reserve_slot(enum rt_cache_mode mode)
{
	/* A GC moves entries to the grace-period wait: no help if that is full. */
	return rt_take_slot() || (!rt_alive_full(atomic_read(&rt_entries)) &&
				  rt_garbage_collect(mode, true) == 0 && rt_take_slot());
}

/* Older is worse: the entry unused longest is the one to give up. */
static inline unsigned long rt_age(const struct rtable *rt, unsigned long now)
{
	return now - READ_ONCE(rt->u.dst.lastuse);
}

struct rtable *rt_intern_hash(struct rtable *rt)
{
	enum rt_cache_mode mode = rt_cache_mode();
	struct rtable *rth, *cand = NULL;
	unsigned long now = jiffies;
	unsigned int chain_length = 0, stale = 0, hash;
	struct hlist_node *n;
	bool slot;

	if (mode == RT_CACHE_OFF)
		return rt_uncached(rt);
	slot = rt_reserve_slot(mode);
	hash = rt_hash_code(rt->key.dst, rt->key.src, rt->key.iif, rt->key.tos);
	rt_bucket_lock(hash, mode);
	hlist_for_each_entry_safe(rth, n, &rt_hash_table[hash].chain, rt_next) {
		if (rt_is_expired(rth)) {
			rt_remove(rth, mode);	/* stale: out while we are here */
			stale++;
			continue;
		}
		if (compare_keys(&rth->key, &rt->key)) {
			/* Another CPU put the same answer first: use it. */
			dst_use(&rth->u.dst, now);
			rt_bucket_unlock(hash, mode);
			if (slot)
				atomic_dec(&rt_entries);
			dst_release(&rt->u.dst);	/* never published: freed now */
			return rth;
		}
		/* Held only by the cache: a candidate to give up for rt. */
		if (atomic_read(&rth->u.dst.__refcnt) == 1 &&
		    (!cand || rt_age(rth, now) > rt_age(cand, now)))
			cand = rth;
		chain_length++;
	}
	/* No room in the chain, or none in a full cache: the oldest unused entry makes room. */
	if (chain_length >= ip_rt_chain_max || (!slot && !stale)) {
		if (!cand)
			goto uncached;		/* every entry of the chain is in use */
		if (!slot && rt_alive_full(atomic_read(&rt_entries)))
			goto uncached;		/* evicting would not let us in: keep cand */
		rt_remove(cand, mode);
		RT_CACHE_STAT_INC(chain_evictions);
	}
	if (!slot && !rt_take_slot())
		goto uncached;			/* another CPU took the room we made */
	dst_hold(&rt->u.dst);			/* the cache's reference */
	hlist_add_head_rcu(&rt->rt_next, &rt_hash_table[hash].chain);	/* rt complete first */
	rt_bucket_unlock(hash, mode);
	return rt;

uncached:
	rt_bucket_unlock(hash, mode);
	if (slot)
		atomic_dec(&rt_entries);
	else
		RT_CACHE_STAT_INC(gc_dst_overflow);
	return rt_uncached(rt);
}

/* ---- Switching modes while packets flow */

/*
 * Lookups, insertions, GC and dumps all sample the mode once with
 * softirqs off and keep softirqs off until they are done with the table.
 * With softirqs off a CPU passes through no quiescent state, so such a
 * section is an RCU read-side section (rcu_read_lock_bh() is
 * local_bh_disable()) whatever mode it read. So: turn the cache off (new
 * sections leave the table alone), wait a grace period (the sections
 * that read the old mode are over: no old-mode reader or writer is left
 * on the table), empty it, and only then let the new mode in. Readers of
 * two different modes are never on the table at once.
 */
int rt_cache_set_mode(enum rt_cache_mode mode)
{
	if (mode > RT_CACHE_OFF)
		return -EINVAL;
	mutex_lock(&rt_mode_mutex);
	if (mode != READ_ONCE(rt_mode)) {
		WRITE_ONCE(rt_mode, RT_CACHE_OFF);
		synchronize_rcu();		/* every section that saw the old mode has ended */
		rt_flush_all(RT_CACHE_RCU);	/* only we are on the table: free as rcu does */
		WRITE_ONCE(rt_mode, mode);	/* the table is empty and nobody is on it */
		rt_mode_switches++;
	}
	mutex_unlock(&rt_mode_mutex);
	return 0;
}

void rt_cache_init(void)
{
	const char *from;

	for (unsigned int i = 0; i < RT_HASH_SIZE; i++) {
		INIT_HLIST_HEAD(&rt_hash_table[i].chain);
		rwlock_init(&rt_hash_table[i].lock);
	}
	for (int i = 0; i < RT_HASH_LOCK_SZ; i++)
		spin_lock_init(&rt_hash_locks[i], "rt_hash_lock");
	ip_rt_gc_thresh = ip_rt_max_size / 2;
	from = rt_secret_init();
	printk("route cache: rtcache=%s, %u buckets, at most %lu entries (%lu a chain), "
	       "hash key from %s\n", rt_cache_mode_name(rt_mode), RT_HASH_SIZE,
	       ip_rt_max_size, ip_rt_chain_max, from);
}
