/*
 * Socket options: setsockopt() and getsockopt() (include/uapi/net.h).
 *
 *   SOL_SOCKET SO_RCVTIMEO  struct timeval: how long recvfrom() blocks
 *                           (0: forever; negative: not at all, as Linux;
 *                           tv_usec outside [0, 10^6): EDOM)
 *   SOL_SOCKET SO_RCVBUF    int: the receive queue's limit, clamped to
 *                           2 KiB .. 1 MiB (Linux doubles it; we do not)
 *   SOL_SOCKET SO_BROADCAST int: may send to a broadcast address
 *   SOL_SOCKET SO_TYPE, SO_ERROR (read only)
 *   SOL_IP     IP_TTL       int 1..255
 *
 * Anything else is ENOPROTOOPT; a value shorter than its type, EINVAL.
 */
#include <net/sock.h>
#include <file.h>
#include <syscall.h>
#include <time.h>
#include <sched.h>
#include <errno.h>
#include <uapi/net.h>

static long get_int_opt(const void __user *val, long len, int *out)
{
	if (len < (long)sizeof(int))
		return -EINVAL;
	return copy_from_user(out, val, sizeof(int)) ? -EFAULT : 0;
}

static long set_rcvtimeo(struct sock *sk, const void __user *val, long len)
{
	struct qs_timeval tv;
	long timeo;

	if (len < (long)sizeof(tv))
		return -EINVAL;
	if (copy_from_user(&tv, val, sizeof(tv)))
		return -EFAULT;
	if (tv.tv_usec < 0 || tv.tv_usec >= 1000000)
		return -EDOM;
	if (tv.tv_sec < 0)			/* Linux: a negative time never waits */
		timeo = 0;
	else if (tv.tv_sec == 0 && tv.tv_usec == 0)
		timeo = MAX_SCHEDULE_TIMEOUT;
	else if (tv.tv_sec >= MAX_SCHEDULE_TIMEOUT / HZ - 1)
		timeo = MAX_SCHEDULE_TIMEOUT;
	else
		timeo = tv.tv_sec * HZ + (tv.tv_usec * HZ + 999999) / 1000000;
	WRITE_ONCE(sk->rcvtimeo, timeo);
	return 0;
}

static long sys_setsockopt(struct pt_regs *r)
{
	long level = SYSCALL_ARG1(r), name = SYSCALL_ARG2(r), len = (long)(int)SYSCALL_ARG4(r);
	const void __user *val = (const void __user *)SYSCALL_ARG3(r);
	struct file *f;
	struct sock *sk;
	long err;
	int v = 0;

	sk = sockfd_lookup(SYSCALL_ARG0(r), &f, &err);
	if (!sk)
		return err;
	if (level == QS_SOL_SOCKET && name == QS_SO_RCVTIMEO) {
		err = set_rcvtimeo(sk, val, len);
	} else if ((level == QS_SOL_SOCKET && (name == QS_SO_RCVBUF || name == QS_SO_BROADCAST)) ||
		   (level == QS_SOL_IP && name == QS_IP_TTL)) {
		err = get_int_opt(val, len, &v);
		if (err)
			goto out;
		if (name == QS_SO_RCVBUF && level == QS_SOL_SOCKET)
			WRITE_ONCE(sk->rcvbuf, MAX(SK_RCVBUF_MIN, MIN(SK_RCVBUF_MAX, (unsigned int)MAX(v, 0))));
		else if (name == QS_SO_BROADCAST)
			WRITE_ONCE(sk->broadcast, v != 0);
		else if (v < 1 || v > 255)
			err = -EINVAL;
		else
			WRITE_ONCE(sk->ttl, v);
	} else {
		err = -ENOPROTOOPT;
	}
out:
	file_put(f);
	return err;
}
SYSCALL_DEFINE(SYS_setsockopt, sys_setsockopt);

static long sys_getsockopt(struct pt_regs *r)
{
	long level = SYSCALL_ARG1(r), name = SYSCALL_ARG2(r);
	void __user *val = (void __user *)SYSCALL_ARG3(r);
	int __user *ulen = (int __user *)SYSCALL_ARG4(r);
	struct qs_timeval tv;
	const void *src = &tv;
	struct file *f;
	struct sock *sk;
	long err;
	int len, v, size = sizeof(int);

	sk = sockfd_lookup(SYSCALL_ARG0(r), &f, &err);
	if (!sk)
		return err;
	err = copy_from_user(&len, ulen, sizeof(len)) ? -EFAULT : len < 0 ? -EINVAL : 0;
	if (err)
		goto out;
	src = &v;
	if (level == QS_SOL_SOCKET && name == QS_SO_TYPE) {
		v = sk->type;
	} else if (level == QS_SOL_SOCKET && name == QS_SO_ERROR) {
		unsigned long flags = spin_lock_irqsave(&sk->rcvq.lock);

		v = sk->err;
		sk->err = 0;
		spin_unlock_irqrestore(&sk->rcvq.lock, flags);
	} else if (level == QS_SOL_SOCKET && name == QS_SO_BROADCAST) {
		v = sk->broadcast;
	} else if (level == QS_SOL_SOCKET && name == QS_SO_RCVBUF) {
		v = sk->rcvbuf;
	} else if (level == QS_SOL_IP && name == QS_IP_TTL) {
		v = sk->ttl;
	} else if (level == QS_SOL_SOCKET && name == QS_SO_RCVTIMEO) {
		long t = READ_ONCE(sk->rcvtimeo);

		if (t == MAX_SCHEDULE_TIMEOUT)
			t = 0;
		tv.tv_sec = t / HZ;
		tv.tv_usec = (t % HZ) * (1000000 / HZ);
		src = &tv;
		size = sizeof(tv);
	} else {
		err = -ENOPROTOOPT;
		goto out;
	}
	size = MIN(size, len);
	if (copy_to_user(val, src, size) || copy_to_user(ulen, &size, sizeof(size)))
		err = -EFAULT;
out:
	file_put(f);
	return err;
}
SYSCALL_DEFINE(SYS_getsockopt, sys_getsockopt);
