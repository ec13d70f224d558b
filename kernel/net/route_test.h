/*
 * Shared by the route tests (route_*test.c, route_stress.c, route_bench.c): the interface
 * they route by and routes of their own in 172.16.0.0/12, which nothing
 * else on the test machines uses.
 */
#ifndef _ROUTE_TEST_H
#define _ROUTE_TEST_H

#include <net/route.h>

#define RT_TEST_NET	0xac100000u	/* 172.16.0.0/12, host order */
#define RT_TEST_LEN	12

struct rt_test_net {
	struct net_device *dev;		/* the first running interface with an address */
	u32 addr, mask;			/* its own */
	u32 gw0;			/* a neighbour on its subnet: the base route's gateway */
};

/* 0, or -ENODEV when no interface has an address (the scenario gives one). */
int rt_test_net_get(struct rt_test_net *n);
/* Another neighbour on the subnet, the k-th (k < 100; a /24 or wider). */
u32 rt_test_gw(const struct rt_test_net *n, int k);
/* Add or delete a static route (host-order prefix); fib_add()/fib_del()'s answer. */
int rt_test_route(bool add, u32 prefix_h, int len, u32 gw, u32 metric);
/* The gateway an output lookup answers for daddr (network order), 0 on error. */
u32 rt_test_out_gw(u32 daddr);

#endif
