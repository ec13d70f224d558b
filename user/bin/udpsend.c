/*
 * udpsend [-c count] [-s size] [-f] [-W wait_ms] [-b name] host port: a UDP client.
 *
 * Round trips (the default): once the server has answered a first,
 * untimed datagram (it may still be starting), send count datagrams of
 * size bytes to it one at a time, each carrying its sequence number and
 * a pattern made from it, and wait for each to come back intact before
 * sending the next. An answer that does not come within wait_ms
 * (SO_RCVTIMEO) is asked for again, up to 5 times. Prints a BENCH line
 * with the round trips per second (-b names it); exits 0 only if every
 * datagram came back byte for byte.
 *
 * -f: a flood: count datagrams back to back, no waiting (a full device
 * queue, ENOBUFS, makes it yield and try again); a BENCH line with the
 * datagrams per second sent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <time.h>
#include <sched.h>
#include <sys/time.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <quiescent.h>

#define MAX_SIZE	1472
#define RETRIES		5

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

static void fill(char *buf, long size, uint32_t seq)
{
	memcpy(buf, &seq, sizeof(seq));
	for (long i = 4; i < size; i++)
		buf[i] = (char)(seq * 31 + i);
}

static void usage(void)
{
	fprintf(stderr, "usage: udpsend [-c count] [-s size] [-f] [-W wait_ms] [-b name] host port\n");
	exit(2);
}

static int bench_cpus(void)
{
	struct qs_stats st;

	return qs_stats(&st, 0) ? 0 : (int)st.ncpus;
}

static int flood(int fd, long count, long size, const char *name)
{
	char buf[MAX_SIZE];
	uint64_t t0 = now_ns(), ns;
	long retries = 0;

	for (long i = 0; i < count; i++) {
		fill(buf, size, (uint32_t)i);
		while (send(fd, buf, size, 0) < 0) {
			if (errno != ENOBUFS) {
				perror("udpsend: send");
				return 1;
			}
			retries++;
			sched_yield();
		}
	}
	ns = now_ns() - t0;
	printf("udpsend: flood of %ld datagrams of %ld bytes in %lu us (%ld waits for the queue)\n",
	       count, size, (unsigned long)(ns / 1000), retries);
	printf("BENCH {\"bench\":\"%s\",\"cpus\":%d,\"datagrams\":%ld,\"size\":%ld,\"ns\":%lu,"
	       "\"per_s\":%lu}\n", name, bench_cpus(), count, size, (unsigned long)ns,
	       (unsigned long)(count * 1000000000ull / (ns ? ns : 1)));
	return 0;
}

/* One round trip of datagram seq: 0, or -1 if it never came back intact. */
static int round_trip(int fd, long size, uint32_t seq, long *resent)
{
	char out[MAX_SIZE], in[MAX_SIZE + 1];

	fill(out, size, seq);
	for (int attempt = 0; attempt <= RETRIES; attempt++) {
		if (attempt)
			(*resent)++;
		if (send(fd, out, size, 0) < 0 && errno != ENOBUFS) {
			perror("udpsend: send");
			return -1;
		}
		for (;;) {
			long n = recv(fd, in, sizeof(in), 0);

			if (n < 0)
				break;		/* timed out (or refused): send again */
			if (n == size && !memcmp(in, out, size))
				return 0;
			/* A late echo of an earlier datagram, or a damaged one: skip. */
			uint32_t got = ~seq;
			if (n >= 4)
				memcpy(&got, in, sizeof(got));
			if (got == seq) {
				printf("udpsend: datagram %u came back damaged (%ld bytes)\n", seq, n);
				return -1;
			}
		}
	}
	printf("udpsend: no answer to datagram %u after %d tries\n", seq, RETRIES + 1);
	return -1;
}

int main(int argc, char **argv)
{
	long count = 100, size = 64, wait_ms = 1000, resent = 0;
	const char *name = NULL;
	struct sockaddr_in to = { .sin_family = AF_INET };
	struct timeval tv;
	int fl = 0, fd, i;
	uint64_t t0, ns;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		char opt = argv[i][1];

		if (opt == 'f') {
			fl = 1;
			continue;
		}
		if (i + 1 >= argc)
			usage();
		switch (opt) {
		case 'c': count = atol(argv[++i]); break;
		case 's': size = atol(argv[++i]); break;
		case 'W': wait_ms = atol(argv[++i]); break;
		case 'b': name = argv[++i]; break;
		default: usage();
		}
	}
	if (argc - i != 2 || count < 1 || size < 4 || size > MAX_SIZE || wait_ms < 1)
		usage();
	if (!inet_aton(argv[i], &to.sin_addr)) {
		fprintf(stderr, "udpsend: %s: not an IPv4 address\n", argv[i]);
		return 2;
	}
	to.sin_port = htons(atoi(argv[i + 1]));
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&to, sizeof(to)) < 0) {
		perror("udpsend: socket/connect");
		return 1;
	}
	if (fl)
		return flood(fd, count, size, name ? name : "udp_flood_tx");
	tv.tv_sec = wait_ms / 1000;
	tv.tv_usec = wait_ms % 1000 * 1000;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	/* Untimed: until the server answers at all (it may still be starting). */
	for (int tries = 0;; tries++) {
		long warm = 0;

		if (!round_trip(fd, size, 0xffffffffu, &warm))
			break;
		if (tries == 3) {
			printf("udpsend: %s:%s never answered\n", argv[i], argv[i + 1]);
			return 1;
		}
	}
	t0 = now_ns();
	for (long s = 0; s < count; s++)
		if (round_trip(fd, size, (uint32_t)s, &resent))
			return 1;
	ns = now_ns() - t0;
	printf("udpsend: %ld round trips of %ld bytes to %s:%s, all intact, %ld sent again, "
	       "%lu us each\n", count, size, argv[i], argv[i + 1], resent,
	       (unsigned long)(ns / count / 1000));
	printf("BENCH {\"bench\":\"%s\",\"cpus\":%d,\"round_trips\":%ld,\"size\":%ld,\"resent\":%ld,"
	       "\"ns\":%lu,\"per_s\":%lu}\n", name ? name : "udp_rtt", bench_cpus(), count, size,
	       resent, (unsigned long)ns, (unsigned long)(count * 1000000000ull / (ns ? ns : 1)));
	close(fd);
	return 0;
}
