/*
 * The IPv4 routing table (FIB: forwarding information base), after Linux
 * 2.4's fib_hash.c: one zone per prefix length, each a small hash table
 * of the routes of that length keyed by their prefix. A lookup tries the
 * zones that have routes from /32 down to /0 and stops at the first that
 * matches: the longest prefix wins; among routes of one prefix, the
 * lowest metric whose interface is up.
 *
 * Readers (fib_lookup, on every route cache miss, and on every packet
 * with rtcache=off) take no lock: they walk the zones' chains under
 * rcu_read_lock_bh() and copy what they found into a struct fib_result,
 * so nothing they return can be freed under them. Writers (route add/del,
 * interface changes, the default gateway) hold fib_lock, publish with
 * hlist_add_head_rcu() and free with kfree_rcu(); then they flush the
 * route cache (rt_cache_flush(): a new generation, as Linux 2.6 did), so
 * that no cached answer outlives the table it came from.
 *
 * Where a route comes from (QS_RTPROT_*): an interface's own subnet
 * (kernel, kept in step with the interfaces by fib_sync_connected()), the
 * default gateway (boot: gw= and ifconfig gw), or route add (static).
 *
 * Decisions:
 *   1. A route by gateway without a device (the default gateway, and
 *      `route add` without `dev`) follows its gateway: it leaves by the
 *      interface whose subnet holds the gateway at lookup time, so setting
 *      the gateway before the interface's address works, as it did before
 *      there was a table. `route add` still refuses a gateway that is on
 *      no subnet now (ENETUNREACH), as Linux does.
 *   2. The zones' hash tables have a fixed size (FZ_HSIZE); Linux 2.4 grew
 *      them. The table holds at most QS_ROUTE_MAX routes (ENOSPC), so a
 *      chain stays short. The hash need not be keyed: only root adds routes.
 */
#include <net/route.h>
#include <rculist.h>
#include <kmalloc.h>
#include <string.h>
#include <errno.h>

#define FZ_HSIZE	64

struct fib_node {
	struct hlist_node fn_hash;	/* in its zone's chain */
	u32 fn_key;			/* the prefix, network order */
	u32 fn_gateway;			/* 0: on link */
	u32 fn_metric;
	struct net_device *fn_dev;	/* NULL: the gateway's interface, found at lookup */
	u8 fn_protocol;			/* QS_RTPROT_* */
	struct rcu_head rcu;
};

struct fn_zone {
	struct hlist_head fz_hash[FZ_HSIZE];
	u32 fz_mask;			/* network order */
	int fz_nent;
};

static struct fn_zone fn_zones[33];	/* fn_zones[n]: the /n routes */
static u64 fn_zone_bits;		/* bit n: zone n has routes; lookups read it whole */
static int fib_nroutes;
static DEFINE_SPINLOCK(fib_lock);

static u32 len_to_mask(int len)
{
	return htonl(len ? ~0u << (32 - len) : 0);
}

/* A contiguous netmask's prefix length (no popcount: -mgeneral-regs-only has no libgcc). */
static int mask_to_len(u32 mask)
{
	u32 m = ntohl(mask);

	return m ? 32 - __builtin_ctz(m) : 0;
}

/* 2.4's fn_hash(): the prefix's significant bits, folded. */
static unsigned int fn_hash(u32 key, int len)
{
	u32 h = len ? ntohl(key) >> (32 - len) : 0;

	h ^= h >> 20;
	h ^= h >> 10;
	h ^= h >> 5;
	return h & (FZ_HSIZE - 1);
}

/* The running, non-loopback interface whose subnet holds addr. */
static struct net_device *fib_onlink_dev(u32 addr)
{
	for (int i = 0; i < dev_count(); i++) {
		struct net_device *dev = dev_get_nth(i);
		u32 a, m;

		if (!netif_running(dev) || (dev->flags & IFF_LOOPBACK))
			continue;
		dev_ifaddr(dev, &a, &m);
		if (a && ((addr ^ a) & m) == 0)
			return dev;
	}
	return NULL;
}

/* The interface f sends by now, or NULL if it is unusable (down, or no subnet holds its gateway). */
static struct net_device *fn_dev(const struct fib_node *f)
{
	struct net_device *dev = f->fn_dev ? f->fn_dev : fib_onlink_dev(f->fn_gateway);

	return dev && netif_running(dev) ? dev : NULL;
}

int fib_lookup(u32 daddr, struct fib_result *res)
{
	int err = -ENETUNREACH;
	u64 bits;

	rcu_read_lock_bh();
	bits = READ_ONCE(fn_zone_bits);
	for (int len = 32; len >= 0 && err; len--) {
		struct fn_zone *fz = &fn_zones[len];
		u32 key = daddr & fz->fz_mask;
		struct net_device *dev, *best_dev = NULL;
		struct fib_node *f, *best = NULL;

		if (!(bits & (1ULL << len)))
			continue;
		hlist_for_each_entry_rcu(f, &fz->fz_hash[fn_hash(key, len)], fn_hash) {
			if (f->fn_key != key || (best && f->fn_metric >= best->fn_metric))
				continue;
			dev = fn_dev(f);
			if (dev) {
				best = f;
				best_dev = dev;
			}
		}
		if (!best)
			continue;
		res->dev = best_dev;
		res->gateway = best->fn_gateway;
		res->prefix = key;
		res->mask = fz->fz_mask;
		res->prefixlen = len;
		res->metric = best->fn_metric;
		res->protocol = best->fn_protocol;
		err = 0;
	}
	rcu_read_unlock_bh();
	return err;
}

/* ---- Updates (fib_lock held) */

static void fib_insert(struct fib_node *f, int len)
{
	struct fn_zone *fz = &fn_zones[len];

	hlist_add_head_rcu(&f->fn_hash, &fz->fz_hash[fn_hash(f->fn_key, len)]);
	fz->fz_nent++;
	fib_nroutes++;
	WRITE_ONCE(fn_zone_bits, fn_zone_bits | 1ULL << len);
}

static void fib_remove(struct fib_node *f, int len)
{
	struct fn_zone *fz = &fn_zones[len];

	hlist_del_rcu(&f->fn_hash);
	fib_nroutes--;
	if (--fz->fz_nent == 0)
		WRITE_ONCE(fn_zone_bits, fn_zone_bits & ~(1ULL << len));
	kfree_rcu(f, rcu);		/* a reader may stand on it until a grace period ends */
}

static struct fib_node *fib_find(u32 key, int len, u32 metric)
{
	struct fib_node *f;

	hlist_for_each_entry(f, &fn_zones[len].fz_hash[fn_hash(key, len)], fn_hash)
		if (f->fn_key == key && f->fn_metric == metric)
			return f;
	return NULL;
}

static struct fib_node *fib_node_new(u32 key, u32 gw, u32 metric, struct net_device *dev, u8 proto)
{
	struct fib_node *f = kzalloc(sizeof(*f));

	if (f) {
		f->fn_key = key;
		f->fn_gateway = gw;
		f->fn_metric = metric;
		f->fn_dev = dev;
		f->fn_protocol = proto;
	}
	return f;
}

static bool addr_is_unicast(u32 a)
{
	return a && !ipv4_is_lbcast(a) && !ipv4_is_multicast(a) && !ipv4_is_zeronet(a) &&
	       !ipv4_is_loopback(a);
}

/* Checks that need no lock; *devp: the named interface, or NULL. */
static int fib_check(const struct qs_rtentry *r, struct net_device **devp)
{
	char name[QS_RTNAMSIZ];
	u32 mask;

	if (r->prefixlen > 32)
		return -EINVAL;
	mask = len_to_mask(r->prefixlen);
	if (r->dst & ~mask)
		return -EINVAL;			/* bits past the prefix length */
	if (r->prefixlen && (ipv4_is_multicast(r->dst) || ipv4_is_loopback(r->dst) ||
			     ipv4_is_lbcast(r->dst)))
		return -EINVAL;			/* not routed: multicast, lo's, broadcast */
	if (r->gateway && (!addr_is_unicast(r->gateway) || ip_dev_find(r->gateway)))
		return -EINVAL;
	*devp = NULL;
	memcpy(name, r->dev, sizeof(name));
	name[sizeof(name) - 1] = 0;
	if (name[0]) {
		*devp = dev_get_by_name(name);
		if (!*devp)
			return -ENODEV;
		if ((*devp)->flags & IFF_LOOPBACK)
			return -EINVAL;
	}
	if (!r->gateway && !*devp)
		return -EINVAL;			/* neither a gateway nor an interface */
	if (r->gateway) {
		struct net_device *on = fib_onlink_dev(r->gateway);

		if (!on || (*devp && on != *devp))
			return -ENETUNREACH;	/* the gateway is on no subnet (of dev) */
	}
	return 0;
}

int fib_add(const struct qs_rtentry *r, u8 protocol)
{
	struct net_device *dev;
	struct fib_node *f;
	int err = fib_check(r, &dev);

	if (err)
		return err;
	f = fib_node_new(r->dst, r->gateway, r->metric, dev, protocol);
	if (!f)
		return -ENOMEM;
	spin_lock(&fib_lock);
	if (fib_nroutes >= QS_ROUTE_MAX)
		err = -ENOSPC;
	else if (fib_find(r->dst, r->prefixlen, r->metric))
		err = -EEXIST;
	else
		fib_insert(f, r->prefixlen);
	spin_unlock(&fib_lock);
	if (err) {
		kfree(f);
		return err;
	}
	rt_cache_flush();
	return 0;
}

/* Does f match what r names? Unset fields (0, "") match anything. */
static bool fib_matches(const struct fib_node *f, const struct qs_rtentry *r)
{
	if (f->fn_key != r->dst)
		return false;
	if (r->gateway && f->fn_gateway != r->gateway)
		return false;
	if (r->metric && f->fn_metric != r->metric)
		return false;
	if (r->dev[0] && (!f->fn_dev || strncmp(f->fn_dev->name, r->dev, QS_RTNAMSIZ)))
		return false;
	return true;
}

int fib_del(const struct qs_rtentry *r)
{
	struct hlist_node *n;
	struct fib_node *f;
	int err = -ESRCH;

	if (r->prefixlen > 32 || (r->dst & ~len_to_mask(r->prefixlen)))
		return -EINVAL;
	spin_lock(&fib_lock);
	hlist_for_each_entry_safe(f, n, &fn_zones[r->prefixlen].fz_hash[fn_hash(r->dst, r->prefixlen)],
				  fn_hash) {
		if (fib_matches(f, r)) {
			fib_remove(f, r->prefixlen);
			err = 0;
			break;
		}
	}
	spin_unlock(&fib_lock);
	if (!err)
		rt_cache_flush();
	return err;
}

/* A kernel route for dev's subnet, as dev is now? */
static bool connected_valid(const struct fib_node *f, int len)
{
	struct net_device *dev = f->fn_dev;
	u32 a, m;

	if (!netif_running(dev))
		return false;
	dev_ifaddr(dev, &a, &m);
	return a && (a & m) == f->fn_key && mask_to_len(m) == len;
}

static bool connected_exists(struct net_device *dev, u32 key, int len)
{
	struct fib_node *f;

	hlist_for_each_entry(f, &fn_zones[len].fz_hash[fn_hash(key, len)], fn_hash)
		if (f->fn_protocol == QS_RTPROT_KERNEL && f->fn_dev == dev && f->fn_key == key)
			return true;
	return false;
}

void fib_sync_connected(void)
{
	struct hlist_node *n;
	struct fib_node *f;

	spin_lock(&fib_lock);
	for (int len = 0; len <= 32; len++)
		for (int b = 0; b < FZ_HSIZE; b++)
			hlist_for_each_entry_safe(f, n, &fn_zones[len].fz_hash[b], fn_hash)
				if (f->fn_protocol == QS_RTPROT_KERNEL && !connected_valid(f, len))
					fib_remove(f, len);
	for (int i = 0; i < dev_count(); i++) {
		struct net_device *dev = dev_get_nth(i);
		u32 a, m;
		int len;

		dev_ifaddr(dev, &a, &m);
		if (!a || !netif_running(dev) || (dev->flags & IFF_LOOPBACK))
			continue;
		len = mask_to_len(m);
		if (connected_exists(dev, a & m, len) || fib_nroutes >= QS_ROUTE_MAX)
			continue;
		f = fib_node_new(a & m, 0, 0, dev, QS_RTPROT_KERNEL);
		if (f)			/* kmalloc never sleeps: fine under the lock */
			fib_insert(f, len);
	}
	spin_unlock(&fib_lock);
	rt_cache_flush();
}

int fib_set_default_gateway(u32 gw)
{
	struct hlist_node *n;
	struct fib_node *f, *nf = gw ? fib_node_new(0, gw, 0, NULL, QS_RTPROT_BOOT) : NULL;
	int err = 0;

	if (gw && !nf)
		return -ENOMEM;
	spin_lock(&fib_lock);
	hlist_for_each_entry_safe(f, n, &fn_zones[0].fz_hash[0], fn_hash)
		if (f->fn_protocol == QS_RTPROT_BOOT ||
		    (nf && f->fn_metric == 0))	/* the new one replaces a metric-0 default */
			fib_remove(f, 0);
	/* The table's limit holds for this route too (a replaced one made room). */
	if (nf && fib_nroutes >= QS_ROUTE_MAX)
		err = -ENOSPC;
	else if (nf)
		fib_insert(nf, 0);
	spin_unlock(&fib_lock);
	if (err)
		kfree(nf);
	rt_cache_flush();
	return err;
}

u32 fib_default_gateway(void)
{
	struct fib_node *f;
	u32 gw = 0;

	rcu_read_lock_bh();
	hlist_for_each_entry_rcu(f, &fn_zones[0].fz_hash[0], fn_hash)
		if (f->fn_gateway && (!gw || f->fn_protocol == QS_RTPROT_BOOT))
			gw = f->fn_gateway;
	rcu_read_unlock_bh();
	return gw;
}

int fib_count(void)
{
	return READ_ONCE(fib_nroutes);
}

int fib_dump(struct qs_rtentry *out, int max)
{
	struct fib_node *f;
	int n = 0;

	rcu_read_lock_bh();
	for (int len = 32; len >= 0; len--)
		for (int b = 0; b < FZ_HSIZE; b++)
			hlist_for_each_entry_rcu(f, &fn_zones[len].fz_hash[b], fn_hash) {
				struct qs_rtentry *r = &out[n];

				if (n == max)
					goto out;
				memset(r, 0, sizeof(*r));
				r->dst = f->fn_key;
				r->gateway = f->fn_gateway;
				r->metric = f->fn_metric;
				r->prefixlen = len;
				r->protocol = f->fn_protocol;
				r->flags = (fn_dev(f) ? QS_RTF_UP : 0) | (f->fn_gateway ? QS_RTF_GATEWAY : 0);
				if (f->fn_dev)
					strlcpy(r->dev, f->fn_dev->name, sizeof(r->dev));
				n++;
			}
out:
	rcu_read_unlock_bh();
	return n;
}

void fib_init(void)
{
	for (int len = 0; len <= 32; len++)
		fn_zones[len].fz_mask = len_to_mask(len);
}
