/*
 * In-kernel tests of the network stack's pure parts (kernel/net): the
 * Internet checksum against RFC 1071's worked example, address parsing,
 * packet-buffer arithmetic and queues, the routing decision for loopback
 * and martians, the neighbour table's create/flush, and a UDP header
 * whose checksum verifies the way udp_rcv() checks it. The paths that
 * need packets on a wire are tested from outside (tests/test_net.py,
 * nettest, the net-* scenarios).
 */
#include <ktest.h>
#include <net/skbuff.h>
#include <net/netdevice.h>
#include <net/ip.h>
#include <net/udp.h>
#include <net/arp.h>
#include <string.h>
#include <errno.h>

KTEST(net_checksum_rfc1071)
{
	/* RFC 1071 section 3: these bytes sum to 0xddf2; the checksum is its complement. */
	static const u8 data[] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };
	u8 hdr[20] = { 0x45, 0x00, 0x00, 0x54, 0x12, 0x34, 0x40, 0x00, 0x40, 0x01,
		       0x00, 0x00, 10, 0, 2, 15, 10, 0, 2, 2 };
	u16 c = csum_fold(csum_partial(data, sizeof(data), 0));
	u16 h;

	KT_EXPECT(t, ntohs(c) == 0x220d, "checksum %#x", ntohs(c));
	/* An odd length sums as if padded with a zero byte. */
	KT_EXPECT(t, csum_fold(csum_partial(data, 7, 0)) == csum_fold(csum_partial(data, 8, 0) - 0xf700),
		  "odd length");
	/* A header with its checksum in place verifies to 0. */
	h = ip_fast_csum(hdr, 5);
	memcpy(hdr + 10, &h, 2);
	KT_EXPECT(t, ip_fast_csum(hdr, 5) == 0, "header verifies");
	hdr[8]--;				/* a TTL change breaks it */
	KT_EXPECT(t, ip_fast_csum(hdr, 5) != 0, "a damaged header does not verify");
}

KTEST(net_udp_checksum)
{
	u32 src = htonl(0x0a000001), dst = htonl(0x0a000002);
	u8 buf[8 + 5];
	struct udphdr *uh = (struct udphdr *)buf;
	unsigned int len = sizeof(buf);

	memcpy(buf + 8, "hello", 5);
	uh->source = htons(1234);
	uh->dest = htons(7);
	uh->len = htons(len);
	uh->check = 0;
	uh->check = csum_fold(csum_tcpudp_nofold(src, dst, len, IPPROTO_UDP, csum_partial(buf, len, 0)));
	KT_EXPECT(t, csum_fold(csum_tcpudp_nofold(src, dst, len, IPPROTO_UDP,
						  csum_partial(buf, len, 0))) == 0, "verifies");
	buf[10] ^= 1;
	KT_EXPECT(t, csum_fold(csum_tcpudp_nofold(src, dst, len, IPPROTO_UDP,
						  csum_partial(buf, len, 0))) != 0, "a flipped bit shows");
}

KTEST(net_ip_parse)
{
	u32 a = 0;
	char s[16];

	KT_EXPECT(t, ip_parse("10.0.2.15", &a) == 0 && a == htonl(0x0a00020f), "10.0.2.15 -> %#x", a);
	KT_EXPECT(t, !strcmp(ip_str(a, s), "10.0.2.15"), "back: %s", s);
	KT_EXPECT(t, ip_parse("255.255.255.255", &a) == 0 && a == 0xffffffffu, "broadcast");
	KT_EXPECT(t, ip_parse("10.0.2.15/24", &a) == 0, "a prefix may follow");
	KT_EXPECT(t, ip_parse("256.0.0.1", &a) == -EINVAL, "256");
	KT_EXPECT(t, ip_parse("10.0.2", &a) == -EINVAL, "three parts");
	KT_EXPECT(t, ip_parse("10.0.2.x", &a) == -EINVAL, "a letter");
	KT_EXPECT(t, ip_parse("1.2.3.4.5", &a) == -EINVAL, "five parts");
	KT_EXPECT(t, ip_parse("", &a) == -EINVAL, "empty");
}

KTEST(net_skb_arithmetic)
{
	long alive = skbs_alive();
	struct sk_buff_head q;
	struct sk_buff *skb = alloc_skb(256), *copy, *a, *b;

	KT_ASSERT(t, skb, "alloc_skb");
	skb_reserve(skb, 64);
	KT_EXPECT(t, skb_headroom(skb) == 64 && skb->len == 0, "reserve");
	memcpy(skb_put(skb, 10), "0123456789", 10);
	memcpy(skb_push(skb, 4), "HDR:", 4);
	KT_EXPECT(t, skb->len == 14 && !memcmp(skb->data, "HDR:0123", 8), "push");
	KT_EXPECT(t, skb_pull(skb, 4) && skb->data[0] == '0', "pull");
	KT_EXPECT(t, skb_pull(skb, 100) == NULL && skb->len == 10, "pulling past the end fails");
	skb_trim(skb, 3);
	KT_EXPECT(t, skb->len == 3 && skb->tail == skb->data + 3, "trim");
	copy = skb_copy(skb);
	KT_ASSERT(t, copy, "skb_copy");
	KT_EXPECT(t, copy->len == 3 && !memcmp(copy->data, "012", 3) && copy->data != skb->data,
		  "the copy is its own");

	skb_queue_head_init(&q, "test");
	skb_queue_tail(&q, skb);
	skb_queue_tail(&q, copy);
	KT_EXPECT(t, skb_queue_len(&q) == 2, "two queued");
	a = skb_dequeue(&q);
	b = skb_dequeue(&q);
	KT_EXPECT(t, a == skb && b == copy && skb_queue_empty(&q), "first in, first out");
	skb_queue_tail(&q, a);
	skb_queue_tail(&q, b);
	skb_queue_purge(&q);
	KT_EXPECT(t, skbs_alive() == alive, "every buffer freed (%ld -> %ld)", alive, skbs_alive());
}

KTEST(net_route_loopback_and_martians)
{
	struct sk_buff *skb = alloc_skb(64);
	struct rtable *rt;
	int err;

	KT_ASSERT(t, loopback_dev, "lo is registered");
	KT_ASSERT(t, skb, "a buffer");
	err = ip_route_output_key(&rt, htonl(0x7f000001), 0, 0);
	KT_EXPECT(t, !err && rt->u.dst.dev == loopback_dev && (rt->rt_flags & RTCF_LOCAL) &&
		  rt->rt_src == htonl(0x7f000001), "127.0.0.1 goes through lo (err %d)", err);
	if (!err)
		ip_rt_put(rt);
	err = ip_route_output_key(&rt, htonl(0x7f0000fe), 0, 0);
	KT_EXPECT(t, !err && rt->u.dst.dev == loopback_dev, "all of 127/8 does");
	if (!err)
		ip_rt_put(rt);
	KT_EXPECT(t, ip_route_output_key(&rt, htonl(0xe0000001), 0, 0) == -ENETUNREACH && !rt,
		  "no multicast");
	KT_EXPECT(t, ip_route_output_key(&rt, 0, 0, 0) == -ENETUNREACH, "0.0.0.0 is no destination");
	if (!ip_default_gateway() && dev_count() == 1)
		KT_EXPECT(t, ip_route_output_key(&rt, htonl(0xc0000201), 0, 0) == -ENETUNREACH,
			  "no interface, no gateway: unreachable");
	KT_EXPECT(t, ip_route_input(skb, htonl(0x7f000001), 0xffffffffu, 0, loopback_dev) == -EINVAL,
		  "a broadcast source is a martian");
	KT_EXPECT(t, ip_route_input(skb, htonl(0x7f000001), htonl(0xe0000005), 0, loopback_dev) == -EINVAL,
		  "so is a multicast one");
	KT_EXPECT(t, !skb->dst, "no route for a martian");
	KT_EXPECT(t, ip_route_input(skb, htonl(0x7f000001), htonl(0x7f000001), 0, loopback_dev) == 0 &&
		  (skb_rtable(skb)->rt_flags & RTCF_LOCAL), "lo to lo is local");
	kfree_skb(skb);				/* and its route's reference */
}

KTEST(net_neigh_create_flush)
{
	static const u8 mac[ETH_ALEN] = { 0x02, 0, 0, 0, 0, 0x42 };
	long before = neigh_count();
	struct qs_neighinfo info;
	bool found = false;

	KT_ASSERT(t, loopback_dev, "lo is registered");
	neigh_update(loopback_dev, htonl(0x0a0000fe), mac, false);
	KT_EXPECT(t, neigh_count() == before, "news of a stranger makes no entry");
	neigh_update(loopback_dev, htonl(0x0a0000fe), mac, true);
	KT_EXPECT(t, neigh_count() == before + 1 && neigh_known(loopback_dev, htonl(0x0a0000fe)),
		  "an entry");
	for (int i = 0; !neigh_get_info(i, &info); i++)
		if (info.addr == htonl(0x0a0000fe))
			found = info.state == QS_NUD_REACHABLE && !memcmp(info.mac, mac, ETH_ALEN);
	KT_EXPECT(t, found, "listed as REACHABLE with its address");
	neigh_flush();
	KT_EXPECT(t, neigh_count() == 0, "flushed");
}
