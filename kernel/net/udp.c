/*
 * UDP (RFC 768): datagrams between ports, with a checksum over a
 * pseudo-header of the IP addresses.
 *
 * Input checks: the 8-byte header is there, its length field is at least
 * 8 and no more than what IP delivered (udp_in_errors; anything past it
 * is trimmed), and a non-zero checksum verifies (udp_in_csum_errors;
 * zero means the sender computed none, which IPv4 allows). Then the
 * datagram goes to the socket that matches best: bound to the port, to
 * the destination address or to any, and if connected, to this source.
 * Nobody bound: udp_no_ports and an ICMP port unreachable back.
 *
 * Sockets live in a table of UDP_HTABLE_SIZE slots by local port, each
 * with its own lock. bind() checks for a conflict and inserts under the
 * slot's lock; delivery finds and queues under it; release removes under
 * it. So a datagram is either queued before the socket leaves the table
 * (and freed with it) or finds no socket.
 */
#include <net/udp.h>
#include <net/icmp.h>
#include <net/sock.h>
#include <net/netstat.h>
#include <string.h>
#include <errno.h>
#include <uapi/net.h>

#define UDP_HTABLE_SIZE		64
#define UDP_EPHEMERAL_LOW	32768
#define UDP_EPHEMERAL_HIGH	60999

struct udp_hslot {
	struct list_head head;
	spinlock_t lock;
};

static struct udp_hslot udp_table[UDP_HTABLE_SIZE];
/* Serializes binds, so that two processes sharing a socket cannot both
 * find it unbound and insert it twice; taken before a slot's lock. */
static DEFINE_SPINLOCK(udp_bind_lock);
static unsigned int udp_port_rover = UDP_EPHEMERAL_LOW;

static struct udp_hslot *udp_slot(u16 port)
{
	return &udp_table[ntohs(port) % UDP_HTABLE_SIZE];
}

/* Someone in the slot holds port at addr (or at any address)? */
static bool udp_port_taken(struct udp_hslot *slot, u32 addr, u16 port)
{
	struct sock *sk;

	list_for_each_entry(sk, &slot->head, node)
		if (sk->sport == port && (!sk->saddr || !addr || sk->saddr == addr))
			return true;
	return false;
}

static int udp_hash_port(struct sock *sk, u32 addr, u16 port)
{
	struct udp_hslot *slot = udp_slot(port);
	unsigned long flags = spin_lock_irqsave(&slot->lock);

	if (udp_port_taken(slot, addr, port)) {
		spin_unlock_irqrestore(&slot->lock, flags);
		return -EADDRINUSE;
	}
	sk->saddr = addr;
	sk->sport = port;
	sk->hashed = true;
	list_add(&sk->node, &slot->head);
	spin_unlock_irqrestore(&slot->lock, flags);
	return 0;
}

static int udp_bind(struct sock *sk, u32 addr, u16 port)
{
	unsigned int range = UDP_EPHEMERAL_HIGH - UDP_EPHEMERAL_LOW + 1;
	unsigned long flags = spin_lock_irqsave(&udp_bind_lock);
	int err = -EADDRINUSE;

	if (sk->hashed) {
		err = -EINVAL;
	} else if (port) {
		err = udp_hash_port(sk, addr, port);
	} else {
		/* Any free ephemeral port, starting where the last search stopped. */
		for (unsigned int i = 0; i < range && err; i++) {
			unsigned int p = udp_port_rover;

			udp_port_rover = p == UDP_EPHEMERAL_HIGH ? UDP_EPHEMERAL_LOW : p + 1;
			err = udp_hash_port(sk, addr, htons(p));
		}
	}
	spin_unlock_irqrestore(&udp_bind_lock, flags);
	return err;
}

/* Bind to an ephemeral port unless something (bind, another sender) already did. */
static int udp_autobind(struct sock *sk)
{
	int err = udp_bind(sk, 0, 0);

	return err == -EINVAL && READ_ONCE(sk->hashed) ? 0 : err;
}

static int udp_connect(struct sock *sk, u32 daddr, u16 dport)
{
	struct udp_hslot *slot = udp_slot(sk->sport);
	unsigned long flags = spin_lock_irqsave(&slot->lock);

	sk->daddr = daddr;
	sk->dport = dport;
	sk->connected = daddr != 0;
	spin_unlock_irqrestore(&slot->lock, flags);
	return 0;
}

static void udp_unhash(struct sock *sk)
{
	struct udp_hslot *slot = udp_slot(sk->sport);
	unsigned long flags = spin_lock_irqsave(&slot->lock);

	list_del_init(&sk->node);
	sk->hashed = false;
	spin_unlock_irqrestore(&slot->lock, flags);
}

/* The best match, or NULL; the caller holds the slot's lock. */
static struct sock *udp_lookup(struct udp_hslot *slot, u32 saddr, u16 sport, u32 daddr, u16 dport)
{
	struct sock *sk, *best = NULL;
	int best_score = -1;

	list_for_each_entry(sk, &slot->head, node) {
		int score = 0;

		if (sk->sport != dport)
			continue;
		if (sk->saddr) {
			if (sk->saddr != daddr)
				continue;
			score += 2;
		}
		if (sk->connected) {
			if (sk->daddr != saddr || sk->dport != sport)
				continue;
			score += 4;
		}
		if (score > best_score) {
			best = sk;
			best_score = score;
		}
	}
	return best;
}

void udp_rcv(struct sk_buff *skb, const struct rtable *rt)
{
	struct udphdr *uh = (struct udphdr *)skb->data;
	struct udp_hslot *slot;
	struct sock *sk;
	unsigned long flags;
	unsigned int ulen;
	int err;

	if (skb->len < sizeof(*uh)) {
		NET_INC(udp_in_errors);
		goto drop;
	}
	ulen = ntohs(uh->len);
	if (ulen < sizeof(*uh) || ulen > skb->len) {
		NET_INC(udp_in_errors);
		goto drop;
	}
	skb_trim(skb, ulen);
	if (uh->check && csum_fold(csum_tcpudp_nofold(skb->saddr, skb->daddr, ulen, IPPROTO_UDP,
						      csum_partial(uh, ulen, 0))) != 0) {
		NET_INC(udp_in_csum_errors);
		goto drop;
	}
	skb->sport = uh->source;
	slot = udp_slot(uh->dest);
	flags = spin_lock_irqsave(&slot->lock);
	sk = udp_lookup(slot, skb->saddr, uh->source, skb->daddr, uh->dest);
	if (!sk) {
		spin_unlock_irqrestore(&slot->lock, flags);
		NET_INC(udp_no_ports);
		icmp_send(skb, rt, ICMP_DEST_UNREACH, ICMP_PORT_UNREACH);
		goto drop;
	}
	skb_pull(skb, sizeof(*uh));
	err = sock_queue_rcv_skb(sk, skb);
	spin_unlock_irqrestore(&slot->lock, flags);
	if (err) {
		NET_INC(udp_rcvbuf_errors);
		goto drop;
	}
	NET_INC(udp_in_datagrams);
	return;
drop:
	kfree_skb(skb);
}

static long udp_sendmsg(struct sock *sk, const void __user *buf, size_t len, u32 daddr, u16 dport)
{
	struct sk_buff *skb;
	struct udphdr *uh;
	struct rtable *rt;
	unsigned int ulen;
	int err;

	if (!dport)
		return -EINVAL;
	err = ip_route_output_key(&rt, daddr, sk->saddr, 0);
	if (err) {
		NET_INC(ip_out_no_routes);
		return err;
	}
	if ((rt->rt_flags & RTCF_BROADCAST) && !sk->broadcast)
		err = -EACCES;
	else if (len > rt->u.dst.pmtu - sizeof(struct iphdr) - sizeof(*uh))
		err = -EMSGSIZE;
	else if (!READ_ONCE(sk->hashed))
		err = udp_autobind(sk);
	if (err)
		goto out;
	ulen = len + sizeof(*uh);
	skb = alloc_skb(MAX_HEADER + ulen);
	if (!skb) {
		err = -ENOBUFS;
		goto out;
	}
	skb_reserve(skb, MAX_HEADER);
	uh = skb_put(skb, ulen);
	/* The copy may fault and sleep: the route is held, by reference. */
	if (copy_from_user(uh + 1, buf, len)) {
		kfree_skb(skb);
		err = -EFAULT;
		goto out;
	}
	uh->source = sk->sport;
	uh->dest = dport;
	uh->len = htons(ulen);
	uh->check = 0;
	uh->check = csum_fold(csum_tcpudp_nofold(rt->rt_src, daddr, ulen, IPPROTO_UDP,
						 csum_partial(uh, ulen, 0)));
	if (!uh->check)
		uh->check = 0xffff;		/* 0 would mean "no checksum" */
	skb_set_transport_header(skb);
	NET_INC(udp_out_datagrams);
	err = ip_queue_xmit(skb, rt, IPPROTO_UDP, sk->ttl);
out:
	ip_rt_put(rt);
	return err ? err : (long)len;
}

const struct proto udp_prot = {
	.name		= "udp",
	.bind		= udp_bind,
	.connect	= udp_connect,
	.sendmsg	= udp_sendmsg,
	.unhash		= udp_unhash,
};

void udp_init(void)
{
	for (int i = 0; i < UDP_HTABLE_SIZE; i++) {
		INIT_LIST_HEAD(&udp_table[i].head);
		spin_lock_init(&udp_table[i].lock, "udp_hslot");
	}
}
