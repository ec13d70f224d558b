/*
 * The socket system calls (include/uapi/net.h, 60-69) and sockets as
 * files (include/file.h): socket() makes a struct sock and a file whose
 * private is it; every call finds it again through fd_get() and checks
 * the file is a socket (ENOTSOCK).
 *
 * Arguments are checked in Linux's order, so a program sees the error
 * Linux would give: a descriptor that is not open is EBADF, one that is
 * not a socket ENOTSOCK; an address length over 128 or negative is
 * EINVAL, then the address is copied in (EFAULT), then its length must
 * hold a sockaddr_in (EINVAL) and its family be AF_INET (EAFNOSUPPORT).
 *
 * Nothing is lost to a bad pointer: sendto copies the payload before
 * anything is sent, and recvfrom puts a datagram back at the head of the
 * queue if it cannot be copied out (EFAULT), to be read again.
 */
#include <net/sock.h>
#include <net/ip.h>
#include <file.h>
#include <syscall.h>
#include <time.h>
#include <sched.h>
#include <string.h>
#include <errno.h>
#include <uapi/net.h>

#define SOCKADDR_MAX	128		/* Linux's sizeof(struct sockaddr_storage) */

static const struct file_ops socket_file_ops;

static struct sock *file_sock(struct file *f)
{
	return f->ops == &socket_file_ops ? f->private : NULL;
}

struct sock *sockfd_lookup(long fd, struct file **fp, long *err)
{
	struct file *f = fd_get(fd);

	*err = 0;
	if (!f) {
		*err = -EBADF;
		return NULL;
	}
	if (!file_sock(f)) {
		file_put(f);
		*err = -ENOTSOCK;
		return NULL;
	}
	*fp = f;
	return f->private;
}

/*
 * A sockaddr_in from user space: *addr and *port in network order.
 * Returns 0, 1 for an AF_UNSPEC address where unspec_ok (connect's
 * "dissolve"), or an errno.
 */
static long get_sockaddr(const void __user *uaddr, long len, u32 *addr, u16 *port, bool unspec_ok)
{
	struct qs_sockaddr_in sin;

	if (len < 0 || len > SOCKADDR_MAX)
		return -EINVAL;
	memset(&sin, 0, sizeof(sin));
	if (copy_from_user(&sin, uaddr, MIN((size_t)len, sizeof(sin))))
		return -EFAULT;
	if (unspec_ok && len >= 2 && sin.sin_family == QS_AF_UNSPEC)
		return 1;
	if ((size_t)len < sizeof(sin))
		return -EINVAL;
	if (sin.sin_family != QS_AF_INET)
		return -EAFNOSUPPORT;
	*addr = sin.sin_addr.s_addr;
	*port = sin.sin_port;
	return 0;
}

/* Write a sockaddr_in to (uaddr, *ulen): as much as fits; *ulen gets its size. */
static long put_sockaddr(void __user *uaddr, int __user *ulen, u32 addr, u16 port)
{
	struct qs_sockaddr_in sin = { .sin_family = QS_AF_INET, .sin_port = port,
				      .sin_addr = { addr } };
	int len, full = sizeof(sin);

	if (!uaddr)
		return 0;
	if (copy_from_user(&len, ulen, sizeof(len)))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;
	if (copy_to_user(uaddr, &sin, MIN((size_t)len, sizeof(sin))) ||
	    copy_to_user(ulen, &full, sizeof(full)))
		return -EFAULT;
	return 0;
}

/* An address we may bind: any, one of ours, 127/8, or broadcast. */
static bool local_addr_ok(u32 addr)
{
	return !addr || ipv4_is_loopback(addr) || ipv4_is_lbcast(addr) || ip_dev_find(addr);
}

/* ---- The file side */

static long sock_do_recv(struct sock *sk, struct file *f, void __user *buf, size_t len,
			 int flags, void __user *uaddr, int __user *ulen)
{
	struct sk_buff *skb;
	size_t copy;
	long ret;
	int err, alen;

	if (flags & ~(QS_MSG_PEEK | QS_MSG_TRUNC | QS_MSG_DONTWAIT))
		return -EINVAL;
	if (uaddr) {	/* a bad length pointer fails before anything is taken */
		if (copy_from_user(&alen, ulen, sizeof(alen)))
			return -EFAULT;
		if (alen < 0)
			return -EINVAL;
	}
	skb = sock_recv_skb(sk, f, flags, &err);
	if (!skb)
		return err;
	copy = MIN(len, (size_t)skb->len);
	if (copy_to_user(buf, skb->data, copy) ||
	    (ret = put_sockaddr(uaddr, ulen, skb->saddr, skb->sport))) {
		if (flags & QS_MSG_PEEK)
			kfree_skb(skb);
		else
			sock_requeue_skb(sk, skb);
		return -EFAULT;
	}
	/* Datagram semantics: the rest of a longer datagram is lost, as on
	 * Linux; MSG_TRUNC asks for its real length. */
	ret = (flags & QS_MSG_TRUNC) ? (long)skb->len : (long)copy;
	kfree_skb(skb);
	return ret;
}

static long sock_do_send(struct sock *sk, const void __user *buf, size_t len, int flags,
			 u32 daddr, u16 dport, bool have_addr)
{
	if (flags & ~QS_MSG_DONTWAIT)
		return -EINVAL;
	if (READ_ONCE(sk->shutdown) & SEND_SHUTDOWN)
		return -EPIPE;
	if (!have_addr) {
		if (!sk->connected)
			return -EDESTADDRREQ;
		daddr = sk->daddr;
		dport = sk->dport;
	}
	if (len > IP_MAX_PACKET)
		return -EMSGSIZE;
	return sk->prot->sendmsg(sk, buf, len, daddr, dport);
}

static long socket_read(struct file *f, char __user *buf, size_t n)
{
	return sock_do_recv(f->private, f, buf, n, 0, NULL, NULL);
}

static long socket_write(struct file *f, const char __user *buf, size_t n)
{
	return sock_do_send(f->private, buf, n, 0, 0, 0, false);
}

static void socket_stat(struct file *f, struct qs_stat *st)
{
	st->mode = QS_S_IFSOCK | 0777;
}

static void socket_flags_changed(struct file *f)
{
	sk_wake_all(f->private);
}

static void socket_release(struct file *f)
{
	struct sock *sk = f->private;

	sk_wake_all(sk);
	sk_free(sk);
}

static const struct file_ops socket_file_ops = {
	.name		= "socket",
	.read		= socket_read,
	.write		= socket_write,
	.stat		= socket_stat,
	.flags_changed	= socket_flags_changed,
	.release	= socket_release,
};

/* ---- The calls */

static long sys_socket(struct pt_regs *r)
{
	long domain = SYSCALL_ARG0(r), type = SYSCALL_ARG1(r), protocol = SYSCALL_ARG2(r);
	const struct proto *prot;
	struct sock *sk;
	struct file *f;
	int fd;

	if (domain != QS_AF_INET)
		return -EAFNOSUPPORT;
	if (type & ~(0xf | QS_SOCK_NONBLOCK))
		return -EINVAL;
	switch (type & 0xf) {
	case QS_SOCK_DGRAM:
		if (protocol != QS_IPPROTO_IP && protocol != QS_IPPROTO_UDP)
			return -EPROTONOSUPPORT;
		prot = &udp_prot;
		protocol = QS_IPPROTO_UDP;
		break;
	case QS_SOCK_RAW:
		if (protocol != QS_IPPROTO_ICMP)
			return -EPROTONOSUPPORT;
		prot = &raw_prot;
		break;
	default:
		return -EINVAL;
	}
	sk = sk_alloc(prot, type & 0xf, protocol);
	if (!sk)
		return -ENOMEM;
	if (prot == &raw_prot)
		prot->bind(sk, 0, 0);		/* raw sockets hear from the start */
	f = file_alloc(&socket_file_ops, sk,
		       QS_O_RDWR | (type & QS_SOCK_NONBLOCK ? QS_O_NONBLOCK : 0));
	if (!f) {
		sk_free(sk);
		return -ENOMEM;
	}
	fd = fd_install(f);
	if (fd < 0)
		file_put(f);			/* releases the socket */
	return fd;
}
SYSCALL_DEFINE(SYS_socket, sys_socket);

/*
 * A call on the socket behind the descriptor in argument 0: fn runs with
 * the file held, so a close() on another CPU cannot release the socket
 * under it, and the file is put after, whatever fn returns.
 */
static long sock_call(struct pt_regs *r,
		      long (*fn)(struct sock *sk, struct file *f, struct pt_regs *r))
{
	struct file *f;
	long err;
	struct sock *sk = sockfd_lookup(SYSCALL_ARG0(r), &f, &err);

	if (!sk)
		return err;
	err = fn(sk, f, r);
	file_put(f);
	return err;
}

static long do_bind(struct sock *sk, struct file *f, struct pt_regs *r)
{
	u32 addr = 0;
	u16 port = 0;
	long err = get_sockaddr((const void __user *)SYSCALL_ARG1(r), (long)(int)SYSCALL_ARG2(r),
			   &addr, &port, false);
	if (!err && !local_addr_ok(addr))
		err = -EADDRNOTAVAIL;
	if (!err)
		err = sk->prot->bind(sk, addr, port);
	return err;
}

static long sys_bind(struct pt_regs *r)
{
	return sock_call(r, do_bind);
}
SYSCALL_DEFINE(SYS_bind, sys_bind);

static long do_connect(struct sock *sk, struct file *f, struct pt_regs *r)
{
	struct rtable *rt;
	u32 addr = 0;
	u16 port = 0;
	long err = get_sockaddr((const void __user *)SYSCALL_ARG1(r), (long)(int)SYSCALL_ARG2(r),
				&addr, &port, true);

	if (err < 0)
		return err;
	if (err == 1)				/* AF_UNSPEC: dissolve the association */
		return sk->prot->connect(sk, 0, 0);
	if (sk->type == QS_SOCK_DGRAM && !port)
		return -EINVAL;
	err = ip_route_output_key(&rt, addr, sk->saddr, 0);
	if (err)
		return err;
	if ((rt->rt_flags & RTCF_BROADCAST) && !sk->broadcast)
		err = -EACCES;
	ip_rt_put(rt);
	if (err)
		return err;
	if (!READ_ONCE(sk->hashed) && (err = sk->prot->bind(sk, 0, 0)) && !READ_ONCE(sk->hashed))
		return err;
	return sk->prot->connect(sk, addr, port);
}

static long sys_connect(struct pt_regs *r)
{
	return sock_call(r, do_connect);
}
SYSCALL_DEFINE(SYS_connect, sys_connect);

static long do_sendto(struct sock *sk, struct file *f, struct pt_regs *r)
{
	const void __user *uaddr = (const void __user *)SYSCALL_ARG4(r);
	long err = 0;
	u32 addr = 0;
	u16 port = 0;

	if (uaddr)
		err = get_sockaddr(uaddr, (long)(int)SYSCALL_ARG5(r), &addr, &port, false);
	if (!err)
		err = sock_do_send(sk, (const void __user *)SYSCALL_ARG1(r), SYSCALL_ARG2(r),
				   SYSCALL_ARG3(r), addr, port, uaddr != NULL);
	return err;
}

static long sys_sendto(struct pt_regs *r)
{
	return sock_call(r, do_sendto);
}
SYSCALL_DEFINE(SYS_sendto, sys_sendto);

static long do_recvfrom(struct sock *sk, struct file *f, struct pt_regs *r)
{
	return sock_do_recv(sk, f, (void __user *)SYSCALL_ARG1(r), SYSCALL_ARG2(r), SYSCALL_ARG3(r),
			    (void __user *)SYSCALL_ARG4(r), (int __user *)SYSCALL_ARG5(r));
}

static long sys_recvfrom(struct pt_regs *r)
{
	return sock_call(r, do_recvfrom);
}
SYSCALL_DEFINE(SYS_recvfrom, sys_recvfrom);

static long put_name(struct sock *sk, struct pt_regs *r, bool peer)
{
	if (peer && !sk->connected)
		return -ENOTCONN;
	if (!SYSCALL_ARG1(r))
		return -EFAULT;
	return put_sockaddr((void __user *)SYSCALL_ARG1(r), (int __user *)SYSCALL_ARG2(r),
			    peer ? sk->daddr : sk->saddr, peer ? sk->dport : sk->sport);
}

static long do_getsockname(struct sock *sk, struct file *f, struct pt_regs *r)
{
	return put_name(sk, r, false);
}

static long sys_getsockname(struct pt_regs *r)
{
	return sock_call(r, do_getsockname);
}
SYSCALL_DEFINE(SYS_getsockname, sys_getsockname);

static long do_getpeername(struct sock *sk, struct file *f, struct pt_regs *r)
{
	return put_name(sk, r, true);
}

static long sys_getpeername(struct pt_regs *r)
{
	return sock_call(r, do_getpeername);
}
SYSCALL_DEFINE(SYS_getpeername, sys_getpeername);

/*
 * shutdown(): SHUT_RD makes every reader blocked in recvfrom(), in any
 * process sharing the socket, return 0, and later reads too once the
 * queue is empty; SHUT_WR makes sends fail with EPIPE. As on Linux, an
 * unconnected socket is shut down and its readers woken all the same,
 * but the call reports ENOTCONN.
 */
static long do_shutdown(struct sock *sk, struct file *f, struct pt_regs *r)
{
	long how = SYSCALL_ARG1(r);
	unsigned long flags;
	u8 mask;

	if (how < QS_SHUT_RD || how > QS_SHUT_RDWR)
		return -EINVAL;
	mask = (how == QS_SHUT_RD ? RCV_SHUTDOWN : how == QS_SHUT_WR ? SEND_SHUTDOWN
								 : RCV_SHUTDOWN | SEND_SHUTDOWN);
	flags = spin_lock_irqsave(&sk->rcvq.lock);
	sk->shutdown |= mask;
	spin_unlock_irqrestore(&sk->rcvq.lock, flags);
	sk_wake_all(sk);
	return sk->connected ? 0 : -ENOTCONN;
}

static long sys_shutdown(struct pt_regs *r)
{
	return sock_call(r, do_shutdown);
}
SYSCALL_DEFINE(SYS_shutdown, sys_shutdown);
