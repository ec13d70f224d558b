/*
 * Collide: one program run by two processes at once, on two CPUs, in one
 * sandbox. syzkaller's collide mode runs a program's calls in pairs on
 * threads; this kernel's processes have no threads, so the executor forks
 * a partner for the length of one collide.
 *
 * A race in the kernel rarely crashes it; more often it answers wrongly
 * (a rename over a name that leaves a moment with neither name in the
 * cache, so that a lookup says "no such file"). Coverage cannot see a
 * wrong answer, so a collide carries its own oracle: each process records
 * its calls on names with the TSC just before and just after each, and
 * the checker looks for one order of all the calls of both that keeps
 * each process's own order and real time (a call that returned before
 * another began comes first) and in which every result is what a file
 * system doing one call at a time would have answered. No such order
 * means the calls were not atomic (Herlihy and Wing's linearizability; the
 * search is Wing and Gong's, small here: with two processes a point of it
 * is (calls of each placed, state of the names), one bit mask per pair).
 *
 * What is modelled is kept to what can be modelled exactly: mkdir, rmdir,
 * unlink, rename, stat and qs_creat on the sandbox's top-level names (/a,
 * /b, /f), whose parent (the sandbox) never moves. A name deeper down is
 * walked to outside fs_mutex, so its parent can be renamed under the walk
 * (as in Linux): its call would have two moments, not one. A program
 * whose calls are not all of these is cut down to the calls that are;
 * one with fewer than two gets a fresh program of them.
 */
#ifndef _FUZZ_COLLIDE_H
#define _FUZZ_COLLIDE_H

#define COLLIDE_ROUNDS	8	/* the program, again and again, in both */
#define COLLIDE_OPS	(COLLIDE_ROUNDS * MAX_CALLS)
#define COLLIDE_GO	200000	/* TSC ticks from the go to the start (~0.1 ms) */
#define COLLIDE_WAIT	(1UL << 32)	/* a partner waits this long for the go (seconds) */
#define COLLIDE_EVERY	32	/* one program in this many is collided */
#define COLLIDE_REPLAY	24	/* collides of each collide program in -r */

enum { N_ABSENT, N_FILE, N_DIR, N_FULL };	/* a name's state; N_FULL: a directory with entries */

struct hop {				/* one call, as it ran */
	uint64_t t0, t1;		/* TSC before the call, after it */
	int16_t res;
	uint8_t nr_i, x, y, excl;	/* nr_i: index in collide_nrs[]; x, y: name slots */
};

static const int collide_nrs[] = { SYS_mkdir, SYS_rmdir, SYS_unlink, SYS_rename, SYS_stat, SYS_qs_creat };
static const char *const collide_call[] = { "mkdir", "rmdir", "unlink", "rename", "stat", "qs_creat" };
static const int collide_names[] = { 1, 2, 6 };	/* names[]: /a, /b, /f */

static int collide_nr_index(int nr)
{
	for (int i = 0; i < N(collide_nrs); i++)
		if (collide_nrs[i] == nr)
			return i;
	return -1;
}

/* The slot of a K_PATH literal that names a top-level name, or -1. */
static int collide_slot(const struct fz_arg *a)
{
	unsigned int i = (unsigned int)a->v % (N(names) + N(other_names));

	for (int s = 0; a->ref == A_LIT && s < N(collide_names); s++)
		if (collide_names[s] == (int)i)
			return s;
	return -1;
}

static bool collide_call_ok(const struct fz_call *c)
{
	const struct fz_desc *d = &fz_descs[c->desc];

	if (collide_nr_index(d->nr) < 0)
		return false;
	for (int k = 0; k < d->nargs; k++)
		if (c->a[k].ref != A_LIT || (d->kind[k] == K_PATH && collide_slot(&c->a[k]) < 0))
			return false;
	return true;
}

/* p's calls that a collide can check, as a collide program; how many. */
static int collide_cut(const struct fz_prog *p, struct fz_prog *q)
{
	memset(q, 0, sizeof(*q));
	for (int i = 0; i < p->n; i++)
		if (collide_call_ok(&p->c[i]))
			q->c[q->n++] = p->c[i];
	q->collide = 1;
	return q->n;
}

/* The collide program of p; a fresh one of those calls if p has fewer than two. */
static void collide_of(const struct fz_prog *p, struct fz_prog *q)
{
	if (collide_cut(p, q) < 2) {
		q->n = 2 + rnd() % 5;
		for (int i = 0; i < q->n; i++) {
			struct fz_call *c = &q->c[i];
			const struct fz_desc *d;

			c->desc = desc_by_nr(collide_nrs[rnd() % N(collide_nrs)]);
			d = &fz_descs[c->desc];
			for (int k = 0; k < d->nargs; k++) {
				c->a[k].ref = A_LIT;
				c->a[k].v = d->kind[k] == K_PATH ? collide_names[rnd() % N(collide_names)] :
					    d->kind[k] == K_MODE ? 0755 : d->kind[k] == K_INT ? (int64_t)(rnd() % 2) :
					    BUF_OWN;
			}
		}
	}
}

/* May h, on names in state st, have answered as it did; the state after in *next. */
static bool collide_step(const struct hop *h, unsigned int st, unsigned int *next)
{
	unsigned int x = st >> (2 * h->x) & 3, y = st >> (2 * h->y) & 3;
	int want = 0;

#define SET(slot, v)	(st = (st & ~(3u << (2 * (slot)))) | (unsigned int)(v) << (2 * (slot)))
	switch (collide_nrs[h->nr_i]) {
	case SYS_stat:			/* found, then its buffer written (or EFAULT) */
		if (x == N_ABSENT)
			want = -ENOENT;
		else if (h->res == -EFAULT)
			want = -EFAULT;
		break;
	case SYS_mkdir:
		if (x != N_ABSENT)
			want = -EEXIST;
		else
			SET(h->x, N_DIR);
		break;
	case SYS_qs_creat:
		if (x == N_ABSENT)
			SET(h->x, N_FILE);
		else
			want = h->excl ? -EEXIST : x == N_FILE ? 0 : -EISDIR;
		break;
	case SYS_unlink:
		if (x == N_ABSENT || x != N_FILE)
			want = x == N_ABSENT ? -ENOENT : -EISDIR;
		else
			SET(h->x, N_ABSENT);
		break;
	case SYS_rmdir:
		if (x == N_DIR)
			SET(h->x, N_ABSENT);
		else
			want = x == N_ABSENT ? -ENOENT : x == N_FILE ? -ENOTDIR : -ENOTEMPTY;
		break;
	case SYS_rename:		/* vfs_rename()'s checks, in its order */
		if (x == N_ABSENT)
			want = -ENOENT;
		else if (h->x == h->y)
			break;
		else if (x != N_FILE && y == N_FILE)
			want = -ENOTDIR;
		else if (x != N_FILE && y == N_FULL)
			want = -ENOTEMPTY;
		else if (x == N_FILE && y != N_ABSENT && y != N_FILE)
			want = -EISDIR;
		else {
			SET(h->y, x);
			SET(h->x, N_ABSENT);
		}
		break;
	}
#undef SET
	*next = st;
	return want == h->res;
}

/* Are these results ones the model speaks of? (An ENOMEM is not a wrong answer.) */
static bool collide_modelled(const struct hop *h, int n)
{
	for (int i = 0; i < n; i++)
		if (h[i].res && h[i].res != -ENOENT && h[i].res != -EEXIST && h[i].res != -ENOTDIR &&
		    h[i].res != -EISDIR && h[i].res != -ENOTEMPTY && h[i].res != -EFAULT)
			return false;
	return true;
}

/*
 * Is there an order? reach[i][j]: the states the names can be in once
 * the first i calls of a and the first j of b are placed. The next call
 * of a may go next unless b's next call returned before it began (then
 * b's must go first: real time). *fi, *fj: the furthest pair reached,
 * where the report looks.
 */
static bool collide_linearizable(const struct hop *a, int na, const struct hop *b, int nb,
				 unsigned int st0, int *fi, int *fj)
{
	static uint64_t reach[COLLIDE_OPS + 1][COLLIDE_OPS + 1];

	memset(reach, 0, sizeof(reach));
	reach[0][0] = 1ULL << st0;
	*fi = *fj = 0;
	for (int i = 0; i <= na; i++)
		for (int j = 0; j <= nb; j++) {
			uint64_t m = reach[i][j];

			if (!m)
				continue;
			if (i + j > *fi + *fj) {
				*fi = i;
				*fj = j;
			}
			for (unsigned int st = 0; st < 64; st++) {
				unsigned int next;

				if (!(m >> st & 1))
					continue;
				if (i < na && (j == nb || b[j].t1 >= a[i].t0) && collide_step(&a[i], st, &next))
					reach[i + 1][j] |= 1ULL << next;
				if (j < nb && (i == na || a[i].t1 >= b[j].t0) && collide_step(&b[j], st, &next))
					reach[i][j + 1] |= 1ULL << next;
			}
		}
	return reach[na][nb] != 0;
}

static void collide_say(const char *fmt, ...)
{
	char line[256];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	write(CONSOLE_FD, line, n < (int)sizeof(line) ? n : (int)sizeof(line) - 1);
}

/* ---------------------------------------------------------------- running one */
static int collide_rounds(const struct fz_prog *p, char *bufs, struct hop *h, pid_t parent)
{
	int n = 0;

	for (int r = 0; r < COLLIDE_ROUNDS; r++)
		for (int i = 0; i < p->n; i++) {
			/* A partner whose executor was killed at its deadline must
			 * not go on in the sandbox under the next program. */
			if (parent && i == 0 && getppid() != parent)
				_exit(1);
			const struct fz_desc *d = &fz_descs[p->c[i].desc];
			char *buf = bufs + i * BUFSZ;
			long a[MAX_ARGS] = { 0 };
			struct hop *o = &h[n++];

			o->nr_i = collide_nr_index(d->nr);
			o->x = o->y = 0;
			o->excl = d->nr == SYS_qs_creat && p->c[i].a[2].v != 0;
			for (int k = 0, paths = 0; k < d->nargs; k++) {
				a[k] = materialize(d->kind[k], p->c[i].a[k].v, buf, d->nr,
						   d->kind[k] == K_PATH ? paths : 0);
				if (d->kind[k] == K_PATH && paths++ == 0)
					o->x = o->y = collide_slot(&p->c[i].a[k]);
				else if (d->kind[k] == K_PATH)
					o->y = collide_slot(&p->c[i].a[k]);
			}
			o->t0 = rdtsc();
			o->res = __syscall6(d->nr, a[0], a[1], a[2], a[3], a[4], a[5]);
			o->t1 = rdtsc();
		}
	return n;
}

static void collide_show(char who, const struct hop *h, int n, int from, uint64_t t_go)
{
	static const char *const slot[] = { "/a", "/b", "/f" };

	for (int i = from > 3 ? from - 4 : 0; i < n && i < from + 3; i++) {
		bool two = collide_nrs[h[i].nr_i] == SYS_rename;

		collide_say("syzq: collide: %c%d%s %s(%s%s%s) = %d at %lu..%lu\n", who, i,
			    i == from ? " next" : "     ", collide_call[h[i].nr_i % N(collide_call)],
			    slot[h[i].x % 3], two ? "," : "", two ? slot[h[i].y % 3] : "", h[i].res,
			    (unsigned long)(h[i].t0 - t_go), (unsigned long)(h[i].t1 - t_go));
	}
}

/*
 * One collide in the executor: the sandbox emptied, a partner on the next
 * CPU, both started at one TSC moment, then the check. false when no
 * order explains the results (said on the console).
 */
static bool collide_once(const struct fz_prog *p, char *bufs)
{
	static struct hop mine[COLLIDE_OPS], theirs[COLLIDE_OPS];
	int go[2], back[2], n0, n1 = 0, fi, fj, st;
	uint64_t t_go, t_ready = rdtsc();
	pid_t executor_pid = getpid();
	char ready;
	bool partner;
	pid_t pid;

	rm_tree(sandbox, 0);
	for (int s = 0; s < N(collide_names); s++) {
		char path[64];
		struct stat sb;

		if (!stat(path_of(collide_names[s], path), &sb))
			return true;	/* the sandbox not empty: the start state unknown */
	}
	if (pipe2(go, 0))
		return true;
	if (pipe2(back, 0)) {
		close(go[0]);
		close(go[1]);
		return true;
	}
	pid = fork();
	if (pid == 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET((worker_cpu + 1) % worker_ncpus, &set);
		sched_setaffinity(0, sizeof(set), &set);
		/* On its CPU now: say so, then wait spinning, not asleep, so
		 * that no wake-up stands between the go and the start. */
		fcntl(go[0], F_SETFL, O_NONBLOCK);
		write(back[1], "r", 1);
		while (read(go[0], &t_go, sizeof(t_go)) != sizeof(t_go))
			if (rdtsc() - t_ready > COLLIDE_WAIT)
				_exit(1);
		while (rdtsc() < t_go)
			;
		n1 = collide_rounds(p, bufs, theirs, executor_pid);
		write(back[1], theirs, n1 * sizeof(theirs[0]));	/* < PIPE_BUF: one piece */
		_exit(0);
	}
	close(go[0]);
	close(back[1]);
	partner = pid > 0 && read(back[0], &ready, 1) == 1;	/* else gone: nothing to check */
	t_go = rdtsc() + COLLIDE_GO;
	if (partner)
		write(go[1], &t_go, sizeof(t_go));
	close(go[1]);
	while (rdtsc() < t_go)
		;
	n0 = collide_rounds(p, bufs, mine, 0);
	for (long got; partner && (got = read(back[0], (char *)theirs + n1 * sizeof(theirs[0]),
						(COLLIDE_OPS - n1) * sizeof(theirs[0]))) > 0;)
		n1 += got / sizeof(theirs[0]);
	close(back[0]);
	if (pid > 0)
		waitpid(pid, &st, 0);
	if (!partner || !n1 || !collide_modelled(mine, n0) || !collide_modelled(theirs, n1))
		return true;		/* nothing to check, or nothing the model speaks of */
	if (collide_linearizable(mine, n0, theirs, n1, 0, &fi, &fj))
		return true;
	collide_say("syzq: FAIL: collide: no order of two processes' calls explains their results\n");
	collide_say("syzq: collide: A (CPU %d) placed %d of %d, B (CPU %d) %d of %d; TSC from the go:\n",
		    worker_cpu, fi, n0, (worker_cpu + 1) % worker_ncpus, fj, n1);
	collide_show('A', mine, n0, fi, t_go);
	collide_show('B', theirs, n1, fj, t_go);
	return false;
}

/*
 * syzq -t: the checker on histories whose answer is known, so that a
 * checker that passes everything (or nothing) is caught before it is
 * trusted. Times in TSC ticks; names /a = 0, /b = 1, /f = 2.
 */
#define H(call, x_, y_, r, a, b)	{ .t0 = a, .t1 = b, .res = r, .nr_i = call, .x = x_, .y = y_ }
enum { C_MKDIR, C_RMDIR, C_UNLINK, C_RENAME, C_STAT, C_CREAT };

static int collide_self_test(void)
{
	static const struct {
		const char *what;
		bool ok;
		int na, nb;
		struct hop a[4], b[4];
	} cases[] = {
		{ "a stat overlapping the create may see the file", true, 1, 1,
		  { H(C_CREAT, 0, 0, 0, 0, 10) }, { H(C_STAT, 0, 0, 0, 5, 15) } },
		{ "or not see it", true, 1, 1,
		  { H(C_CREAT, 0, 0, 0, 0, 10) }, { H(C_STAT, 0, 0, -ENOENT, 5, 15) } },
		{ "a stat after the create returned must see it (real time)", false, 1, 1,
		  { H(C_CREAT, 0, 0, 0, 0, 10) }, { H(C_STAT, 0, 0, -ENOENT, 11, 15) } },
		{ "a rename over a name never leaves it absent", false, 3, 1,
		  { H(C_CREAT, 1, 1, 0, 0, 1), H(C_CREAT, 0, 0, 0, 2, 3), H(C_RENAME, 0, 1, 0, 10, 20) },
		  { H(C_STAT, 1, 1, -ENOENT, 12, 14) } },
		{ "but the renamed-from name goes", true, 3, 1,
		  { H(C_CREAT, 1, 1, 0, 0, 1), H(C_CREAT, 0, 0, 0, 2, 3), H(C_RENAME, 0, 1, 0, 10, 20) },
		  { H(C_STAT, 0, 0, -ENOENT, 12, 14) } },
		{ "two mkdirs of one name: one wins", true, 1, 1,
		  { H(C_MKDIR, 2, 2, 0, 0, 10) }, { H(C_MKDIR, 2, 2, -EEXIST, 0, 10) } },
		{ "two mkdirs of one name cannot both win", false, 1, 1,
		  { H(C_MKDIR, 2, 2, 0, 0, 10) }, { H(C_MKDIR, 2, 2, 0, 0, 10) } },
		{ "a directory is not renamed over a file", true, 3, 0,
		  { H(C_MKDIR, 0, 0, 0, 0, 1), H(C_CREAT, 1, 1, 0, 2, 3), H(C_RENAME, 0, 1, -ENOTDIR, 4, 5) }, { H(C_STAT, 2, 2, -ENOENT, 0, 9) } },
	};
	int bad = 0, fi, fj;

	for (int i = 0; i < N(cases); i++) {
		bool got = collide_linearizable(cases[i].a, cases[i].na, cases[i].b, cases[i].nb, 0, &fi, &fj);

		if (got != cases[i].ok) {
			printf("syzq: self-test: %s: checker said %s\n", cases[i].what,
			       got ? "linearizable" : "not linearizable");
			bad++;
		}
	}
	printf("syzq: self-test: collide checker %d of %d\n", N(cases) - bad, N(cases));
	return bad;
}
#undef H

/* In the executor: the collide program, collide_repeat times or till one fails. */
static void collide(const struct fz_prog *p, char *bufs)
{
	uint32_t marks[2] = { COLLIDE_FAIL, END_MARK };
	bool ok = true;

	for (int k = 0; k < collide_repeat && ok; k++)
		ok = collide_once(p, bufs);
	write(RESULT_FD, ok ? &marks[1] : marks, ok ? 4 : 8);
}

#endif
