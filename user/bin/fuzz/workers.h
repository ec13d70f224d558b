/*
 * The workers' coordination: the messages a worker sends the parent
 * through one pipe (a program that found new edges, its counts), each at
 * most PIPE_BUF so that writers never interleave, and the worker's own
 * corpus of programs that found something.
 */
#ifndef _FUZZ_WORKERS_H
#define _FUZZ_WORKERS_H

/* ---------------------------------------------------------------- the workers */
enum { MSG_NEW = 'N', MSG_STATS = 'S' };

struct msg_head {
	uint16_t len;		/* the whole message */
	uint8_t type, worker;
	uint32_t nedges;	/* MSG_NEW: then the edges, then the program's text */
	uint32_t progs, hangs, signaled, collides;
	uint32_t collide_ms;	/* the worker's time in collides, of its phase */
};

static int msg_fd;

static void send_new(const struct run_result *r, const char *text)
{
	char m[QS_PIPE_BUF];
	struct msg_head *h = (void *)m;
	int tl = strlen(text) + 1, room = (int)(sizeof(m) - sizeof(*h) - tl) / 4;
	int n = r->nedges < room ? r->nedges : room;

	memset(h, 0, sizeof(*h));
	h->type = MSG_NEW;
	h->worker = worker_id;
	h->nedges = n;
	memcpy(m + sizeof(*h), r->edges, n * 4);
	memcpy(m + sizeof(*h) + n * 4, text, tl);
	h->len = sizeof(*h) + n * 4 + tl;
	write(msg_fd, m, h->len);	/* at most PIPE_BUF: one piece */
}

static void send_stats(long progs, long hangs, long signaled, long collides, long collide_ms)
{
	struct msg_head h = { sizeof(h), MSG_STATS, worker_id, 0, progs, hangs, signaled, collides,
			      collide_ms };

	write(msg_fd, &h, sizeof(h));
}

#define CORPUS_MAX	192

static struct fz_prog *corpus[CORPUS_MAX];
static int ncorpus;
static bool log_all;

static void keep(const struct fz_prog *p)
{
	struct fz_prog *c = malloc(sizeof(*c));

	if (!c)
		return;
	*c = *p;
	if (ncorpus < CORPUS_MAX)
		corpus[ncorpus++] = c;
	else {
		int victim = rnd() % CORPUS_MAX;

		free(corpus[victim]);
		corpus[victim] = c;
	}
}

#endif
