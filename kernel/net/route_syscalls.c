/*
 * The routing system calls, 80-83 (include/uapi/route.h): the table
 * (route), the route a packet would take (route get), the cache's
 * counters (rtstat) and its mode, flush and forwarding switch. Every
 * argument is checked before use; changes take uid 0 (the fuzzer runs as
 * 1000 and must not reroute the tests' packets).
 */
#include <net/route.h>
#include <syscall.h>
#include <uaccess.h>
#include <kmalloc.h>
#include <string.h>
#include <errno.h>
#include <cred.h>

static long route_dump(void __user *ubuf, long max)
{
	struct qs_rtentry *buf;
	long n;

	if (max < 0)
		return -EINVAL;
	if (max > QS_ROUTE_MAX)
		max = QS_ROUTE_MAX;
	if (!max)
		return 0;
	buf = kmalloc(max * sizeof(*buf));
	if (!buf)
		return -ENOMEM;
	n = fib_dump(buf, max);
	if (copy_to_user(ubuf, buf, n * sizeof(*buf)))
		n = -EFAULT;
	kfree(buf);
	return n;
}

static long sys_qs_route(struct pt_regs *r)
{
	void __user *ubuf = (void __user *)SYSCALL_ARG1(r);
	struct qs_rtentry e;

	switch (SYSCALL_ARG0(r)) {
	case QS_ROUTE_ADD:
	case QS_ROUTE_DEL:
		if (!capable(CAP_NET_ADMIN))
			return -EPERM;
		if (copy_from_user(&e, ubuf, sizeof(e)))
			return -EFAULT;
		return SYSCALL_ARG0(r) == QS_ROUTE_ADD ? fib_add(&e, QS_RTPROT_STATIC) : fib_del(&e);
	case QS_ROUTE_DUMP:
		return route_dump(ubuf, (long)SYSCALL_ARG2(r));
	}
	return -EINVAL;
}
SYSCALL_DEFINE(SYS_qs_route, sys_qs_route);

static long sys_qs_route_get(struct pt_regs *r)
{
	struct qs_rtlookup __user *ulk = (struct qs_rtlookup __user *)SYSCALL_ARG0(r);
	struct qs_rtlookup lk;
	struct rtable *rt;
	long err;

	if (copy_from_user(&lk, ulk, sizeof(lk)))
		return -EFAULT;
	if (lk.tos > 0xff)
		return -EINVAL;
	err = ip_route_output_key(&rt, lk.dst, lk.src, lk.tos);
	if (err)
		return err;
	lk.gateway = rt->rt_gateway;
	lk.prefsrc = rt->rt_src;
	lk.flags = (rt->rt_flags & RTCF_LOCAL ? QS_RTLOOKUP_LOCAL : 0) |
		   (rt->rt_flags & RTCF_BROADCAST ? QS_RTLOOKUP_BROADCAST : 0) |
		   (rt->u.dst.flags & DST_NOCACHE ? 0 : QS_RTLOOKUP_CACHED);
	lk.mtu = rt->u.dst.pmtu;
	memset(lk.dev, 0, sizeof(lk.dev));
	strlcpy(lk.dev, rt->u.dst.dev->name, sizeof(lk.dev));
	ip_rt_put(rt);
	return copy_to_user(ulk, &lk, sizeof(lk)) ? -EFAULT : 0;
}
SYSCALL_DEFINE(SYS_qs_route_get, sys_qs_route_get);

static long sys_qs_rtstat(struct pt_regs *r)
{
	unsigned long size = SYSCALL_ARG1(r);
	struct qs_rtstat st;

	if (size > sizeof(st))
		size = sizeof(st);
	rt_cache_get_stats(&st);
	return copy_to_user((void __user *)SYSCALL_ARG0(r), &st, size) ? -EFAULT : (long)size;
}
SYSCALL_DEFINE(SYS_qs_rtstat, sys_qs_rtstat);

#define DUMP_MAX	64		/* entries per call: more than a chain can hold */

static long rtcache_dump(unsigned long bucket, void __user *ubuf, long max)
{
	struct qs_rtcache_entry *buf;
	long n;

	if (bucket >= RT_HASH_SIZE)
		return -ENOENT;			/* past the last: the end of a walk */
	if (max < 0)
		return -EINVAL;
	if (max > DUMP_MAX)
		max = DUMP_MAX;
	if (!max)
		return 0;
	buf = kmalloc(max * sizeof(*buf));
	if (!buf)
		return -ENOMEM;
	n = rt_cache_dump_bucket(bucket, buf, max);
	if (copy_to_user(ubuf, buf, n * sizeof(*buf)))
		n = -EFAULT;
	kfree(buf);
	return n;
}

static long sys_qs_rtcache(struct pt_regs *r)
{
	unsigned long arg = SYSCALL_ARG1(r);

	switch (SYSCALL_ARG0(r)) {
	case QS_RTCACHE_GET_MODE:
		return rt_cache_mode();
	case QS_RTCACHE_GET_FORWARD:
		return ip_forwarding();
	case QS_RTCACHE_DUMP:
		return rtcache_dump(arg, (void __user *)SYSCALL_ARG2(r), (long)SYSCALL_ARG3(r));
	case QS_RTCACHE_SET_MODE:
	case QS_RTCACHE_FLUSH:
	case QS_RTCACHE_SET_FORWARD:
		break;
	default:
		return -EINVAL;
	}
	if (!capable(CAP_NET_ADMIN))
		return -EPERM;
	switch (SYSCALL_ARG0(r)) {
	case QS_RTCACHE_SET_MODE:
		return arg > QS_RTCACHE_OFF ? -EINVAL : rt_cache_set_mode(arg);
	case QS_RTCACHE_FLUSH:
		rt_cache_flush();		/* stale at once, */
		rt_run_flush();			/* and gone (freed after a grace period) */
		return 0;
	default:
		if (arg > 1)
			return -EINVAL;
		ip_set_forwarding(arg);
		return 0;
	}
}
SYSCALL_DEFINE(SYS_qs_rtcache, sys_qs_rtcache);
