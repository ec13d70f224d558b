/*
 * chat: the chat benchmark of seed 000 Figure 11, over UDP on the
 * loopback interface (docs/chat.md).
 *
 *   chat [-r rooms] [-c clients] [-m messages] [-w window] [-b bytes] [-t tag]
 *
 * rooms x clients processes (default 2 x 3); each client sends `messages`
 * messages (default 20) of `bytes` bytes (default 100) to every other
 * client of its room, and reads every message the others of its room
 * send: each message is written by one client and read by clients - 1.
 * Every client is one process with one UDP socket bound on 127.0.0.1, so
 * every send and every receive looks its descriptor up (fget(): files=rcu
 * or files=lock) and every datagram crosses the loopback device, the
 * route cache and the socket's receive queue.
 *
 * Flow control. The original ran over TCP, whose window stops a sender
 * that gets ahead of its slowest reader; UDP instead drops what a full
 * receive queue cannot hold. So a sender here may be at most `window`
 * messages (default 8) ahead of what each reader in its room has
 * acknowledged; a reader acknowledges (cumulatively, with how many it has
 * read from that sender) every window/2 messages and at the last. Each
 * reader's queue then holds at most (clients - 1) x window messages and
 * a few acknowledgements, far under its receive buffer. A send the
 * kernel refuses because lo's transmit queue is full (ENOBUFS: not sent)
 * is sent again after a wait, and counted. So nothing is lost, and that
 * is checked: every message (room, sender, sequence number, the bytes)
 * is counted once (a bitmap per sender), and a client that waits
 * CHAT_STALL_S seconds for a datagram reports what it is missing and
 * fails: lost = 0 is a result, not an assumption.
 *
 * The parent starts the clients, waits until every socket is bound (READY),
 * starts the clock and tells all to go (GO), and stops it when the last
 * one has read everything (DONE). It prints the throughput (messages read
 * per second, each message counted once per reader) as a BENCH line with
 * the RCU variant and `tag` (tools/chatbench.py passes files=rcu|lock).
 * Exit status 0 only if every message was delivered, once, intact.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <time.h>
#include <sched.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <quiescent.h>

#define CTRL_PORT	7500
#define BASE_PORT	20000
#define MAX_CLIENTS	120	/* processes: the kernel's MAX_PROCESSES is 128 */
#define MAX_ROOM	32
#define MAX_BYTES	1024
#define CHAT_STALL_S	10

enum { DATA = 1, ACK, READY, GO, DONE };

struct hdr {
	uint32_t type, room, from, seq;	/* ACK: seq = messages read from the receiver */
	uint64_t a, b, c;		/* DONE: messages read, errors, ENOBUFS waits */
};

static int rooms = 2, clients = 3, messages = 20, window = 8, bytes = 100;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct sockaddr_in addr_of(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };

	a.sin_port = htons(port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return a;
}

static int open_socket(int port)
{
	struct sockaddr_in me = addr_of(port);
	struct timeval tv = { .tv_sec = CHAT_STALL_S };
	int fd = socket(AF_INET, SOCK_DGRAM, 0), rcvbuf = 512 * 1024;

	if (fd < 0 || bind(fd, (struct sockaddr *)&me, sizeof(me)) < 0) {
		printf("chat: socket on port %d: %s\n", port, strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

/*
 * sendto, waiting while the kernel has no room (ENOBUFS: lo's transmit
 * queue is full, and the datagram was not sent) rather than losing it:
 * the kernel's own flow control, as a TCP send would block. Counted.
 */
static unsigned long enobufs;

static int send_to(int fd, int port, const void *buf, size_t n)
{
	struct sockaddr_in to = addr_of(port);
	uint64_t t0 = 0;

	for (int tries = 0; ; tries++) {
		if (sendto(fd, buf, n, 0, (struct sockaddr *)&to, sizeof(to)) == (long)n)
			return 0;
		if (errno != ENOBUFS)
			break;
		enobufs++;
		if (!t0)
			t0 = now_ns();
		else if (now_ns() - t0 > CHAT_STALL_S * 1000000000ull)
			break;
		if (tries < 8)
			sched_yield();
		else
			usleep(1000);
	}
	printf("chat: sendto port %d: %s\n", port, strerror(errno));
	return -1;
}

static uint8_t payload_byte(int room, int from, int seq, int i)
{
	return (uint8_t)(room * 131 + from * 31 + seq * 7 + i);
}

/* One client: room r, index i in it. Returns 0 if it read every message intact. */
static int client(int r, int i)
{
	int me = r * clients + i, fd = open_socket(BASE_PORT + me), go = 0, sent = 0, bad = 0;
	int nread[MAX_ROOM] = { 0 }, acked[MAX_ROOM] = { 0 }, total_read = 0;
	int want = (clients - 1) * messages, every = window / 2 > 0 ? window / 2 : 1;
	size_t len = sizeof(struct hdr) + bytes;
	char *buf = malloc(len + 64), *out = malloc(len);
	uint8_t *seen = calloc((size_t)clients * messages / 8 + 1, 1);
	struct hdr h = { .type = READY, .room = r, .from = me };

	if (fd < 0 || !buf || !out || !seen)
		return 1;
	if (send_to(fd, CTRL_PORT, &h, sizeof(h)))
		return 1;
	for (;;) {
		int min_acked = messages;

		for (int j = 0; j < clients; j++)
			if (j != i && acked[j] < min_acked)
				min_acked = acked[j];
		if (sent == messages && min_acked == messages && total_read == want)
			break;
		if (go && sent < messages && sent - min_acked < window) {
			struct hdr *m = (struct hdr *)out;

			*m = (struct hdr){ .type = DATA, .room = r, .from = i, .seq = sent };
			for (int k = 0; k < bytes; k++)
				out[sizeof(*m) + k] = (char)payload_byte(r, i, sent, k);
			for (int j = 0; j < clients; j++)
				if (j != i && send_to(fd, BASE_PORT + r * clients + j, out, len))
					return 1;
			sent++;
			continue;
		}
		long n = recv(fd, buf, len + 64, 0);
		struct hdr *m = (struct hdr *)buf;

		if (n < 0) {
			printf("chat: client %d.%d: %s after %d s: sent %d, read %d of %d, "
			       "lowest ack %d: lost datagrams\n", r, i,
			       errno == EAGAIN ? "nothing" : strerror(errno), CHAT_STALL_S, sent,
			       total_read, want, min_acked);
			return 1;
		}
		if (n < (long)sizeof(*m)) {
			bad++;
			continue;
		}
		if (m->type == GO) {
			go = 1;
		} else if (m->type == ACK && m->room == (uint32_t)r && m->from < (uint32_t)clients) {
			if ((int)m->seq > acked[m->from])
				acked[m->from] = (int)m->seq;
		} else if (m->type == DATA && n == (long)len && m->room == (uint32_t)r &&
			   m->from < (uint32_t)clients && m->from != (uint32_t)i &&
			   m->seq < (uint32_t)messages) {
			int seq = (int)m->seq, bit = (int)m->from * messages + seq;
			int ok = !(seen[bit / 8] & (1 << bit % 8));

			for (int k = 0; k < bytes && ok; k++)
				ok = (uint8_t)buf[sizeof(*m) + k] == payload_byte(r, (int)m->from, seq, k);
			if (!ok) {
				bad++;		/* a duplicate or damaged message */
				continue;
			}
			seen[bit / 8] |= 1 << bit % 8;
			total_read++;
			if (++nread[m->from] % every == 0 || nread[m->from] == messages) {
				struct hdr a = { .type = ACK, .room = r, .from = i, .seq = nread[m->from] };

				if (send_to(fd, BASE_PORT + r * clients + m->from, &a, sizeof(a)))
					return 1;
			}
		} else {
			bad++;
		}
	}
	h = (struct hdr){ .type = DONE, .room = r, .from = me, .a = total_read, .b = bad,
			  .c = enobufs };
	if (send_to(fd, CTRL_PORT, &h, sizeof(h)))
		return 1;
	close(fd);
	return bad != 0;
}

/* Reap the clients that have exited (kids[k] = 0 once reaped); how many are. */
static int reap(pid_t kids[], int status[], int n)
{
	int done = 0;

	for (int k = 0; k < n; k++) {
		if (kids[k] && waitpid(kids[k], &status[k], WNOHANG) == kids[k])
			kids[k] = 0;
		done += !kids[k];
	}
	return done;
}

int main(int argc, char **argv)
{
	const char *tag = "";
	pid_t kids[MAX_CLIENTS];
	int status[MAX_CLIENTS];
	int n, fd, got = 0, bad = 0;
	uint64_t t0, ns, read = 0, errors = 0, waits = 0, want;
	struct qs_stats st;
	struct hdr h;

	for (int i = 1; i < argc; i++) {
		int *v = NULL;

		if (i + 1 < argc && !strcmp(argv[i], "-r"))
			v = &rooms;
		else if (i + 1 < argc && !strcmp(argv[i], "-c"))
			v = &clients;
		else if (i + 1 < argc && !strcmp(argv[i], "-m"))
			v = &messages;
		else if (i + 1 < argc && !strcmp(argv[i], "-w"))
			v = &window;
		else if (i + 1 < argc && !strcmp(argv[i], "-b"))
			v = &bytes;
		else if (i + 1 < argc && !strcmp(argv[i], "-t")) {
			tag = argv[++i];
			continue;
		}
		if (!v) {
			fprintf(stderr, "usage: chat [-r rooms] [-c clients] [-m messages] [-w window] "
					"[-b bytes] [-t tag]\n");
			return 2;
		}
		*v = atoi(argv[++i]);
	}
	n = rooms * clients;
	if (rooms < 1 || clients < 2 || clients > MAX_ROOM || n > MAX_CLIENTS || messages < 1 ||
	    messages > 100000 || window < 1 || bytes < 0 || bytes > MAX_BYTES) {
		fprintf(stderr, "chat: rooms >= 1, 2..%d clients a room, at most %d clients in all "
				"(processes), 1..100000 messages, window >= 1, 0..%d bytes\n",
			MAX_ROOM, MAX_CLIENTS, MAX_BYTES);
		return 2;
	}
	fd = open_socket(CTRL_PORT);
	if (fd < 0)
		return 1;
	qs_stats(&st, 0);
	printf("chat: %d rooms x %d clients, %d messages of %d bytes from each client, window %d, "
	       "%s, %u CPUs%s%s\n", rooms, clients, messages, bytes, window, st.rcu_variant,
	       st.ncpus, *tag ? ", " : "", tag);
	for (int k = 0; k < n; k++) {
		pid_t pid = fork();

		if (pid == 0) {
			close(fd);
			_exit(client(k / clients, k % clients));
		}
		if (pid < 0) {
			printf("chat: fork of client %d: %s\n", k, strerror(errno));
			return 1;	/* the clients forked so far stall and fail */
		}
		kids[k] = pid;
	}
	while (got < n && recv(fd, &h, sizeof(h), 0) == sizeof(h))
		got += h.type == READY;
	if (got < n) {
		printf("chat: only %d of %d clients ready\n", got, n);
		bad = 1;
	}
	t0 = now_ns();
	h = (struct hdr){ .type = GO };
	for (int k = 0; k < n && !bad; k++)
		if (send_to(fd, BASE_PORT + k, &h, sizeof(h)))
			bad = 1;
	/*
	 * A run may take longer than the socket's timeout: a timeout only
	 * ends the wait once every client has exited (one that failed said
	 * why, and sent no DONE).
	 */
	for (got = 0; got < n && !bad; ) {
		if (recv(fd, &h, sizeof(h), 0) == sizeof(h)) {
			if (h.type == DONE) {
				got++;
				read += h.a;
				errors += h.b;
				waits += h.c;
			}
			continue;
		}
		if (reap(kids, status, n) == n)
			break;
	}
	ns = now_ns() - t0;
	while (reap(kids, status, n) < n)
		sched_yield();
	for (int k = 0; k < n; k++)
		if (!WIFEXITED(status[k]) || WEXITSTATUS(status[k])) {
			printf("chat: client %d.%d failed (status %#x)\n", k / clients, k % clients,
			       status[k]);
			bad = 1;
		}
	close(fd);
	want = (uint64_t)n * (clients - 1) * messages;
	printf("chat: %lu of %lu messages read (%lu sent), %lu bad, lost %lu, in %lu.%03lu s: "
	       "%lu messages read per second (%lu sends waited for lo's queue)\n",
	       (unsigned long)read, (unsigned long)want,
	       (unsigned long)n * messages, (unsigned long)errors, (unsigned long)(want - read),
	       (unsigned long)(ns / 1000000000), (unsigned long)(ns / 1000000 % 1000),
	       (unsigned long)(read * 1000000000ull / (ns ? ns : 1)), (unsigned long)waits);
	if (!bad && read == want && !errors)
		printf("BENCH {\"bench\":\"chat\",\"variant\":\"%s\",\"tag\":\"%s\",\"cpus\":%u,"
		       "\"rooms\":%d,\"clients\":%d,\"messages\":%d,\"bytes\":%d,\"window\":%d,"
		       "\"read\":%lu,\"lost\":0,\"ns\":%lu,\"per_s\":%lu}\n", st.rcu_variant, tag,
		       st.ncpus, rooms, clients, messages, bytes, window, (unsigned long)read,
		       (unsigned long)ns, (unsigned long)(read * 1000000000ull / (ns ? ns : 1)));
	if (bad || read != want || errors) {
		printf("chat: FAIL: every message must be read once, intact, by every other client "
		       "of its room\n");
		return 1;
	}
	printf("chat: PASS: every message read once, intact, by every other client of its room\n");
	return 0;
}
