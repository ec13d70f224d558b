/*
 * IPv4 (kernel/net/ip_input.c, ip_output.c), its routing decision
 * (route.c) and the Internet checksum (checksum.c).
 */
#ifndef _NET_IP_H
#define _NET_IP_H

#include <types.h>
#include <net/netdevice.h>
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

/* ---- Routing (route.c) */

/*
 * The result of a routing decision. For now each is made afresh from the
 * interfaces' addresses and the default gateway; the route cache (seed
 * 000 section 2.4) will keep them, so callers must treat the result as
 * the whole answer and look nothing else up.
 */
struct rtable {
	struct net_device *dev;		/* output: send by; input: arrived on */
	u32 rt_dst;			/* the destination asked about */
	u32 rt_src;			/* the source address to use */
	u32 rt_gateway;			/* next hop: rt_dst itself or the gateway */
	unsigned int rt_flags;		/* RTCF_* */
};
#define RTCF_LOCAL	0x1		/* to this host */
#define RTCF_BROADCAST	0x2		/* limited or subnet broadcast */

/* Output: the route to daddr (saddr: a source the caller is bound to, or 0). */
int ip_route_output_key(struct rtable *rt, u32 daddr, u32 saddr);
/* Input: is a packet from saddr to daddr that arrived on dev ours? 0 if so. */
int ip_route_input(struct rtable *rt, u32 daddr, u32 saddr, struct net_device *dev);
/* An address, mask, gateway or interface state changed. */
void ip_route_config_changed(void);
/* The interface that has addr, or NULL. */
struct net_device *ip_dev_find(u32 addr);
u32 ip_default_gateway(void);
void ip_set_default_gateway(u32 gw);
extern struct net_device *loopback_dev;

/* ---- Input and output */
void ip_rcv(struct sk_buff *skb);
/*
 * skb->data holds the transport header and payload with room in front:
 * push the IP header and send it along rt (which must come from
 * ip_route_output_key). Consumes skb. 0 or a negative errno.
 */
int ip_queue_xmit(struct sk_buff *skb, const struct rtable *rt, u8 protocol, u8 ttl);

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
