/* Socket calls (include/uapi/net.h, 60-72): POSIX names over the kernel's. */
#include <sys/socket.h>
#include <sys/syscall.h>
#include <errno.h>
#include <string.h>
#include <qs_net.h>

static long ret(long r)
{
	if (r < 0 && r > -4096) {
		errno = -r;
		return -1;
	}
	return r;
}

#define sc6(n, a, b, c, d, e, f) \
	__syscall6(n, (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), (long)(f))

int socket(int domain, int type, int protocol)
{
	return ret(__syscall3(SYS_socket, domain, type, protocol));
}

int bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	return ret(__syscall3(SYS_bind, fd, addr, len));
}

int connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	return ret(__syscall3(SYS_connect, fd, addr, len));
}

ssize_t sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *addr,
	       socklen_t alen)
{
	return ret(sc6(SYS_sendto, fd, buf, len, flags, addr, alen));
}

ssize_t recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *addr, socklen_t *alen)
{
	return ret(sc6(SYS_recvfrom, fd, buf, len, flags, addr, alen));
}

ssize_t send(int fd, const void *buf, size_t len, int flags)
{
	return sendto(fd, buf, len, flags, NULL, 0);
}

ssize_t recv(int fd, void *buf, size_t len, int flags)
{
	return recvfrom(fd, buf, len, flags, NULL, NULL);
}

int setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	return ret(sc6(SYS_setsockopt, fd, level, name, val, len, 0));
}

int getsockopt(int fd, int level, int name, void *val, socklen_t *len)
{
	return ret(sc6(SYS_getsockopt, fd, level, name, val, len, 0));
}

int getsockname(int fd, struct sockaddr *addr, socklen_t *len)
{
	return ret(__syscall3(SYS_getsockname, fd, addr, len));
}

int getpeername(int fd, struct sockaddr *addr, socklen_t *len)
{
	return ret(__syscall3(SYS_getpeername, fd, addr, len));
}

int shutdown(int fd, int how)
{
	return ret(__syscall2(SYS_shutdown, fd, how));
}

int qs_netif(int op, struct qs_ifreq *req)
{
	return ret(__syscall2(SYS_qs_netif, op, req));
}

int qs_netstat(struct qs_netstat *st)
{
	return ret(__syscall2(SYS_qs_netstat, st, sizeof(*st)));
}

int qs_neigh(int op, int index, struct qs_neighinfo *info)
{
	return ret(__syscall3(SYS_qs_neigh, op, index, info));
}

#define MIB_NAME(name, desc)	#name,
#define MIB_DESC(name, desc)	desc,
const char *const qs_net_mib_names[QS_NET_MIB_MAX] = { QS_NET_MIB(MIB_NAME) };
const char *const qs_net_mib_descs[QS_NET_MIB_MAX] = { QS_NET_MIB(MIB_DESC) };

int qs_net_mib_find(const char *name)
{
	for (int i = 0; i < QS_NET_MIB_MAX; i++)
		if (!strcmp(qs_net_mib_names[i], name))
			return i;
	return -1;
}
