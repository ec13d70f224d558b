/*
 * udpecho [-p port] [-t idle_s] [-n] [-s sink_port] [-b name]: the UDP echo server.
 *
 * Binds the port (default 7, the echo service) on every address and
 * sends each datagram back to where it came from, unchanged. It stops
 * after idle_s seconds without a datagram (default 10; a receive timeout,
 * SO_RCVTIMEO), and prints how many it echoed. Before the first datagram
 * it waits ten times as long: a sink started beside the echo server
 * (-s) hears nothing until the host has finished with the echo, however
 * long a loaded host takes over that.
 *
 * -n: a sink instead: count, do not answer, and at the end print a
 * BENCH line with the datagrams per second received between the first
 * and the last (the flood benchmark's receiving side; -b names it).
 * -s: both at once: a child process counts on sink_port while this one
 * echoes on port (the shell runs one command at a time, and a test
 * from the host wants the two).
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
#include <arpa/inet.h>
#include <quiescent.h>
#include <sys/wait.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

static int serve(int port, int idle, int sink, const char *name)
{
	struct sockaddr_in me = { .sin_family = AF_INET };
	uint64_t count = 0, bytes = 0, first = 0, last = 0;
	int rcvbuf = 1024 * 1024, fd;
	char buf[2048];
	struct timeval tv;

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0) {
		perror("udpecho: socket");
		return 1;
	}
	me.sin_port = htons(port);
	if (bind(fd, (struct sockaddr *)&me, sizeof(me)) < 0) {
		perror("udpecho: bind");
		return 1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	tv.tv_sec = 10 * idle;
	tv.tv_usec = 0;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	printf("udpecho: %s on port %d, until %d s without a datagram\n",
	       sink ? "counting" : "echoing", port, idle);
	for (;;) {
		struct sockaddr_in from;
		socklen_t flen = sizeof(from);
		long n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &flen);

		if (n < 0) {
			if (errno == EAGAIN)
				break;		/* idle long enough */
			perror("udpecho: recvfrom");
			return 1;
		}
		last = now_ns();
		if (!count) {
			first = last;
			tv.tv_sec = idle;	/* from now on, idle_s without one ends it */
			setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		}
		count++;
		bytes += n;
		if (!sink && sendto(fd, buf, n, 0, (struct sockaddr *)&from, flen) < 0 &&
		    errno != ENOBUFS)
			perror("udpecho: sendto");
	}
	printf("udpecho: %lu datagrams, %lu bytes %s on port %d\n", (unsigned long)count,
	       (unsigned long)bytes, sink ? "received" : "echoed", port);
	if (sink && count > 1) {
		struct qs_stats st;
		uint64_t ns = last - first;

		qs_stats(&st, 0);
		printf("BENCH {\"bench\":\"%s\",\"cpus\":%u,\"datagrams\":%lu,\"ns\":%lu,"
		       "\"per_s\":%lu}\n", name, st.ncpus, (unsigned long)count, (unsigned long)ns,
		       (unsigned long)((count - 1) * 1000000000ull / (ns ? ns : 1)));
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	int port = 7, idle = 10, sink = 0, sink_port = 0, st, ret;
	const char *name = "udp_flood_rx";
	pid_t child = -1;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-n"))
			sink = 1;
		else if (i + 1 < argc && !strcmp(argv[i], "-p"))
			port = atoi(argv[++i]);
		else if (i + 1 < argc && !strcmp(argv[i], "-t"))
			idle = atoi(argv[++i]);
		else if (i + 1 < argc && !strcmp(argv[i], "-s"))
			sink_port = atoi(argv[++i]);
		else if (i + 1 < argc && !strcmp(argv[i], "-b"))
			name = argv[++i];
		else {
			fprintf(stderr, "usage: udpecho [-p port] [-t idle_s] [-n] [-s sink_port] "
					"[-b bench_name]\n");
			return 2;
		}
	}
	if (sink_port) {
		child = fork();
		if (child == 0)
			_exit(serve(sink_port, idle, 1, name));
	}
	ret = serve(port, idle, sink, name);
	if (child > 0 && (waitpid(child, &st, 0) != child || !WIFEXITED(st) || WEXITSTATUS(st)))
		ret = 1;
	return ret;
}
