/*
 * Packet buffers: struct sk_buff, after Linux's (kernel/net/skbuff.c).
 *
 * One buffer holds one packet, in one kmalloc'd area, so that its bytes
 * are physically contiguous and a NIC can DMA them:
 *
 *	head           data                 tail            end
 *	|  headroom    |  packet: len bytes  |  tailroom     |
 *
 * Going down the stack each layer skb_push()es its header in front of
 * data; going up each skb_pull()s its own header off. mac_off,
 * network_off and transport_off remember where the headers began (offsets
 * from head) once a layer has found them.
 *
 * Queues (struct sk_buff_head) link buffers through next/prev and keep a
 * count; the locked operations take the queue's lock with interrupts
 * off, so any context may use them.
 */
#ifndef _NET_SKBUFF_H
#define _NET_SKBUFF_H

#include <types.h>
#include <spinlock.h>
#include <panic.h>

struct net_device;
struct dst_entry;

#define PACKET_HOST		0	/* to us */
#define PACKET_BROADCAST	1
#define PACKET_MULTICAST	2
#define PACKET_OTHERHOST	3	/* to someone else (promiscuous) */

/* Room for Ethernet, IPv4 and UDP headers in front of a payload. */
#define MAX_HEADER		64

struct sk_buff {
	struct sk_buff *next, *prev;	/* in a sk_buff_head */
	struct net_device *dev;		/* received on, or to be sent by */
	struct dst_entry *dst;		/* its route, with a reference (net/dst.h); or NULL */
	unsigned char *head, *data, *tail, *end;
	unsigned int len;		/* tail - data */
	unsigned int truesize;		/* memory it costs: charged to socket buffers */
	u16 protocol;			/* EtherType, host order (eth_type_trans) */
	u16 mac_off, network_off, transport_off;
	u8 pkt_type;			/* PACKET_* */
	u8 ttl;				/* input: the IP header's, for raw readers */
	u32 saddr, daddr;		/* input: IP addresses (network order) */
	u16 sport;			/* input: UDP source port (network order) */
};

struct sk_buff_head {
	struct sk_buff *next, *prev;	/* a ring through the head itself */
	u32 qlen;
	spinlock_t lock;
};

struct sk_buff *alloc_skb(unsigned int size);
/* Frees the buffer and drops its route's reference. */
void kfree_skb(struct sk_buff *skb);
/* Forget the route (a looped-back packet is routed again on input). */
void skb_dst_drop(struct sk_buff *skb);
/* A private copy of skb (data and the fields above, but no route), or NULL. */
struct sk_buff *skb_copy(const struct sk_buff *skb);

/* Live counts for netstat and the leak checks. */
long skbs_alive(void);
void skb_get_counts(u64 *alive, u64 *allocs, u64 *frees);

static inline unsigned int skb_headroom(const struct sk_buff *skb)
{
	return skb->data - skb->head;
}

static inline unsigned int skb_tailroom(const struct sk_buff *skb)
{
	return skb->end - skb->tail;
}

static inline void skb_reserve(struct sk_buff *skb, unsigned int n)
{
	BUG_ON(skb->len || n > skb_tailroom(skb));
	skb->data += n;
	skb->tail += n;
}

/* Grow the packet at the end: where the new bytes go. */
static inline void *skb_put(struct sk_buff *skb, unsigned int n)
{
	unsigned char *old = skb->tail;

	BUG_ON(n > skb_tailroom(skb));
	skb->tail += n;
	skb->len += n;
	return old;
}

/* Grow it at the front (a header going down the stack). */
static inline void *skb_push(struct sk_buff *skb, unsigned int n)
{
	BUG_ON(n > skb_headroom(skb));
	skb->data -= n;
	skb->len += n;
	return skb->data;
}

/* Take n bytes off the front (a header going up); NULL if it has fewer. */
static inline void *skb_pull(struct sk_buff *skb, unsigned int n)
{
	if (n > skb->len)
		return NULL;
	skb->data += n;
	skb->len -= n;
	return skb->data;
}

/* Cut it to len bytes (Ethernet padding after an IP packet). */
static inline void skb_trim(struct sk_buff *skb, unsigned int len)
{
	if (len < skb->len) {
		skb->len = len;
		skb->tail = skb->data + len;
	}
}

static inline void skb_set_network_header(struct sk_buff *skb)
{
	skb->network_off = skb->data - skb->head;
}

static inline void skb_set_transport_header(struct sk_buff *skb)
{
	skb->transport_off = skb->data - skb->head;
}

static inline unsigned char *skb_network_header(const struct sk_buff *skb)
{
	return skb->head + skb->network_off;
}

static inline unsigned char *skb_transport_header(const struct sk_buff *skb)
{
	return skb->head + skb->transport_off;
}

static inline unsigned char *skb_mac_header(const struct sk_buff *skb)
{
	return skb->head + skb->mac_off;
}

/* ---- Queues */

void skb_queue_head_init(struct sk_buff_head *q, const char *lock_name);

static inline bool skb_queue_empty(const struct sk_buff_head *q)
{
	return READ_ONCE(q->next) == (const struct sk_buff *)q;
}

static inline u32 skb_queue_len(const struct sk_buff_head *q)
{
	return READ_ONCE(q->qlen);
}

/* Unlocked: the caller holds q->lock (or owns q). */
void __skb_queue_tail(struct sk_buff_head *q, struct sk_buff *skb);
void __skb_queue_head(struct sk_buff_head *q, struct sk_buff *skb);
struct sk_buff *__skb_dequeue(struct sk_buff_head *q);
static inline struct sk_buff *skb_peek(const struct sk_buff_head *q)
{
	struct sk_buff *skb = q->next;

	return skb == (const struct sk_buff *)q ? NULL : skb;
}

/* Locked (interrupts off). */
void skb_queue_tail(struct sk_buff_head *q, struct sk_buff *skb);
struct sk_buff *skb_dequeue(struct sk_buff_head *q);
/* Free everything queued. */
void skb_queue_purge(struct sk_buff_head *q);

#endif
