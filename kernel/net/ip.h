/*
 * IPv4 (kernel/net/ip_input.c, ip_output.c), its routing decision
 * (route.c) and the Internet checksum (checksum.c).
 */
#ifndef _NET_IP_H
#define _NET_IP_H

#include <types.h>
#include <net/netdevice.h>
#include <net/dst.h>
#include <arch/byteorder.h>

struct iphdr {
	u8 ihl:4, version:4;		/* little-endian bit order: ihl is the low nibble */
	u8 tos;
	u16 tot_len;
	u16 id;
	u16 frag_off;			/* flags and fragment offset */
	u8 ttl;
	u8 protocol;
	u16 check;
	u32 saddr, daddr;
} __packed;

#define IP_CE		0x8000		/* reserved flag */
#define IP_DF		0x4000
#define IP_MF		0x2000
#define IP_OFFSET	0x1fff

#define IPPROTO_ICMP	1
#define IPPROTO_UDP	17

#define IPDEFTTL	64
#define IP_MAX_PACKET	65535

/* 127.0.0.1 and friends, in network order. */
#define INADDR_LOOPBACK		htonl(0x7f000001)
static inline bool ipv4_is_loopback(u32 a)	{ return (ntohl(a) >> 24) == 127; }
static inline bool ipv4_is_multicast(u32 a)	{ return (ntohl(a) >> 28) == 0xe; }
static inline bool ipv4_is_lbcast(u32 a)	{ return a == 0xffffffffu; }
static inline bool ipv4_is_zeronet(u32 a)	{ return (ntohl(a) >> 24) == 0; }

/* "10.0.2.15" into buf (at least 16 bytes). */
const char *ip_str(u32 addr, char *buf);
/* Parse "a.b.c.d" (network order into *addr); 0 on success. */
int ip_parse(const char *s, u32 *addr);

/* ---- Routing (route.c, route_cache.c, fib.c) */

/* The TOS bits a route may depend on (RFC 1349's, as Linux's IPTOS_RT_MASK). */
#define IPTOS_RT_MASK	0x1c

/* What a route answers: seed 000 2.4's cache is keyed by all four. */
struct rt_key {
	u32 dst;			/* destination */
	u32 src;			/* input: the packet's source; output: the bound source or 0 */
	int iif;			/* input: the ifindex it arrived on; output: 0 */
	u8 tos;				/* & IPTOS_RT_MASK */
};

/*
 * A routing decision, after Linux 2.4's struct rtable. Callers get a
 * pointer with a reference (ip_route_output_key, ip_rt_put; skb->dst for
 * input) and treat it as the whole answer. Entries in the route cache
 * (route_cache.c) are shared and never change once published; an entry
 * the cache did not keep (rtcache=off, or a full cache) is the caller's
 * alone (DST_NOCACHE).
 */
struct rtable {
	union {
		struct dst_entry dst;	/* first: &rt->u.dst is rt (seed 000 Figure 5) */
	} u;
	struct hlist_node rt_next;	/* its chain in rt_hash_table */
	struct rt_key key;		/* what it answers */
	unsigned int rt_flags;		/* RTCF_* */
	unsigned int rt_genid;		/* rt_genid when it was made: older is stale */
	u32 rt_dst;			/* the destination (the packet's daddr) */
	u32 rt_src;			/* the source address to use */
	u32 rt_gateway;			/* next hop: rt_dst itself or a gateway */
	int rt_iif;			/* input routes: the arrival ifindex */
};
#define RTCF_LOCAL	0x1		/* to this host */
#define RTCF_BROADCAST	0x2		/* limited or subnet broadcast */
#define RTCF_FORWARD	0x4		/* input: to another host, forwarded */

static inline struct rtable *skb_rtable(const struct sk_buff *skb)
{
	return (struct rtable *)skb->dst;
}

/*
 * Output: the route to daddr (saddr: a source the caller is bound to, or
 * 0), with a reference in *rp that the caller drops with ip_rt_put().
 * 0 or a negative errno (-ENETUNREACH, -ENOBUFS).
 */
int ip_route_output_key(struct rtable **rp, u32 daddr, u32 saddr, u8 tos);
static inline void ip_rt_put(struct rtable *rt)
{
	if (rt)
		dst_release(&rt->u.dst);
}
/*
 * Input: the route of a packet from saddr to daddr that arrived on dev,
 * set in skb->dst (the packet's reference) when the answer is 0. Errors:
 * -EINVAL a martian source; -EHOSTUNREACH not ours and not forwarded;
 * -ENETUNREACH to forward but no route; -ENOBUFS.
 */
int ip_route_input(struct sk_buff *skb, u32 daddr, u32 saddr, u8 tos, struct net_device *dev);
/* An address, mask, gateway or interface state changed. */
void ip_route_config_changed(void);
/* The interface that has addr, or NULL. */
struct net_device *ip_dev_find(u32 addr);
u32 ip_default_gateway(void);
int ip_set_default_gateway(u32 gw);
/* net.ip_forward: route packets between interfaces (a router, not a host). */
bool ip_forwarding(void);
void ip_set_forwarding(bool on);
void ip_rt_init(void);
extern struct net_device *loopback_dev;

/* ---- Input and output */
void ip_rcv(struct sk_buff *skb);
/* skb->dst's input functions: deliver here (ip_input.c), or pass on (ip_forward.c). */
int ip_local_deliver(struct sk_buff *skb);
int ip_forward(struct sk_buff *skb);
/*
 * skb->data holds the transport header and payload with room in front:
 * push the IP header and send it along rt (which must come from
 * ip_route_output_key; the packet takes a reference of its own, the
 * caller keeps its). Consumes skb. 0 or a negative errno.
 */
int ip_queue_xmit(struct sk_buff *skb, struct rtable *rt, u8 protocol, u8 ttl);

/* ---- Checksums (checksum.c): the 16-bit ones'-complement sum. */
u32 csum_partial(const void *buf, unsigned int len, u32 sum);
u16 csum_fold(u32 sum);
/* The IPv4 header checksum: 0 when a header that carries it is intact. */
static inline u16 ip_fast_csum(const void *iph, unsigned int ihl)
{
	return csum_fold(csum_partial(iph, ihl * 4, 0));
}
/* The UDP pseudo-header (addresses, protocol, length) added to sum. */
u32 csum_tcpudp_nofold(u32 saddr, u32 daddr, u16 len, u8 proto, u32 sum);

#endif
