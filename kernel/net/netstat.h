/*
 * The per-layer counters of netstat (the list is QS_NET_MIB in
 * include/uapi/net.h). Each CPU has its own array, so CPUs counting
 * packets at once do not share a cache line; an increment is one locked
 * add on this CPU's copy, which stays correct if the task migrates
 * between finding the copy and adding (it then counts on the old CPU's
 * copy, atomically). netstat sums the copies.
 */
#ifndef _NET_NETSTAT_H
#define _NET_NETSTAT_H

#include <types.h>
#include <percpu.h>
#include <uapi/net.h>

struct net_mib {
	u64 v[QS_NET_MIB_MAX];
};

DECLARE_PER_CPU(struct net_mib, net_mib);

static inline void net_mib_add(unsigned int item, u64 n)
{
	__atomic_fetch_add(&this_cpu_ptr(&net_mib)->v[item], n, __ATOMIC_RELAXED);
}

#define NET_INC(name)		net_mib_add(QS_NET_##name, 1)
#define NET_ADD(name, n)	net_mib_add(QS_NET_##name, (n))

/* The sum over CPUs of one counter (tests) and of all (the system call). */
u64 net_mib_read(unsigned int item);
void net_mib_sum(u64 *out);

#endif
