/*
 * Raw sockets, protocol ICMP only: socket(AF_INET, SOCK_RAW, IPPROTO_ICMP).
 * As on Linux, a reader gets every ICMP packet that passed IP's checks,
 * IP header included, and picks its own (ping matches its identifier);
 * a writer gives the ICMP message, checksum included, and the kernel
 * puts the IP header in front. A socket bound to an address sees only
 * packets to it; a connected one only packets from its peer.
 *
 * There are no privileges to check (Linux asks for CAP_NET_RAW): any
 * process may ping. The sockets are on one list under one lock, held
 * while copies are queued, so release (unhash) cannot race a delivery.
 */
#include <net/raw.h>
#include <net/sock.h>
#include <net/netstat.h>
#include <errno.h>
#include <uapi/net.h>

static LIST_HEAD(raw_sockets);
static DEFINE_SPINLOCK(raw_lock);

void raw_deliver(struct sk_buff *skb, u8 protocol)
{
	const struct iphdr *iph = (const struct iphdr *)skb->data;
	unsigned long flags;
	struct sock *sk;

	if (list_empty(&raw_sockets))		/* the common case: nobody pings */
		return;
	flags = spin_lock_irqsave(&raw_lock);
	list_for_each_entry(sk, &raw_sockets, node) {
		struct sk_buff *copy;

		if (sk->protocol != protocol || (sk->saddr && sk->saddr != iph->daddr) ||
		    (sk->connected && sk->daddr != iph->saddr))
			continue;
		copy = skb_copy(skb);
		if (!copy)
			continue;
		if (sock_queue_rcv_skb(sk, copy)) {
			NET_INC(raw_rcvbuf_errors);
			kfree_skb(copy);
			continue;
		}
		NET_INC(raw_in);
	}
	spin_unlock_irqrestore(&raw_lock, flags);
}

static void raw_hash(struct sock *sk)
{
	unsigned long flags = spin_lock_irqsave(&raw_lock);

	if (!sk->hashed) {
		list_add(&sk->node, &raw_sockets);
		sk->hashed = true;
	}
	spin_unlock_irqrestore(&raw_lock, flags);
}

static int raw_bind(struct sock *sk, u32 addr, u16 port)
{
	unsigned long flags = spin_lock_irqsave(&raw_lock);

	sk->saddr = addr;		/* the port means nothing to a raw socket */
	spin_unlock_irqrestore(&raw_lock, flags);
	raw_hash(sk);
	return 0;
}

static int raw_connect(struct sock *sk, u32 daddr, u16 dport)
{
	unsigned long flags = spin_lock_irqsave(&raw_lock);

	sk->daddr = daddr;
	sk->connected = daddr != 0;
	spin_unlock_irqrestore(&raw_lock, flags);
	raw_hash(sk);
	return 0;
}

static void raw_unhash(struct sock *sk)
{
	unsigned long flags = spin_lock_irqsave(&raw_lock);

	list_del_init(&sk->node);
	sk->hashed = false;
	spin_unlock_irqrestore(&raw_lock, flags);
}

static long raw_sendmsg(struct sock *sk, const void __user *buf, size_t len, u32 daddr, u16 dport)
{
	struct sk_buff *skb;
	struct rtable *rt;
	int err;

	err = ip_route_output_key(&rt, daddr, sk->saddr, 0);
	if (err) {
		NET_INC(ip_out_no_routes);
		return err;
	}
	if ((rt->rt_flags & RTCF_BROADCAST) && !sk->broadcast) {
		err = -EACCES;
		goto out;
	}
	if (len > rt->u.dst.pmtu - sizeof(struct iphdr)) {
		err = -EMSGSIZE;
		goto out;
	}
	raw_hash(sk);			/* a sender hears the answers */
	skb = alloc_skb(MAX_HEADER + len);
	if (!skb) {
		err = -ENOBUFS;
		goto out;
	}
	skb_reserve(skb, MAX_HEADER);
	if (copy_from_user(skb_put(skb, len), buf, len)) {	/* may sleep: rt is held */
		kfree_skb(skb);
		err = -EFAULT;
		goto out;
	}
	if (sk->protocol == IPPROTO_ICMP)
		NET_INC(icmp_out_msgs);
	err = ip_queue_xmit(skb, rt, sk->protocol, sk->ttl);
out:
	ip_rt_put(rt);
	return err ? err : (long)len;
}

const struct proto raw_prot = {
	.name		= "raw",
	.bind		= raw_bind,
	.connect	= raw_connect,
	.sendmsg	= raw_sendmsg,
	.unhash		= raw_unhash,
};
