/*
 * The counters (netstat.h) and qs_netstat(): the per-layer counts summed
 * over CPUs, with the live packet-buffer, socket and neighbour counts
 * that the leak checks compare with a baseline.
 */
#include <net/netstat.h>
#include <net/skbuff.h>
#include <net/sock.h>
#include <net/arp.h>
#include <syscall.h>
#include <smp.h>
#include <string.h>
#include <errno.h>

DEFINE_PER_CPU(struct net_mib, net_mib);

u64 net_mib_read(unsigned int item)
{
	unsigned int cpu;
	u64 sum = 0;

	for_each_online_cpu(cpu)
		sum += READ_ONCE(per_cpu(net_mib, cpu).v[item]);
	return sum;
}

void net_mib_sum(u64 *out)
{
	for (unsigned int i = 0; i < QS_NET_MIB_MAX; i++)
		out[i] = net_mib_read(i);
}

static long sys_qs_netstat(struct pt_regs *r)
{
	size_t size = SYSCALL_ARG1(r);
	struct qs_netstat st;

	if (!size)
		return -EINVAL;
	memset(&st, 0, sizeof(st));
	skb_get_counts(&st.skbs_alive, &st.skb_allocs, &st.skb_frees);
	st.sockets_alive = sockets_alive();
	st.neigh_entries = neigh_count();
	st.nr_mib = QS_NET_MIB_MAX;
	net_mib_sum(st.mib);
	size = MIN(size, sizeof(st));
	return copy_to_user((void __user *)SYSCALL_ARG0(r), &st, size) ? -EFAULT : (long)size;
}
SYSCALL_DEFINE(SYS_qs_netstat, sys_qs_netstat);
