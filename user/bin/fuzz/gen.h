/*
 * syzq's program generator: the description table made into data
 * (fz_descs[], from fuzz/calls.h), the literals each argument kind draws
 * from, which results fit which kinds, and generate(), which builds a
 * program whose later calls use what its earlier ones made (docs/fuzzing.md).
 * Kept apart from the loop so that what a program can be is read in one
 * place; included by syzq.c only (a user program is one .c file).
 */
#ifndef _FUZZ_GEN_H
#define _FUZZ_GEN_H

/* ---------------------------------------------------------------- the table */
#define NARGS(...)	(sizeof((uint8_t[]){ 0, ##__VA_ARGS__ }) - 1)
#define FZ_DESC(nr_, res_, fl, ...)						\
	{ .nr = nr_, .name = #nr_ + 4, .res = res_, .flags = fl,			\
	  .nargs = NARGS(__VA_ARGS__), .kind = { __VA_ARGS__ } },
static const struct fz_desc fz_descs[] = { FUZZ_CALLS(FZ_DESC) };
#define NR_DESCS	((int)(sizeof(fz_descs) / sizeof(fz_descs[0])))

static int desc_by_nr(int nr)
{
	for (int i = 0; i < NR_DESCS; i++)
		if (fz_descs[i].nr == nr)
			return i;
	return -1;
}

/* ---------------------------------------------------------------- literals */
#define N(a)	((int)(sizeof(a) / sizeof((a)[0])))
#define BUF_OWN	0		/* K_BUF: the call's own buffer */
static const int64_t v_fd[] = { 3, 4, 5, 6, -1, 255, 256, 1L << 32 | 3 };
static const int64_t v_pid[] = { 0, -1, 1, 0x7fffffff, 65536 };
static const int64_t v_int[] = { 0, 1, 2, 3, 4, 7, 8, 16, 64, 255, 4096, -1, 0x7fffffff,
				 0x80000000L, 1L << 32, -4096 };
static const int64_t v_len[] = { 0, 1, 8, 16, 64, 512, 4096, 4097, -1, 1L << 31 };
static const int64_t v_buf[] = { BUF_OWN, BUF_OWN, BUF_OWN, BUF_OWN, BUF_OWN, BUF_OWN, 1, 2, 3, 4 };
static const int64_t v_oflags[] = { QS_O_RDONLY, QS_O_RDONLY | QS_O_DIRECTORY, QS_O_CREAT | QS_O_WRONLY,
	QS_O_CREAT | QS_O_EXCL | QS_O_RDWR, QS_O_RDWR | QS_O_TRUNC, QS_O_WRONLY | QS_O_APPEND,
	QS_O_CREAT | QS_O_DIRECTORY, QS_O_NONBLOCK, QS_O_CLOEXEC | QS_O_RDWR, -1 };
static const int64_t v_pflags[] = { QS_O_NONBLOCK, QS_O_NONBLOCK, QS_O_NONBLOCK | QS_O_CLOEXEC, 0, -1 };
static const int64_t v_mode[] = { 0644, 0755, 0700, 0777, 0, 07777 };
static const int64_t v_fcntl[] = { QS_F_DUPFD, QS_F_GETFD, QS_F_SETFD, QS_F_GETFL, QS_F_SETFL, 99 };
static const int64_t v_whence[] = { 0, 1, 2, 3 };
static const int64_t v_sig[] = { 0, QS_SIGKILL, QS_SIGTERM, QS_SIGUSR1, QS_SIGPIPE, 64, 65, -1 };
static const int64_t v_sigdisp[] = { QS_SIG_DFL, QS_SIG_IGN, 2 };
static const int64_t v_waitopt[] = { QS_WNOHANG, 0, 0xff };
static const int64_t v_semkey[] = { 0, 1, 2, 3 };	/* the worker's keys (sem_key()) */
static const int64_t v_semflg[] = { QS_IPC_CREAT | 0600, QS_IPC_CREAT | QS_IPC_EXCL | 0600, 0, 0600,
				    QS_IPC_CREAT | 0666, QS_IPC_CREAT };
static const int64_t v_semcmd[] = { QS_IPC_RMID, QS_IPC_SET, QS_IPC_STAT, QS_IPC_INFO, QS_GETPID,
	QS_GETVAL, QS_GETALL, QS_GETNCNT, QS_GETZCNT, QS_SETVAL, QS_SETALL, QS_SEM_STAT, QS_SEM_INFO,
	QS_SEM_STAT_ANY, QS_IPC_64 | QS_IPC_STAT, 99 };
static const int64_t v_semarg[] = { 0, 1, 2, 5, 32767, 32768, -1, 1L << 40 };	/* the last: an array */
static const int64_t v_nsops[] = { 1, 1, 2, 3, 4, 0, 33 };
static const int64_t v_domain[] = { QS_AF_INET, QS_AF_INET, 0, 1, 99 };
static const int64_t v_stype[] = { QS_SOCK_DGRAM | QS_SOCK_NONBLOCK, QS_SOCK_DGRAM, QS_SOCK_RAW, 1, 99 };
static const int64_t v_proto[] = { 0, QS_IPPROTO_UDP, QS_IPPROTO_ICMP, 99 };
static const int64_t v_addrlen[] = { 16, 16, 0, 8, 100, -1 };
static const int64_t v_msgflags[] = { QS_MSG_DONTWAIT, QS_MSG_DONTWAIT | QS_MSG_PEEK,
				      QS_MSG_DONTWAIT | QS_MSG_TRUNC, 0, 0xffff };
static const int64_t v_solevel[] = { QS_SOL_SOCKET, 0, 17, 99 };
static const int64_t v_soname[] = { QS_SO_TYPE, QS_SO_ERROR, QS_SO_BROADCAST, QS_SO_RCVBUF,
				    QS_SO_RCVTIMEO, 99 };
static const int64_t v_op[] = { 0, 1, 2, 3, 4, 5, 6, 40, -1, QS_CPU_ONLINE, QS_TASKLIST_MODE };
static const int64_t v_uid[] = { 1000, 0, 1001, -1 };
static const int64_t v_policy[] = { QS_SCHED_NORMAL, 99, -1 };
static const int64_t v_addr[] = { 0, 0xffffffff80100000L, 0xffffffff80200000L, 0x400000, -1 };
static const int64_t v_newfd[] = { 3, 4, 7, 10, 255, 256, -1 };

static const struct { const int64_t *v; int n; } literals[NR_KINDS] = {
#define L(k, a)	[K_##k] = { a, N(a) }
	L(FD, v_fd), L(SOCK, v_fd), L(NEWFD, v_newfd), L(PID, v_pid), L(SEMID, v_int),
	L(INT, v_int), L(LEN, v_len), L(BUF, v_buf), L(OFLAGS, v_oflags), L(PFLAGS, v_pflags),
	L(MODE, v_mode), L(FCNTL, v_fcntl), L(WHENCE, v_whence), L(SIG, v_sig),
	L(SIGDISP, v_sigdisp), L(WAITOPT, v_waitopt), L(SEMKEY, v_semkey), L(SEMFLG, v_semflg),
	L(SEMCMD, v_semcmd), L(SEMARG, v_semarg), L(NSOPS, v_nsops), L(DOMAIN, v_domain),
	L(STYPE, v_stype), L(PROTO, v_proto), L(ADDRLEN, v_addrlen), L(MSGFLAGS, v_msgflags),
	L(SOLEVEL, v_solevel), L(SONAME, v_soname), L(OP, v_op), L(UID, v_uid),
	L(POLICY, v_policy), L(ADDR, v_addr),
#undef L
};

/* Kinds whose value is a seed: the structure (or name) is built from it. */
static bool seeded(int kind)
{
	return kind == K_PATH || kind == K_TIMESPEC || kind == K_SEMOPS || kind == K_SOCKADDR ||
	       kind == K_ROUTE || kind == K_MODIMG || kind == K_CPUMASK;
}

static int64_t literal(int kind)
{
	if (seeded(kind))
		return (int64_t)(rnd() & 0xffff);
	if (!literals[kind].n)
		return 0;
	return literals[kind].v[rnd() % literals[kind].n];
}

/* ---------------------------------------------------------------- resources */
static bool res_fits(int kind, int res)
{
	switch (kind) {
	case K_FD:
	case K_NEWFD:	return res == R_FD || res == R_PIPE || res == R_SOCK;
	case K_SOCK:	return res == R_SOCK;
	case K_PID:	return res == R_PID;
	case K_SEMID:	return res == R_SEMID;
	default:	return false;
	}
}

static int producer(int kind)
{
	static const int fds[] = { SYS_open, SYS_pipe2, SYS_socket };

	switch (kind) {
	case K_FD:
	case K_NEWFD:	return desc_by_nr(fds[rnd() % 3]);
	case K_SOCK:	return desc_by_nr(SYS_socket);
	case K_PID:	return desc_by_nr(rnd() % 2 ? SYS_fork : SYS_getpid);
	case K_SEMID:	return desc_by_nr(SYS_semget);
	default:	return -1;
	}
}

/* Call i's argument k, from what the calls before it made. */
static void gen_arg(struct fz_prog *p, int i, int k)
{
	const struct fz_desc *d = &fz_descs[p->c[i].desc];
	struct fz_arg *a = &p->c[i].a[k];
	int cand[MAX_CALLS], n = 0;

	a->ref = A_LIT;
	a->v = literal(d->kind[k]);
	for (int j = 0; j < i; j++)
		if (res_fits(d->kind[k], fz_descs[p->c[j].desc].res))
			cand[n++] = j;
	if (n && rnd() % 8) {
		int j = cand[rnd() % n];

		a->ref = fz_descs[p->c[j].desc].res == R_PIPE && rnd() % 2 ? A_RES2 : A_RES;
		a->v = j;
	}
}

static bool uses(int desc, int res)
{
	for (int k = 0; k < fz_descs[desc].nargs; k++)
		if (res_fits(fz_descs[desc].kind[k], res))
			return true;
	return false;
}

/* A call to put at pos: half the time one that uses what a call before it
 * made, as syzkaller's choice table prefers calls related by their
 * resources (a program with a pid in it is worth a kill()). */
static int pick_desc(const struct fz_prog *p, int pos)
{
	if (rnd() % 2 && pos > 0) {
		int res = fz_descs[p->c[rnd() % pos].desc].res;

		for (int tries = 0; res != R_NONE && tries < 4 * NR_DESCS; tries++) {
			int i = rnd() % NR_DESCS;

			if (!(fz_descs[i].flags & F_NOGEN) && uses(i, res))
				return i;
		}
	}
	for (;;) {
		int i = rnd() % NR_DESCS;

		if (!(fz_descs[i].flags & F_NOGEN))
			return i;
	}
}

static void shift_refs(struct fz_prog *p, int from, int at, int by)
{
	for (int i = from; i < p->n; i++)
		for (int k = 0; k < MAX_ARGS; k++)
			if (p->c[i].a[k].ref != A_LIT && p->c[i].a[k].v >= at)
				p->c[i].a[k].v += by;
}

/* A new call at pos; with what its resources need made before it, as
 * syzkaller does: a kill() wants a pid, so a fork() may come first. */
static void insert_call(struct fz_prog *p, int pos, int desc, int depth)
{
	if (p->n >= MAX_CALLS)
		return;
	memmove(&p->c[pos + 1], &p->c[pos], (p->n - pos) * sizeof(p->c[0]));
	p->n++;
	shift_refs(p, pos + 1, pos, 1);
	memset(&p->c[pos], 0, sizeof(p->c[pos]));
	p->c[pos].desc = desc;
	for (int k = 0; k < fz_descs[desc].nargs; k++) {
		int prod = producer(fz_descs[desc].kind[k]);
		bool have = false;

		for (int j = 0; j < pos; j++)
			have |= res_fits(fz_descs[desc].kind[k], fz_descs[p->c[j].desc].res);
		if (prod >= 0 && !have && depth == 0 && p->n < MAX_CALLS && rnd() % 4) {
			insert_call(p, pos, prod, 1);
			pos++;
		}
		gen_arg(p, pos, k);
	}
}

static void remove_call(struct fz_prog *p, int pos)
{
	memmove(&p->c[pos], &p->c[pos + 1], (p->n - pos - 1) * sizeof(p->c[0]));
	p->n--;
	for (int i = pos; i < p->n; i++)
		for (int k = 0; k < MAX_ARGS; k++) {
			struct fz_arg *a = &p->c[i].a[k];

			if (a->ref != A_LIT && a->v == pos)
				gen_arg(p, i, k);
			else if (a->ref != A_LIT && a->v > pos)
				a->v--;
		}
}

/* Every reference points back to a call that makes what it wants. */
static void fixup(struct fz_prog *p)
{
	for (int i = 0; i < p->n; i++) {
		const struct fz_desc *d = &fz_descs[p->c[i].desc];

		for (int k = 0; k < MAX_ARGS; k++) {
			struct fz_arg *a = &p->c[i].a[k];

			if (k >= d->nargs) {
				a->ref = A_LIT;
				a->v = 0;
			} else if (a->ref != A_LIT &&
				   (a->v < 0 || a->v >= i || !res_fits(d->kind[k], fz_descs[p->c[a->v].desc].res) ||
				    (a->ref == A_RES2 && fz_descs[p->c[a->v].desc].res != R_PIPE))) {
				gen_arg(p, i, k);
			}
		}
	}
}

static void generate(struct fz_prog *p)
{
	int n = 1 + rnd() % 5;

	p->n = 0;
	p->collide = 0;
	while (p->n < n)
		insert_call(p, p->n, pick_desc(p, p->n), 0);
}

#endif
