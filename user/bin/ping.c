/*
 * ping [-c count] [-i interval_ms] [-W wait_ms] [-w deadline_s] [-s size] [-q] host
 *
 * ICMP echo over a raw socket (socket(AF_INET, SOCK_RAW, IPPROTO_ICMP)):
 * send an echo request with our identifier (the pid) and a sequence
 * number, then read the socket, which sees every ICMP packet arriving
 * with its IP header, until our reply comes or the wait runs out
 * (SO_RCVTIMEO). The payload starts with the send time, so the round
 * trip needs no table.
 *
 * Without -w: count requests (default 4), then the summary; success if
 * any reply came. With -w: requests until count replies or the deadline
 * (a peer still booting is waited for); success only if count replies
 * came, as Linux's ping does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <time.h>
#include <sys/time.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/ip_icmp.h>
#include <arpa/inet.h>

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static uint16_t checksum(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint32_t sum = 0;

	for (; len > 1; len -= 2, p += 2)
		sum += (uint32_t)(p[0] | p[1] << 8);
	if (len)
		sum += p[0];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void usage(void)
{
	fprintf(stderr, "usage: ping [-c count] [-i interval_ms] [-W wait_ms] [-w deadline_s] "
			"[-s size] [-q] host\n");
	exit(2);
}

struct opts {
	long count, interval_ms, wait_ms, deadline_s, size;
	int quiet;
	struct sockaddr_in to;
};

static void parse(int argc, char **argv, struct opts *o)
{
	int i;

	o->count = 4;
	o->interval_ms = 1000;
	o->wait_ms = 1000;
	o->deadline_s = 0;
	o->size = 56;
	o->quiet = 0;
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		char opt = argv[i][1];

		if (opt == 'q') {
			o->quiet = 1;
			continue;
		}
		if (i + 1 >= argc)
			usage();
		long v = atol(argv[++i]);
		switch (opt) {
		case 'c': o->count = v; break;
		case 'i': o->interval_ms = v; break;
		case 'W': o->wait_ms = v; break;
		case 'w': o->deadline_s = v; break;
		case 's': o->size = v; break;
		default: usage();
		}
	}
	if (i != argc - 1 || o->count < 1 || o->size < 8 || o->size > 1400 || o->wait_ms < 1)
		usage();
	memset(&o->to, 0, sizeof(o->to));
	o->to.sin_family = AF_INET;
	if (!inet_aton(argv[i], &o->to.sin_addr)) {
		fprintf(stderr, "ping: %s: not an IPv4 address\n", argv[i]);
		exit(2);
	}
}

/* Wait up to wait_ms for the reply to seq; its round trip in us, or -1. */
static long await_reply(int fd, const struct opts *o, uint16_t id, uint16_t seq)
{
	uint64_t until = now_us() + (uint64_t)o->wait_ms * 1000;
	char buf[2048];

	for (;;) {
		uint64_t now = now_us();
		struct timeval tv;
		struct sockaddr_in from;
		socklen_t flen = sizeof(from);
		long n;

		if (now >= until)
			return -1;
		tv.tv_sec = (until - now) / 1000000;
		tv.tv_usec = (until - now) % 1000000;
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &flen);
		if (n < 0) {
			if (errno == EAGAIN)
				return -1;
			perror("ping: recvfrom");
			return -1;
		}
		struct iphdr *ip = (struct iphdr *)buf;
		if (n < (long)sizeof(*ip) || n < ip->ihl * 4 + (long)sizeof(struct icmphdr))
			continue;
		struct icmphdr *ic = (struct icmphdr *)(buf + ip->ihl * 4);
		if (ic->type != ICMP_ECHOREPLY || ic->id != htons(id) || ic->sequence != htons(seq) ||
		    from.sin_addr.s_addr != o->to.sin_addr.s_addr)
			continue;
		uint64_t sent;
		long rtt;
		memcpy(&sent, ic + 1, sizeof(sent));
		rtt = (long)(now_us() - sent);
		if (!o->quiet)
			printf("%ld bytes from %s: icmp_seq=%u ttl=%u time=%ld.%03ld ms\n",
			       n - ip->ihl * 4, inet_ntoa(from.sin_addr), seq, ip->ttl,
			       rtt / 1000, rtt % 1000);
		return rtt;
	}
}

int main(int argc, char **argv)
{
	struct opts o;
	uint16_t id = (uint16_t)getpid();
	long sent = 0, received = 0, min = -1, max = 0, total = 0;
	uint64_t start, deadline;
	char pkt[1500];
	int fd;

	parse(argc, argv, &o);
	fd = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
	if (fd < 0) {
		perror("ping: socket");
		return 2;
	}
	printf("PING %s: %ld data bytes\n", inet_ntoa(o.to.sin_addr), o.size);
	start = now_us();
	deadline = start + (uint64_t)o.deadline_s * 1000000;
	for (uint16_t seq = 1;; seq++) {
		struct icmphdr *ic = (struct icmphdr *)pkt;
		uint64_t t = now_us();
		long rtt;

		if (o.deadline_s ? (received >= o.count || t >= deadline) : sent >= o.count)
			break;
		memset(pkt, 0, sizeof(*ic) + o.size);
		ic->type = ICMP_ECHO;
		ic->id = htons(id);
		ic->sequence = htons(seq);
		memcpy(ic + 1, &t, sizeof(t));
		for (long i = 8; i < o.size; i++)
			pkt[sizeof(*ic) + i] = (char)i;
		ic->checksum = checksum(pkt, sizeof(*ic) + o.size);
		if (sendto(fd, pkt, sizeof(*ic) + o.size, 0, (struct sockaddr *)&o.to,
			   sizeof(o.to)) < 0) {
			perror("ping: sendto");
			break;
		}
		sent++;
		rtt = await_reply(fd, &o, id, seq);
		if (rtt >= 0) {
			received++;
			total += rtt;
			min = min < 0 || rtt < min ? rtt : min;
			max = rtt > max ? rtt : max;
		}
		/* The rest of the interval, unless this was the last. */
		uint64_t next = t + (uint64_t)o.interval_ms * 1000;
		if (now_us() < next && (o.deadline_s ? received < o.count : sent < o.count))
			usleep(next - now_us());
	}
	printf("--- %s ping statistics ---\n", inet_ntoa(o.to.sin_addr));
	printf("%ld packets transmitted, %ld received, %ld%% packet loss\n", sent, received,
	       sent ? (sent - received) * 100 / sent : 0);
	if (received)
		printf("rtt min/avg/max = %ld.%03ld/%ld.%03ld/%ld.%03ld ms\n", min / 1000, min % 1000,
		       total / received / 1000, total / received % 1000, max / 1000, max % 1000);
	close(fd);
	if (o.deadline_s)
		return received >= o.count ? 0 : 1;
	return received ? 0 : 1;
}
