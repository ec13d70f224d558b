/*
 * The neighbour table: IPv4 next hop -> Ethernet address, per interface,
 * filled by ARP (arp.c), with timeouts.
 *
 * An entry is INCOMPLETE from the first packet to an unknown next hop
 * until a reply arrives: up to NEIGH_QUEUE_LEN packets wait on it (older
 * ones are dropped for newer), a request goes out every second, and
 * after NEIGH_MAX_PROBES unanswered requests the entry and its packets
 * are dropped (arp_failed). A reply makes it REACHABLE for
 * net.arp_timeout milliseconds (default 60 s) after the last
 * confirmation; then it expires, and the next packet asks again. (Linux
 * keeps a STALE state and probes in the background; expiring outright is
 * simpler and costs one round trip a minute.)
 *
 * One spinlock (interrupts off: the timer and NET_RX take it from
 * softirqs) covers the table. Nothing is sent and no buffer freed while
 * holding it: sending can run NET_RX on this CPU (loopback, or
 * local_bh_enable), which may come back here.
 */
#include <net/arp.h>
#include <net/eth.h>
#include <net/ip.h>
#include <net/netstat.h>
#include <kmalloc.h>
#include <timer.h>
#include <time.h>
#include <string.h>
#include <cmdline.h>
#include <errno.h>

#define NEIGH_HASHSZ		32
#define NEIGH_MAX		256	/* entries; more are refused (neigh_table_full) */
#define NEIGH_QUEUE_LEN		3	/* packets waiting on an INCOMPLETE entry */
#define NEIGH_MAX_PROBES	3
#define NEIGH_PROBE_MS		1000
#define NEIGH_TIMER_MS		250

unsigned long arp_timeout_ms = 60000;
CMDLINE_ULONG("net.arp_timeout", arp_timeout_ms, 100, 3600000,
	      "net.arp_timeout=<ms>: how long a neighbour entry lives after its last confirmation (60000)");

struct neighbour {
	struct list_head list;
	struct net_device *dev;
	u32 addr;
	u8 ha[ETH_ALEN];
	u8 nud_state;			/* QS_NUD_INCOMPLETE or QS_NUD_REACHABLE */
	u8 probes;			/* requests sent while INCOMPLETE */
	unsigned long updated;		/* jiffies: confirmed, or last request */
	struct sk_buff_head arp_queue;	/* under neigh_lock, not its own lock */
};

static struct list_head neigh_hash[NEIGH_HASHSZ];
static DEFINE_SPINLOCK(neigh_lock);
static long neigh_entries;
static struct timer_list neigh_timer;

static unsigned int neigh_hashfn(u32 addr)
{
	return (ntohl(addr) * 2654435761u) >> 27;	/* 5 bits: NEIGH_HASHSZ */
}

static struct neighbour *neigh_lookup(struct net_device *dev, u32 addr)
{
	struct neighbour *n;

	list_for_each_entry(n, &neigh_hash[neigh_hashfn(addr)], list)
		if (n->addr == addr && n->dev == dev)
			return n;
	return NULL;
}

static struct neighbour *neigh_create(struct net_device *dev, u32 addr)
{
	struct neighbour *n;

	if (neigh_entries >= NEIGH_MAX) {
		NET_INC(neigh_table_full);
		return NULL;
	}
	n = kzalloc(sizeof(*n));
	if (!n)
		return NULL;
	n->dev = dev;
	n->addr = addr;
	n->nud_state = QS_NUD_INCOMPLETE;
	skb_queue_head_init(&n->arp_queue, "arp_queue");
	list_add(&n->list, &neigh_hash[neigh_hashfn(addr)]);
	neigh_entries++;
	NET_INC(neigh_created);
	return n;
}

/* Unlink n; its waiting packets move to `dead` for freeing after the lock. */
static void neigh_unlink(struct neighbour *n, struct sk_buff_head *dead)
{
	struct sk_buff *skb;

	list_del(&n->list);
	neigh_entries--;
	while ((skb = __skb_dequeue(&n->arp_queue)))
		__skb_queue_tail(dead, skb);
}

static void free_all(struct sk_buff_head *q)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(q)))
		kfree_skb(skb);
}

/* Send the packets that waited for ha. */
static void send_queued(struct sk_buff_head *q, struct net_device *dev, const u8 *ha)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(q))) {
		eth_header(skb, dev, ETH_P_IP, ha);
		dev_queue_xmit(skb);
	}
}

int neigh_output(struct sk_buff *skb, struct net_device *dev, u32 nexthop)
{
	struct sk_buff *old = NULL;
	struct neighbour *n;
	unsigned long flags;
	u32 src, mask;
	u8 ha[ETH_ALEN];

	flags = spin_lock_irqsave(&neigh_lock);
	n = neigh_lookup(dev, nexthop);
	if (n && n->nud_state == QS_NUD_REACHABLE) {
		memcpy(ha, n->ha, ETH_ALEN);
		spin_unlock_irqrestore(&neigh_lock, flags);
		eth_header(skb, dev, ETH_P_IP, ha);
		return dev_queue_xmit(skb);
	}
	if (n) {			/* INCOMPLETE: wait with the others */
		if (skb_queue_len(&n->arp_queue) >= NEIGH_QUEUE_LEN)
			old = __skb_dequeue(&n->arp_queue);
		__skb_queue_tail(&n->arp_queue, skb);
		spin_unlock_irqrestore(&neigh_lock, flags);
		if (old) {
			NET_INC(arp_queue_drops);
			kfree_skb(old);
		}
		return 0;
	}
	n = neigh_create(dev, nexthop);
	if (!n) {
		spin_unlock_irqrestore(&neigh_lock, flags);
		NET_INC(arp_queue_drops);
		kfree_skb(skb);
		return -ENOBUFS;
	}
	__skb_queue_tail(&n->arp_queue, skb);
	n->probes = 1;
	n->updated = jiffies;
	spin_unlock_irqrestore(&neigh_lock, flags);
	dev_ifaddr(dev, &src, &mask);
	arp_send(ARPOP_REQUEST, dev, nexthop, NULL, src);
	return 0;
}

void neigh_update(struct net_device *dev, u32 ip, const u8 *mac, bool create)
{
	struct sk_buff_head waiting;
	struct neighbour *n;
	unsigned long flags;

	skb_queue_head_init(&waiting, "neigh_waiting");
	flags = spin_lock_irqsave(&neigh_lock);
	n = neigh_lookup(dev, ip);
	if (!n && create)
		n = neigh_create(dev, ip);
	if (n) {
		memcpy(n->ha, mac, ETH_ALEN);
		n->nud_state = QS_NUD_REACHABLE;
		n->updated = jiffies;
		n->probes = 0;
		while (!skb_queue_empty(&n->arp_queue))
			__skb_queue_tail(&waiting, __skb_dequeue(&n->arp_queue));
	}
	spin_unlock_irqrestore(&neigh_lock, flags);
	send_queued(&waiting, dev, mac);
}

bool neigh_known(struct net_device *dev, u32 ip)
{
	unsigned long flags = spin_lock_irqsave(&neigh_lock);
	bool known = neigh_lookup(dev, ip) != NULL;

	spin_unlock_irqrestore(&neigh_lock, flags);
	return known;
}

long neigh_count(void)
{
	return READ_ONCE(neigh_entries);
}

#define MAX_PROBES_PER_RUN	16

struct probe {
	struct net_device *dev;
	u32 addr;
};

/* Every NEIGH_TIMER_MS: probe again, give up, or expire. */
static void neigh_periodic(unsigned long data)
{
	struct probe probes[MAX_PROBES_PER_RUN];
	struct sk_buff_head dead;
	struct neighbour *n, *tmp;
	struct list_head gone;
	unsigned long flags, now = jiffies;
	int nprobes = 0;

	skb_queue_head_init(&dead, "neigh_dead");
	INIT_LIST_HEAD(&gone);
	flags = spin_lock_irqsave(&neigh_lock);
	for (int h = 0; h < NEIGH_HASHSZ; h++) {
		list_for_each_entry_safe(n, tmp, &neigh_hash[h], list) {
			if (n->nud_state == QS_NUD_REACHABLE) {
				if (time_after(now, n->updated + msecs_to_jiffies(arp_timeout_ms))) {
					neigh_unlink(n, &dead);
					list_add(&n->list, &gone);
					NET_INC(neigh_expired);
				}
				continue;
			}
			if (!time_after(now, n->updated + msecs_to_jiffies(NEIGH_PROBE_MS)))
				continue;
			if (n->probes >= NEIGH_MAX_PROBES) {
				NET_INC(arp_failed);
				NET_ADD(arp_queue_drops, skb_queue_len(&n->arp_queue));
				neigh_unlink(n, &dead);
				list_add(&n->list, &gone);
			} else if (nprobes < MAX_PROBES_PER_RUN) {
				n->probes++;
				n->updated = now;
				probes[nprobes++] = (struct probe){ n->dev, n->addr };
			}
		}
	}
	spin_unlock_irqrestore(&neigh_lock, flags);
	free_all(&dead);
	list_for_each_entry_safe(n, tmp, &gone, list)
		kfree(n);
	for (int i = 0; i < nprobes; i++) {
		u32 src, mask;

		dev_ifaddr(probes[i].dev, &src, &mask);
		arp_send(ARPOP_REQUEST, probes[i].dev, probes[i].addr, NULL, src);
	}
	mod_timer(&neigh_timer, jiffies + msecs_to_jiffies(NEIGH_TIMER_MS));
}

void neigh_flush(void)
{
	struct sk_buff_head dead;
	struct neighbour *n, *tmp;
	struct list_head gone;
	unsigned long flags;

	skb_queue_head_init(&dead, "neigh_dead");
	INIT_LIST_HEAD(&gone);
	flags = spin_lock_irqsave(&neigh_lock);
	for (int h = 0; h < NEIGH_HASHSZ; h++) {
		list_for_each_entry_safe(n, tmp, &neigh_hash[h], list) {
			neigh_unlink(n, &dead);
			list_add(&n->list, &gone);
		}
	}
	spin_unlock_irqrestore(&neigh_lock, flags);
	free_all(&dead);
	list_for_each_entry_safe(n, tmp, &gone, list)
		kfree(n);
}

int neigh_get_info(int index, struct qs_neighinfo *out)
{
	struct neighbour *n;
	unsigned long flags;
	int i = 0, err = -ENOENT;

	memset(out, 0, sizeof(*out));
	flags = spin_lock_irqsave(&neigh_lock);
	for (int h = 0; h < NEIGH_HASHSZ && err; h++) {
		list_for_each_entry(n, &neigh_hash[h], list) {
			if (i++ != index)
				continue;
			out->addr = n->addr;
			memcpy(out->mac, n->ha, ETH_ALEN);
			out->state = n->nud_state;
			out->probes = n->probes;
			strlcpy(out->dev, n->dev->name, sizeof(out->dev));
			out->age_ms = (jiffies - n->updated) * 1000 / HZ;
			out->queued = skb_queue_len(&n->arp_queue);
			err = 0;
			break;
		}
	}
	spin_unlock_irqrestore(&neigh_lock, flags);
	return err;
}

void neigh_init(void)
{
	for (int h = 0; h < NEIGH_HASHSZ; h++)
		INIT_LIST_HEAD(&neigh_hash[h]);
	setup_timer(&neigh_timer, neigh_periodic, 0);
	mod_timer(&neigh_timer, jiffies + msecs_to_jiffies(NEIGH_TIMER_MS));
}
