/*
 * syzq [-d seconds] [-p procs] [-s seed] [-l] [-c corpus] | syzq -r file [-C] | syzq -t:
 * the coverage-guided fuzzer, syzkaller's loop for Quiescent
 * (docs/fuzzing.md; `fuzz` is the random one it is measured against).
 *
 * Programs are sequences of calls built from the descriptions
 * (fuzz/calls.h), a later call using what an earlier one made. They run
 * in a child of the worker, the executor (a program that crashes it or
 * hangs past its deadline ends it, and the worker starts another), with
 * KCOV on for that child only; the PCs each program
 * reached become edges, and a program that reached an edge nobody had is
 * kept in the corpus, which the workers mutate (insert, remove, change an
 * argument, splice) or add fresh programs to. One worker per CPU; the
 * parent holds the union of the edges, prints progress, and prints each
 * program that found something as it is found, which is how the host
 * keeps the corpus across boots. With -l every program is printed before
 * it runs, so that the host has what ran before a crash. -r runs the
 * programs of a file once each, for the host's reproduction and reduction;
 * -C with it prints every PC they reach, for the corpus's coverage report.
 * One program in COLLIDE_EVERY runs in two processes at once, its results
 * checked for an order that explains them (fuzz/collide.h); -t tests
 * that check.
 *
 * Before and after, as `fuzz` does: a warm-up (a tenth of the time, which
 * runs the host's corpus and learns; the main phase starts from what it
 * learnt), then the allocation counters after rcu_barrier() must be back
 * at their baseline.
 *
 * This file is the loop (a worker's, the parent's, the replay); the
 * pieces it calls are in user/bin/fuzz/, one idea each: gen.h builds
 * programs, mutate.h changes them, text.h reads and writes their text,
 * exec.h runs them in the executor, workers.h carries what a worker found
 * to the parent. They are headers, not objects, because a user program is
 * built from one .c file (the user Makefile rule).
 */
#include <stdio.h>
#include <stdarg.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sched.h>
#include <time.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <quiescent.h>
#include <qs_fs.h>
#include <qs_net.h>
#include <qs_route.h>
#include <sys/sem.h>
#include <sys/module.h>
#include <sys/trace.h>
#include <sys/kcov.h>
#include <sys/c2c.h>
#include "fuzz/prog.h"
#include "fuzz/edges.h"
#include "fuzz/rnd.h"
#include "fuzz/gen.h"
#include "fuzz/mutate.h"
#include "fuzz/text.h"
#include "fuzz/exec.h"
#include "fuzz/collide.h"
#include "fuzz/workers.h"

static int worker(int id, int ncpus, long end_ns, const char *seed_file, int nworkers)
{
	static struct run_result r;
	static char text[PROG_TEXT];
	long progs = 0, hangs = 0, signaled = 0, collides = 0, last_stats = 0, collide_ns = 0;
	char *seeds = NULL, *next = NULL;
	size_t size = 0;
	int line = 0;
	cpu_set_t set;

	worker_cpu = id % ncpus;
	worker_ncpus = ncpus;
	CPU_ZERO(&set);
	CPU_SET(worker_cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	signal(SIGPIPE, SIG_IGN);
	if (seed_file && read_file(seed_file, (void **)&seeds, &size) == 0)
		next = seeds;
	if (setuid(1000))
		return 1;
	while (now_ns() < end_ns) {
		struct fz_prog p;

		if (next && next < seeds + size) {
			/* The corpus the host kept: each worker runs its share first. */
			char *nl = line_end(next, seeds + size);
			char *this = next;

			next = nl ? nl + 1 : seeds + size;
			if (nl)
				*nl = '\0';
			if (line++ % nworkers != id || parse(this, &p))
				continue;		/* another worker's, or not a program */
		} else if (!ncorpus || rnd() % 8 == 0) {
			generate(&p);
		} else {
			p = *corpus[rnd() % ncorpus];
			mutate(&p, corpus[rnd() % ncorpus]);
		}
		if (ncpus > 1 && rnd() % COLLIDE_EVERY == 0) {
			struct fz_prog q;

			collide_of(&p, &q);
			p = q;
			collides++;
		}
		if (format(&p, text, sizeof(text)))
			continue;
		if (log_all)
			printf("syzq: run w%d %s\n", id, text);
		long t_run = now_ns();

		run(&p, have_kcov, &r);
		if (p.collide)
			collide_ns += now_ns() - t_run;
		progs++;
		hangs += r.hung;
		signaled += r.signaled;
		if (r.nedges) {
			for (int k = 0; k < r.nedges; k++)
				fz_mark(edge_map, r.edges[k]);
			keep(&p);
			send_new(&r, text);
		}
		if (now_ns() - last_stats > 1000000000L) {
			send_stats(progs, hangs, signaled, collides, collide_ns / 1000000);
			last_stats = now_ns();
		}
	}
	exec_stop();		/* before the parent counts processes */
	send_stats(progs, hangs, signaled, collides, collide_ns / 1000000);
	free(seeds);
	return collide_fails != 0;
}

/* ---------------------------------------------------------------- the parent */
struct totals {
	long progs[64], hangs[64], signaled[64], collides[64], collide_ms[64];
	long edges, corpus;
	int workers;
};

static long sum(const long *v)
{
	long s = 0;

	for (int i = 0; i < 64; i++)
		s += v[i];
	return s;
}

static void progress(const char *what, long t0, const struct totals *t)
{
	long ms = (now_ns() - t0) / 1000000, progs = sum(t->progs);
	long rate10 = ms ? progs * 10000 / ms : 0;	/* programs per 10 s: one decimal */

	/* What the races cost the rest: the workers' time in collides (two
	 * processes, the program 8 times, a fork), of all their time. */
	long share = ms && t->workers ? sum(t->collide_ms) * 100 / (ms * t->workers) : 0;

	printf("syzq: %s %ld s: %ld programs (%ld.%ld/s), %ld edges, corpus %ld, hangs %ld, "
	       "killed %ld, collides %ld (%ld%% of the time)\n", what, ms / 1000, progs, rate10 / 10,
	       rate10 % 10, t->edges, t->corpus, sum(t->hangs), sum(t->signaled), sum(t->collides),
	       share);
}

/* Where the parent keeps what a phase found, for the next phase to start from. */
#define SEEDS		"/tmp/sq-seeds"
static int save_fd = -1;

/* One message from a worker; its length, or 0 if the buffer holds less. */
static int take(const char *m, int have, struct totals *t, uint8_t *global)
{
	const struct msg_head *h = (const void *)m;

	if (have < (int)sizeof(*h) || have < h->len)
		return 0;
	if (h->worker < 64 && h->type == MSG_STATS) {
		t->progs[h->worker] = h->progs;
		t->hangs[h->worker] = h->hangs;
		t->signaled[h->worker] = h->signaled;
		t->collides[h->worker] = h->collides;
		t->collide_ms[h->worker] = h->collide_ms;
	} else if (h->type == MSG_NEW) {
		const uint32_t *e = (const void *)(m + sizeof(*h));
		int fresh = 0;

		for (uint32_t k = 0; k < h->nedges; k++)
			fresh += fz_mark(global, e[k]);
		t->edges += fresh;
		if (fresh) {
			const char *text = m + sizeof(*h) + h->nedges * 4;

			t->corpus++;
			printf("syzq: new w%d +%d %s\n", h->worker, fresh, text);
			if (save_fd >= 0) {
				write(save_fd, text, strlen(text));
				write(save_fd, "\n", 1);
			}
		}
	}
	return h->len;
}

static int fuzz_phase(const char *what, int procs, int ncpus, long seconds, unsigned long seed,
		      const char *seed_file, struct totals *t)
{
	static uint8_t global[sizeof(edge_map)];
	static char buf[2 * QS_PIPE_BUF];
	long t0 = now_ns(), end = t0 + seconds * 1000000000L, last = t0;
	int fds[2], have = 0, st, bad = 0;

	memset(t, 0, sizeof(*t));
	t->workers = procs;
	memset(global, 0, sizeof(global));
	if (pipe2(fds, 0))
		return 1;
	for (int i = 0; i < procs; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			close(fds[0]);
			msg_fd = fds[1];
			worker_id = i;
			state = seed * 0x9e3779b97f4a7c15ULL + i + 1;
			snprintf(sandbox, sizeof(sandbox), "/tmp/sq%d", i);
			mkdir(sandbox, 0777);
			if (chdir(sandbox))
				_exit(1);
			_exit(worker(i, ncpus, end, seed_file, procs));
		}
	}
	close(fds[1]);
	for (;;) {
		long n = read(fds[0], buf + have, sizeof(buf) - have);
		int used;

		if (n <= 0)
			break;			/* every worker is done */
		have += n;
		while ((used = take(buf, have, t, global)) > 0) {
			memmove(buf, buf + used, have - used);
			have -= used;
		}
		if (now_ns() - last > 5000000000L) {
			progress(what, t0, t);
			last = now_ns();
		}
	}
	close(fds[0]);
	while (wait(&st) > 0)
		bad += !WIFEXITED(st) || WEXITSTATUS(st);
	progress(what, t0, t);
	return bad;
}

/* The programs of a file, in order, once (the host's reproductions). */
static void replay_pass(char *data, size_t size)
{
	static char text[PROG_TEXT];
	static struct run_result r;
	int n = 0;

	for (char *line = data, *nl; line < data + size; line = nl ? nl + 1 : data + size) {
		struct fz_prog p;

		nl = line_end(line, data + size);
		if (nl)
			*nl = '\0';
		/* A collide's two processes run without KCOV: nothing to print. */
		if (!parse(line, &p) && !(pc_dump && p.collide) && !format(&p, text, sizeof(text))) {
			printf("syzq: replay %d %s\n", n++, text);
			run(&p, pc_dump && have_kcov, &r);
		}
		if (nl)
			*nl = '\n';
	}
}

static void take_baseline(struct qs_stats *b);

/* Twice: a warm-up, then the same after the baseline, so that a leak
 * reproduces as it was found (after a warm-up). */
static int replay(const char *file, struct qs_stats *base)
{
	char *data;
	size_t size;

	if (read_file(file, (void **)&data, &size)) {
		printf("syzq: FAIL: cannot read %s\n", file);
		return 1;
	}
	strcpy(sandbox, "/tmp/sq0");
	mkdir(sandbox, 0777);
	if (chdir(sandbox))
		return 1;
	signal(SIGPIPE, SIG_IGN);
	replay_pass(data, size);
	exec_stop();
	if (pc_dump) {		/* the coverage, not a reproduction: one pass */
		printf("syzq: replay done\n");
		free(data);
		return 0;
	}
	take_baseline(base);
	replay_pass(data, size);
	exec_stop();
	printf("syzq: replay done\n");
	free(data);
	return collide_fails != 0;
}

static void copy_corpus(const char *file, int fd)
{
	char *data;
	size_t size;

	if (fd < 0 || read_file(file, (void **)&data, &size))
		return;
	write(fd, data, size);
	free(data);
}

static bool same(const char *what, unsigned long before, unsigned long after)
{
	if (before != after)
		printf("syzq: %s %lu -> %lu\n", what, before, after);
	return before == after;
}

static int baseline_check(const struct qs_stats *b)
{
	struct qs_stats a;
	bool ok = true;

	qs_rtcache(QS_RTCACHE_FLUSH, 0, NULL, 0);	/* what lookups cached is not a leak */
	qs_dcache(QS_DCACHE_SHRINK, 0, NULL);		/* nor names known absent */
	qs_stats(&a, QS_STATS_SYNC);			/* after rcu_barrier() */
	ok &= same("kmalloc objects", b->kmalloc_objects, a.kmalloc_objects);
	ok &= same("kmalloc bytes", b->kmalloc_bytes, a.kmalloc_bytes);
	ok &= same("tasks", b->tasks_alive, a.tasks_alive);
	ok &= same("processes", b->processes, a.processes);
	ok &= same("user pages", b->user_pages, a.user_pages);
	ok &= same("open files", b->files_open, a.files_open);
	ok &= same("pipes", b->pipes_open, a.pipes_open);
	if (!ok)
		printf("syzq: FAIL: allocations not back at the baseline after rcu_barrier()\n");
	return !ok;
}

static void take_baseline(struct qs_stats *b)
{
	qs_sem_table_grow();	/* its array, kept, at its largest already */
	qs_rtcache(QS_RTCACHE_FLUSH, 0, NULL, 0);
	qs_dcache(QS_DCACHE_SHRINK, 0, NULL);
	qs_stats(b, QS_STATS_SYNC);
}

int main(int argc, char **argv)
{
	long seconds = 30;
	int procs = 0, bad = 0;
	unsigned long seed = 1;
	const char *corpus_file = "/etc/fuzz/corpus", *replay_file = NULL;
	struct totals t;
	struct qs_stats base;
	struct utsname u;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-l"))
			log_all = true;
		else if (!strcmp(argv[i], "-C"))
			pc_dump = true;
		else if (!strcmp(argv[i], "-t"))
			return collide_self_test() ? 1 : 0;
		else if (i + 1 < argc && !strcmp(argv[i], "-d"))
			seconds = atol(argv[++i]);
		else if (i + 1 < argc && !strcmp(argv[i], "-p"))
			procs = atoi(argv[++i]);
		else if (i + 1 < argc && !strcmp(argv[i], "-s"))
			seed = strtoul(argv[++i], NULL, 0);
		else if (i + 1 < argc && !strcmp(argv[i], "-c"))
			corpus_file = argv[++i];
		else if (i + 1 < argc && !strcmp(argv[i], "-r"))
			replay_file = argv[++i];
		else {
			fprintf(stderr, "usage: syzq [-d seconds] [-p procs] [-s seed] [-l] [-c corpus] "
				"| syzq -r programs [-C] | syzq -t\n");
			return 2;
		}
	}
	uname(&u);
	if (procs <= 0 || procs > 64)
		procs = u.ncpus;
	for (int i = 0; i < procs; i++) {
		char dir[32];

		snprintf(dir, sizeof(dir), "/tmp/sq%d", i);
		mkdir(dir, 0777);	/* made as root, open to the workers' uid */
	}
	have_kcov = kcov(QS_KCOV_ENABLE, 1, 0) == 0;
	if (have_kcov)
		kcov(QS_KCOV_DISABLE, 0, 0);
	if (pc_dump && !replay_file) {
		fprintf(stderr, "syzq: -C prints the PCs of a replay: syzq -r programs -C\n");
		return 2;
	}
	if (replay_file) {
		collide_repeat = COLLIDE_REPLAY;	/* a race must come back on a fresh boot */
		worker_ncpus = u.ncpus;
		bad |= replay(replay_file, &base);
		return pc_dump ? bad : bad | baseline_check(&base);
	}
	printf("syzq: %d workers on %d CPUs, %ld s, seed %lu, %d calls described, coverage %s\n",
	       procs, u.ncpus, seconds, seed, NR_DESCS,
	       have_kcov ? "from KCOV" : "off (no CONFIG_KCOV: programs are generated blind)");
	/* What the kernel allocates once and keeps (the first use of a path on
	 * a CPU) is not a leak: a short warm-up before the baseline. */
	/*
	 * The warm-up runs the host's corpus first and learns; the main phase
	 * starts from that corpus and what the warm-up found (SEEDS, written
	 * before the baseline: a file of ramfs is an allocation), its edges
	 * counted afresh.
	 */
	save_fd = open(SEEDS, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	copy_corpus(corpus_file, save_fd);
	bad += fuzz_phase("warm-up", procs, u.ncpus, seconds / 10 + 1, seed + 1000, corpus_file, &t);
	close(save_fd);
	save_fd = -1;
	take_baseline(&base);
	bad += fuzz_phase("progress", procs, u.ncpus, seconds, seed, SEEDS, &t);
	bad += baseline_check(&base);
	unlink(SEEDS);
	printf("syzq: %s: %ld programs, %ld edges, corpus %ld\n", bad ? "FAIL" : "done",
	       sum(t.progs), t.edges, t.corpus);
	return bad ? 1 : 0;
}
