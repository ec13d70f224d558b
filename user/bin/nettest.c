/*
 * nettest: the socket calls against what POSIX says and Linux does, over
 * the loopback device (no NIC needed):
 *
 *   - errors: EBADF, ENOTSOCK, EFAULT (nothing lost: a datagram whose
 *     copy-out faults is still there), EINVAL, EADDRINUSE, EADDRNOTAVAIL,
 *     EAFNOSUPPORT, EPROTONOSUPPORT, EMSGSIZE, EDESTADDRREQ, ENOTCONN,
 *     ENOPROTOOPT, EDOM, EAGAIN, ENETUNREACH;
 *   - datagrams: contents, source address and port, connect/read/write,
 *     MSG_PEEK, MSG_TRUNC, truncation, empty datagrams, ephemeral ports,
 *     the receive buffer limit, ICMP port unreachable for a closed port;
 *   - blocking: a reader in another process gets a later datagram;
 *     SO_RCVTIMEO expires (never early); shutdown(SHUT_RD) in another
 *     process wakes a blocked reader; close() there does not (it keeps
 *     its own reference, as on Linux); F_SETFL O_NONBLOCK and kill()
 *     wake it too;
 *   - nothing leaked: packet buffers, sockets, open files and kmalloc
 *     objects back at their baseline.
 *
 * Prints "nettest: PASS: N checks" or each failure and FAIL.
 *
 * nettest wait PORT SECONDS: the guest's half of a test that sends it
 * bad packets from outside. Take the baseline (neighbour table and route
 * cache flushed), wait for one datagram on PORT (at most SECONDS), answer
 * "done" to its sender, flush the neighbours and routes again (the
 * sender's ARP made one, its packets cached theirs), and check that
 * packet buffers, sockets and kmalloc objects are back where they were:
 * whatever arrived in between was counted and freed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include <signal.h>
#include <time.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <quiescent.h>
#include <qs_net.h>
#include <qs_route.h>

#define CHECK_PROG "nettest"
#include <check.h>

#define KERNEL_ADDR	((void *)0xffffffff80100000UL)
#define BAD_ADDR	((void *)0x10)

static struct sockaddr_in lo_addr(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return a;
}

#define SA(p)	((struct sockaddr *)(p))

static int udp_bound(int port)
{
	struct sockaddr_in a = lo_addr(port);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	CHECK(fd >= 0, "socket");
	CHECK(bind(fd, SA(&a), sizeof(a)) == 0, "bind 127.0.0.1:%d", port);
	return fd;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static uint64_t mib(const char *name)
{
	struct qs_netstat st;
	int i = qs_net_mib_find(name);

	if (i < 0 || qs_netstat(&st) < 0)
		return ~0ull;
	return st.mib[i];
}

static void check_creation_errors(void)
{
	struct sockaddr_in a = lo_addr(7001);
	char buf[8];
	int fd;

	FAILS(socket(10, SOCK_DGRAM, 0), EAFNOSUPPORT);		/* AF_INET6 */
	FAILS(socket(AF_INET, 7, 0), EINVAL);
	FAILS(socket(AF_INET, SOCK_DGRAM | 0x100000, 0), EINVAL);
	FAILS(socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP), EPROTONOSUPPORT);
	FAILS(socket(AF_INET, SOCK_RAW, IPPROTO_UDP), EPROTONOSUPPORT);

	FAILS(bind(99, SA(&a), sizeof(a)), EBADF);
	FAILS(bind(-1, SA(&a), sizeof(a)), EBADF);
	FAILS(sendto(31, "x", 1, 0, SA(&a), sizeof(a)), EBADF);
	FAILS(recvfrom(1000, buf, 1, 0, NULL, NULL), EBADF);
	FAILS(bind(1, SA(&a), sizeof(a)), ENOTSOCK);
	FAILS(sendto(1, "x", 1, 0, SA(&a), sizeof(a)), ENOTSOCK);
	FAILS(recvfrom(0, buf, 1, MSG_DONTWAIT, NULL, NULL), ENOTSOCK);
	FAILS(connect(2, SA(&a), sizeof(a)), ENOTSOCK);
	FAILS(shutdown(1, SHUT_RD), ENOTSOCK);
	FAILS(setsockopt(1, SOL_SOCKET, SO_RCVBUF, &fd, sizeof(fd)), ENOTSOCK);

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	CHECK(fd >= 3, "socket gave %d", fd);
	struct stat st;
	CHECK(fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode), "fstat says socket (mode %o)", st.st_mode);
	close(fd);
	FAILS(bind(fd, SA(&a), sizeof(a)), EBADF);
}

static void check_bind_errors(void)
{
	struct sockaddr_in a = lo_addr(7002), b;
	int fd = socket(AF_INET, SOCK_DGRAM, 0), fd2 = socket(AF_INET, SOCK_DGRAM, 0), v;
	socklen_t len;

	FAILS(bind(fd, BAD_ADDR, sizeof(a)), EFAULT);
	FAILS(bind(fd, KERNEL_ADDR, sizeof(a)), EFAULT);
	FAILS(bind(fd, SA(&a), 3), EINVAL);
	FAILS(bind(fd, SA(&a), 200), EINVAL);
	FAILS(bind(fd, SA(&a), (socklen_t)-1), EINVAL);
	b = a;
	b.sin_family = 10;
	FAILS(bind(fd, SA(&b), sizeof(b)), EAFNOSUPPORT);
	b = a;
	b.sin_addr.s_addr = inet_addr("192.0.2.77");		/* nobody's here */
	FAILS(bind(fd, SA(&b), sizeof(b)), EADDRNOTAVAIL);
	CHECK(bind(fd, SA(&a), sizeof(a)) == 0, "bind");
	FAILS(bind(fd, SA(&a), sizeof(a)), EINVAL);		/* already bound */
	FAILS(bind(fd2, SA(&a), sizeof(a)), EADDRINUSE);
	b = a;
	b.sin_addr.s_addr = INADDR_ANY;
	FAILS(bind(fd2, SA(&b), sizeof(b)), EADDRINUSE);	/* any overlaps 127.0.0.1 */

	len = sizeof(b);
	CHECK(getsockname(fd, SA(&b), &len) == 0 && len == sizeof(b) && b.sin_port == a.sin_port &&
	      b.sin_addr.s_addr == a.sin_addr.s_addr, "getsockname");
	FAILS(getsockname(fd, SA(&b), BAD_ADDR), EFAULT);
	FAILS(getpeername(fd, SA(&b), &len), ENOTCONN);

	FAILS(setsockopt(fd, SOL_SOCKET, 999, &v, sizeof(v)), ENOPROTOOPT);
	FAILS(setsockopt(fd, 77, SO_RCVBUF, &v, sizeof(v)), ENOPROTOOPT);
	FAILS(setsockopt(fd, SOL_SOCKET, SO_RCVBUF, BAD_ADDR, sizeof(v)), EFAULT);
	FAILS(setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, 2), EINVAL);
	struct timeval tv = { 0, 2000000 };
	FAILS(setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), EDOM);
	FAILS(setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, 4), EINVAL);
	v = 0;
	FAILS(setsockopt(fd, IPPROTO_IP, IP_TTL, &v, sizeof(v)), EINVAL);
	v = 17;
	CHECK(setsockopt(fd, IPPROTO_IP, IP_TTL, &v, sizeof(v)) == 0, "IP_TTL 17");
	len = sizeof(v);
	v = 0;
	CHECK(getsockopt(fd, IPPROTO_IP, IP_TTL, &v, &len) == 0 && v == 17 && len == sizeof(v),
	      "IP_TTL reads back %d", v);
	CHECK(getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, &len) == 0 && v == SOCK_DGRAM, "SO_TYPE");
	FAILS(getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, BAD_ADDR), EFAULT);
	int neg = -1;
	FAILS(getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, (socklen_t *)&neg), EINVAL);
	FAILS(shutdown(fd, 7), EINVAL);
	close(fd);
	close(fd2);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	CHECK(bind(fd, SA(&a), sizeof(a)) == 0, "the port is free again after close");
	close(fd);
}

static void check_send_errors(void)
{
	struct sockaddr_in a = lo_addr(7003), far = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_DGRAM, 0), rx = udp_bound(7003);
	static char big[70000];
	struct qs_ifreq gw;

	FAILS(send(fd, "x", 1, 0), EDESTADDRREQ);
	FAILS(sendto(fd, BAD_ADDR, 10, 0, SA(&a), sizeof(a)), EFAULT);
	FAILS(sendto(fd, KERNEL_ADDR, 10, 0, SA(&a), sizeof(a)), EFAULT);
	FAILS(sendto(fd, "x", 1, 0, BAD_ADDR, sizeof(a)), EFAULT);
	FAILS(sendto(fd, "x", 1, 0, SA(&a), 8), EINVAL);
	FAILS(sendto(fd, "x", 1, 0x4000, SA(&a), sizeof(a)), EINVAL);
	FAILS(sendto(fd, big, 16436 - 28 + 1, 0, SA(&a), sizeof(a)), EMSGSIZE);	/* lo's MTU */
	FAILS(sendto(fd, big, sizeof(big), 0, SA(&a), sizeof(a)), EMSGSIZE);
	CHECK(sendto(fd, big, 16436 - 28, 0, SA(&a), sizeof(a)) == 16436 - 28,
	      "the largest datagram lo carries");
	CHECK(recv(rx, big, sizeof(big), MSG_DONTWAIT) == 16436 - 28, "and it arrives whole");
	struct sockaddr_in p0 = a;
	p0.sin_port = 0;
	FAILS(sendto(fd, "x", 1, 0, SA(&p0), sizeof(p0)), EINVAL);
	memset(&gw, 0, sizeof(gw));
	qs_netif(QS_NETIF_GET_GW, &gw);
	far.sin_addr.s_addr = inet_addr("192.0.2.1");
	far.sin_port = htons(9);
	if (!gw.addr)
		FAILS(sendto(fd, "x", 1, 0, SA(&far), sizeof(far)), ENETUNREACH);
	close(fd);
	close(rx);
}

static void check_datagrams(void)
{
	struct sockaddr_in a = lo_addr(7004), from, me;
	socklen_t flen;
	int rx = udp_bound(7004), tx = socket(AF_INET, SOCK_DGRAM, 0);
	char buf[256];
	long n;

	FAILS(recv(rx, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN);
	CHECK(sendto(tx, "hello", 5, 0, SA(&a), sizeof(a)) == 5, "sendto");
	flen = sizeof(me);
	CHECK(getsockname(tx, SA(&me), &flen) == 0 && ntohs(me.sin_port) >= 32768 &&
	      ntohs(me.sin_port) <= 60999, "an ephemeral port (%u)", ntohs(me.sin_port));
	flen = sizeof(from);
	memset(&from, 0, sizeof(from));
	n = recvfrom(rx, buf, sizeof(buf), 0, SA(&from), &flen);
	CHECK(n == 5 && !memcmp(buf, "hello", 5), "recvfrom got %ld bytes", n);
	CHECK(flen == sizeof(from) && from.sin_family == AF_INET && from.sin_port == me.sin_port &&
	      from.sin_addr.s_addr == htonl(INADDR_LOOPBACK), "the source address and port");

	/* A bad buffer loses nothing: the datagram is read again. */
	CHECK(sendto(tx, "again", 5, 0, SA(&a), sizeof(a)) == 5, "sendto");
	FAILS(recv(rx, BAD_ADDR, sizeof(buf), 0), EFAULT);
	FAILS(recvfrom(rx, buf, sizeof(buf), 0, SA(&from), BAD_ADDR), EFAULT);
	FAILS(recvfrom(rx, buf, sizeof(buf), 0x8000, NULL, NULL), EINVAL);
	CHECK(recv(rx, buf, sizeof(buf), 0) == 5 && !memcmp(buf, "again", 5), "still there");

	/* MSG_PEEK leaves it; truncation loses the rest; MSG_TRUNC says how long. */
	sendto(tx, "0123456789", 10, 0, SA(&a), sizeof(a));
	CHECK(recv(rx, buf, 4, MSG_PEEK) == 4 && !memcmp(buf, "0123", 4), "peek");
	CHECK(recv(rx, buf, 4, MSG_TRUNC) == 10, "MSG_TRUNC gives the real length");
	FAILS(recv(rx, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN);
	sendto(tx, "", 0, 0, SA(&a), sizeof(a));
	CHECK(recv(rx, buf, sizeof(buf), 0) == 0, "an empty datagram");

	/* connect, then write/read and send/recv; datagrams from others are filtered. */
	CHECK(connect(tx, SA(&a), sizeof(a)) == 0, "connect");
	flen = sizeof(from);
	CHECK(getpeername(tx, SA(&from), &flen) == 0 && from.sin_port == a.sin_port, "getpeername");
	CHECK(write(tx, "w", 1) == 1 && read(rx, buf, sizeof(buf)) == 1 && buf[0] == 'w',
	      "write and read");
	struct sockaddr_in back = me;
	back.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	CHECK(connect(rx, SA(&back), sizeof(back)) == 0, "connect back");
	int other = socket(AF_INET, SOCK_DGRAM, 0);
	sendto(other, "stranger", 8, 0, SA(&a), sizeof(a));
	CHECK(send(tx, "friend", 6, 0) == 6, "send");
	CHECK(recv(rx, buf, sizeof(buf), 0) == 6 && !memcmp(buf, "friend", 6),
	      "a connected socket hears only its peer");
	FAILS(recv(rx, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN);
	struct sockaddr unspec = { .sa_family = AF_UNSPEC };
	CHECK(connect(rx, &unspec, sizeof(unspec)) == 0, "AF_UNSPEC dissolves it");
	close(other);

	/* O_NONBLOCK and SOCK_NONBLOCK. */
	CHECK(fcntl(rx, F_SETFL, O_NONBLOCK) == 0, "F_SETFL");
	FAILS(recv(rx, buf, sizeof(buf), 0), EAGAIN);
	FAILS(read(rx, buf, sizeof(buf)), EAGAIN);
	fcntl(rx, F_SETFL, 0);
	int nb = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	FAILS(recv(nb, buf, sizeof(buf), 0), EAGAIN);
	close(nb);
	close(rx);
	close(tx);
}

static void check_limits(void)
{
	struct sockaddr_in a = lo_addr(7005), c = lo_addr(7006);
	int rx = udp_bound(7005), tx = socket(AF_INET, SOCK_DGRAM, 0), v = 2048, got = 0;
	uint64_t before = mib("udp_rcvbuf_errors"), unreach = mib("udp_no_ports");
	uint64_t icmp = mib("icmp_out_dest_unreachs");
	char buf[512];

	CHECK(setsockopt(rx, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)) == 0, "SO_RCVBUF 2048");
	for (int i = 0; i < 10; i++)
		sendto(tx, buf, 500, 0, SA(&a), sizeof(a));
	while (recv(rx, buf, sizeof(buf), MSG_DONTWAIT) == 500)
		got++;
	CHECK(got >= 1 && got < 10, "a full receive buffer drops (%d of 10 kept)", got);
	CHECK(mib("udp_rcvbuf_errors") - before == (uint64_t)(10 - got), "and counts them");
	CHECK(sendto(tx, "x", 1, 0, SA(&c), sizeof(c)) == 1, "to a closed port");
	CHECK(mib("udp_no_ports") == unreach + 1 && mib("icmp_out_dest_unreachs") == icmp + 1,
	      "no port: counted, port unreachable sent");
	close(rx);
	close(tx);
}

/* Fork a reader blocked in recvfrom on fd; what it gets is its exit status. */
static pid_t blocked_reader(int fd)
{
	pid_t pid = fork();

	if (pid == 0) {
		char buf[64];
		long n = recv(fd, buf, sizeof(buf), 0);

		if (n > 0)
			_exit(10 + (int)n);	/* a datagram of n bytes */
		_exit(n == 0 ? 2 : errno == EAGAIN ? 3 : errno == EINTR ? 4 : 5);
	}
	return pid;
}

/* The child's status once it ends, waiting at most ms; -1 if it did not. */
static int reap(pid_t pid, int ms)
{
	int st;

	for (int t = 0; t < ms; t += 10) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return st;
		usleep(10000);
	}
	return -1;
}

/* A reader that should have ended but did not: end it (the check failed). */
static void cleanup(pid_t pid, int st)
{
	if (st == -1) {
		kill(pid, SIGKILL);
		reap(pid, 5000);
	}
}

static void check_blocking(void)
{
	struct sockaddr_in a = lo_addr(7007);
	struct timeval tv = { 0, 300000 };
	int rx = udp_bound(7007), tx = socket(AF_INET, SOCK_DGRAM, 0), st;
	char buf[16];
	pid_t pid;

	/* A blocked reader gets a datagram sent later. */
	pid = blocked_reader(rx);
	usleep(100000);
	sendto(tx, "late", 4, 0, SA(&a), sizeof(a));
	st = reap(pid, 5000);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 14, "a blocked reader woke with the datagram (%#x)", st);
	cleanup(pid, st);

	/* SO_RCVTIMEO: EAGAIN, never early. */
	CHECK(setsockopt(rx, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == 0, "SO_RCVTIMEO");
	socklen_t len = sizeof(tv);
	struct timeval back;
	CHECK(getsockopt(rx, SOL_SOCKET, SO_RCVTIMEO, &back, &len) == 0 && back.tv_sec == 0 &&
	      back.tv_usec == 300000, "reads back %ld.%06ld", (long)back.tv_sec, back.tv_usec);
	uint64_t t0 = now_ms();
	FAILS(recv(rx, buf, sizeof(buf), 0), EAGAIN);
	uint64_t waited = now_ms() - t0;
	CHECK(waited >= 290, "waited %lu ms of 300", (unsigned long)waited);
	tv.tv_usec = 0;
	setsockopt(rx, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));	/* forever again */

	/* F_SETFL O_NONBLOCK from another process wakes a blocked reader. */
	pid = blocked_reader(rx);
	usleep(100000);
	fcntl(rx, F_SETFL, O_NONBLOCK);
	st = reap(pid, 5000);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 3, "O_NONBLOCK woke it with EAGAIN (%#x)", st);
	cleanup(pid, st);
	fcntl(rx, F_SETFL, 0);

	/* kill() wakes it (it ends with the signal). */
	pid = blocked_reader(rx);
	usleep(100000);
	kill(pid, SIGTERM);
	st = reap(pid, 5000);
	CHECK(st >= 0 && WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "kill ended it (%#x)", st);
	cleanup(pid, st);

	/* close() here does not wake a reader in another process: it holds
	 * the socket; a datagram still reaches it. shutdown() does wake it. */
	pid = blocked_reader(rx);
	usleep(100000);
	close(rx);
	st = reap(pid, 300);
	CHECK(st == -1, "close in another process leaves the reader blocked (%#x)", st);
	sendto(tx, "after close", 11, 0, SA(&a), sizeof(a));
	st = reap(pid, 5000);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 21, "and the socket still works for it (%#x)", st);
	cleanup(pid, st);

	rx = udp_bound(7007);
	pid = blocked_reader(rx);
	usleep(100000);
	errno = 0;
	long r = shutdown(rx, SHUT_RD);
	CHECK(r == -1 && errno == ENOTCONN, "shutdown of an unconnected socket says ENOTCONN");
	st = reap(pid, 5000);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 2, "shutdown woke the reader: recv 0 (%#x)", st);
	cleanup(pid, st);
	CHECK(recv(rx, buf, sizeof(buf), 0) == 0, "and reads after it return 0 at once");
	close(rx);
	close(tx);
}

static bool same(const char *what, uint64_t before, uint64_t after)
{
	if (before != after)
		printf("nettest: %s %lu -> %lu\n", what, (unsigned long)before, (unsigned long)after);
	return before == after;
}

/* Retry for a second: packets still in flight are freed in softirqs. */
static bool back_at_baseline(const struct qs_stats *s0, const struct qs_netstat *n0)
{
	struct qs_netstat n1;
	struct qs_stats s1;
	bool ok = true;

	for (int tries = 0; tries < 50; tries++) {
		qs_rtcache(QS_RTCACHE_FLUSH, 0, NULL, 0);	/* routes cached meanwhile */
		qs_stats(&s1, QS_STATS_SYNC);
		qs_netstat(&n1);
		if (n1.skbs_alive == n0->skbs_alive && n1.sockets_alive == n0->sockets_alive &&
		    s1.kmalloc_objects == s0->kmalloc_objects && s1.files_open == s0->files_open &&
		    s1.kmalloc_bytes == s0->kmalloc_bytes)
			break;
		usleep(20000);
	}
	ok &= same("packet buffers", n0->skbs_alive, n1.skbs_alive);
	ok &= same("sockets", n0->sockets_alive, n1.sockets_alive);
	ok &= same("open files", s0->files_open, s1.files_open);
	ok &= same("kmalloc objects", s0->kmalloc_objects, s1.kmalloc_objects);
	ok &= same("kmalloc bytes", s0->kmalloc_bytes, s1.kmalloc_bytes);
	return ok;
}

static int wait_mode(int port, int secs)
{
	struct sockaddr_in me = { .sin_family = AF_INET, .sin_port = htons(port) }, from;
	struct timeval tv = { secs, 0 };
	struct qs_netstat n0;
	struct qs_stats s0;
	socklen_t flen = sizeof(from);
	char buf[64];
	int fd;

	/* The socket first: it is part of the baseline, as is its port. */
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, SA(&me), sizeof(me)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0) {
		perror("nettest: socket");
		return 1;
	}
	qs_neigh(QS_NEIGH_FLUSH, 0, NULL);
	qs_rtcache(QS_RTCACHE_FLUSH, 0, NULL, 0);
	qs_stats(&s0, QS_STATS_SYNC);
	qs_netstat(&n0);
	printf("nettest: baseline taken (%lu packet buffers, %lu kmalloc objects); waiting on port %d\n",
	       (unsigned long)n0.skbs_alive, (unsigned long)s0.kmalloc_objects, port);
	if (recvfrom(fd, buf, sizeof(buf), 0, SA(&from), &flen) < 0) {
		perror("nettest: waiting");
		return 1;
	}
	sendto(fd, "done", 4, 0, SA(&from), flen);
	usleep(200000);			/* the answer on its way out */
	qs_neigh(QS_NEIGH_FLUSH, 0, NULL);
	if (!back_at_baseline(&s0, &n0)) {
		printf("nettest: FAIL: allocations not back at the baseline\n");
		return 1;
	}
	printf("nettest: PASS: allocations back at the baseline after the datagram from %s\n",
	       inet_ntoa(from.sin_addr));
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	struct qs_netstat n0;
	struct qs_stats s0;

	if (argc == 4 && !strcmp(argv[1], "wait"))
		return wait_mode(atoi(argv[2]), atoi(argv[3]));
	if (argc != 1) {
		fprintf(stderr, "usage: nettest [wait PORT SECONDS]\n");
		return 2;
	}
	/* Warm-up: the first use of each path may allocate for good. */
	check_datagrams();
	qs_rtcache(QS_RTCACHE_FLUSH, 0, NULL, 0);
	qs_stats(&s0, QS_STATS_SYNC);
	qs_netstat(&n0);

	check_creation_errors();
	check_bind_errors();
	check_send_errors();
	check_datagrams();
	check_limits();
	check_blocking();

	CHECK(back_at_baseline(&s0, &n0), "allocations back at the baseline");
	return check_summary();
}
