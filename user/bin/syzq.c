/*
 * syzq [-d seconds] [-p procs] [-s seed] [-l] [-c corpus] | syzq -r file:
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
 * programs of a file once each, for the host's reproduction and reduction.
 *
 * Before and after, as `fuzz` does: a warm-up (a tenth of the time, which
 * runs the host's corpus and learns; the main phase starts from what it
 * learnt), then the allocation counters after rcu_barrier() must be back
 * at their baseline.
 */
#include <stdio.h>
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
#include "fuzz/prog.h"
#include "fuzz/edges.h"
#include "fuzz/rnd.h"

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
	while (p->n < n)
		insert_call(p, p->n, pick_desc(p, p->n), 0);
}

static void mutate(struct fz_prog *p, const struct fz_prog *other)
{
	int ops = 1 + rnd() % 3;

	while (ops--) {
		switch (rnd() % 5) {
		case 0: {	/* insert */
			int pos = rnd() % (p->n + 1);

			insert_call(p, pos, pick_desc(p, pos), 0);
			break;
		}
		case 1:		/* remove */
			if (p->n > 1)
				remove_call(p, rnd() % p->n);
			break;
		case 2:		/* splice: our head, the other's tail */
			if (other && other->n) {
				int head = rnd() % (p->n + 1), from = rnd() % other->n;

				for (int j = from; j < other->n && head < MAX_CALLS; j++, head++) {
					p->c[head] = other->c[j];
					for (int k = 0; k < MAX_ARGS; k++)
						if (p->c[head].a[k].ref != A_LIT)
							p->c[head].a[k].v += head - j;
				}
				p->n = head;
				fixup(p);
				break;
			}
			/* fall through */
		default: {	/* change an argument */
			int i = rnd() % p->n, nargs = fz_descs[p->c[i].desc].nargs;

			if (nargs) {
				int k = rnd() % nargs;

				if (rnd() % 2 && !seeded(fz_descs[p->c[i].desc].kind[k]))
					gen_arg(p, i, k);
				else if (p->c[i].a[k].ref == A_LIT)
					p->c[i].a[k].v ^= (int64_t)1 << (rnd() % 16);
			}
		}
		}
	}
	if (!p->n)
		generate(p);
}

/* ---------------------------------------------------------------- text form */
static int format(const struct fz_prog *p, char *out, int size)
{
	int len = 0;

	out[0] = '\0';
	for (int i = 0; i < p->n && len < size; i++) {
		const struct fz_desc *d = &fz_descs[p->c[i].desc];

		len += snprintf(out + len, size - len, "%s%s(", i ? ";" : "", d->name);
		for (int k = 0; k < d->nargs && len < size; k++) {
			const struct fz_arg *a = &p->c[i].a[k];

			if (a->ref == A_LIT)
				len += snprintf(out + len, size - len, "%s%ld", k ? "," : "", (long)a->v);
			else
				len += snprintf(out + len, size - len, "%s%c%ld", k ? "," : "",
						a->ref == A_RES ? 'r' : 's', (long)a->v);
		}
		len += snprintf(out + len, size - len, ")");
	}
	return len < size ? 0 : -1;
}

/* 0, or -1 for a line that is no program of this table. */
static int parse(const char *s, struct fz_prog *p)
{
	memset(p, 0, sizeof(*p));
	while (*s && *s != '\n' && p->n < MAX_CALLS) {
		const char *open = strchr(s, '(');
		int desc = -1, k = 0;

		if (!open)
			return -1;
		for (int i = 0; i < NR_DESCS; i++)
			if ((size_t)(open - s) == strlen(fz_descs[i].name) &&
			    !strncmp(s, fz_descs[i].name, open - s))
				desc = i;
		if (desc < 0)
			return -1;
		p->c[p->n].desc = desc;
		s = open + 1;
		while (*s && *s != ')') {
			struct fz_arg *a = &p->c[p->n].a[k < MAX_ARGS ? k : MAX_ARGS - 1];
			char *end;

			a->ref = *s == 'r' ? A_RES : *s == 's' ? A_RES2 : A_LIT;
			a->v = strtol(s + (a->ref != A_LIT), &end, 10);
			if (end == s)
				return -1;
			s = *end == ',' ? end + 1 : end;
			k++;
		}
		if (*s != ')' || k != fz_descs[desc].nargs)
			return -1;
		s++;
		p->n++;
		if (*s == ';')
			s++;
	}
	if (!p->n)
		return -1;
	fixup(p);
	return 0;
}

static long max(long a, long b)
{
	return a > b ? a : b;
}

/* The newline that ends the line at s, or NULL if it runs to end. */
static char *line_end(char *s, char *end)
{
	while (s < end && *s != '\n')
		s++;
	return s < end ? s : NULL;
}

/* ---------------------------------------------------------------- running one */
#define BUFSZ		4096
#define KCOV_CAP	16384
#define DEADLINE_NS	300000000L	/* a program that runs longer is killed: a hang */
#define RESULT_FD	200		/* the executor's edges out */
#define CMD_FD		201		/* and its programs in */
#define END_MARK	0xffffffffu	/* after a program's edges */

static uint8_t edge_map[MAP_BYTES];
static int worker_id, worker_cpu;
static char sandbox[32];
static bool have_kcov;

/* The raw call, not qs_kcov(): READ's count carries the overflow bit. */
static long kcov(int op, unsigned long a, unsigned long b)
{
	return __syscall3(SYS_qs_kcov, op, a, b);
}

static long sem_key(int64_t v)
{
	return 0x5a7a0000L + worker_id * 16 + (v & 3);
}

static const char *const names[] = { "", "/a", "/b", "/a/c", "/b/d", "/a/c/e", "/f" };
static const char *const other_names[] = { "a", "b/d", ".", "/", "/bin/true", "/etc/motd", "/bin", "" };

static char *path_of(int64_t v, char *buf)
{
	unsigned int i = (unsigned int)v % (N(names) + N(other_names));

	if (i < N(names))
		snprintf(buf, 64, "%s%s", sandbox, names[i]);
	else
		strcpy(buf, other_names[i - N(names)]);
	return buf;
}

/* What a seeded structure or a buffer is, in call i's own memory. */
static long materialize(int kind, int64_t v, char *buf, int nr)
{
	unsigned long s = (unsigned long)v;

	switch (kind) {
	case K_BUF:
		switch (v) {
		case 1: return 0;
		case 2: return (long)0xffffffff80100000L;
		case 3: return 0x1000;
		case 4: return (long)buf + BUFSZ - 1;
		default: return (long)buf;
		}
	case K_PATH:
		return (long)path_of(v, buf + BUFSZ - 128);
	case K_TIMESPEC: {
		struct qs_timespec *ts = (void *)buf;

		ts->tv_sec = 0;
		ts->tv_nsec = s % 7 == 6 ? -1 : (long)(s % 4) * 300000;	/* at most 0.9 ms */
		return (long)ts;
	}
	case K_SEMOPS: {
		struct qs_sembuf *b = (void *)buf;

		for (int k = 0; k < 40; k++, s = s * 6364136223846793005UL + 1) {
			b[k].sem_num = (s >> 8) % 8 ? (s >> 11) % 3 : (uint16_t)(s >> 16);
			b[k].sem_op = (int16_t)((s >> 20) % 4) - 1;
			b[k].sem_flg = (s >> 24) % 8 ? QS_IPC_NOWAIT : (s >> 27) % 2 ? QS_SEM_UNDO : 0;
		}
		return (long)b;
	}
	case K_SOCKADDR: {
		struct qs_sockaddr_in *sin = (void *)buf;

		memset(sin, 0, sizeof(*sin));
		sin->sin_family = s % 8 ? QS_AF_INET : (uint16_t)(s >> 3);
		sin->sin_port = (uint16_t)(((7000 + (s >> 4) % 4) >> 8) | ((7000 + (s >> 4) % 4) << 8));
		sin->sin_addr.s_addr = (s >> 6) % 4 ? 0x0100007f : (s >> 8) % 2 ? 0 : 0x010200c0;
		return (long)sin;
	}
	case K_ROUTE: {
		struct qs_rtentry *e = (void *)buf;

		memset(e, 0, sizeof(*e));
		e->prefixlen = 8 + s % 25;
		e->dst = 0x000010ac | (uint32_t)(s << 16);
		e->gateway = 0x0002000a | (uint32_t)(s >> 8) << 24;
		strcpy(e->dev, s % 3 ? "eth0" : "lo");
		return (long)e;
	}
	case K_MODIMG:
		for (int k = 0; k < BUFSZ; k++, s = s * 6364136223846793005UL + 1)
			buf[k] = (char)(s >> 33);
		memcpy(buf, "\177ELF", 4);
		return (long)buf;
	case K_CPUMASK:
		*(uint64_t *)buf = s ? s : 1;
		return (long)buf;
	case K_SEMKEY:
		return sem_key(v);
	case K_SEMARG:
		if (v == 1L << 40) {
			for (int k = 0; k < 250; k++)
				((uint16_t *)buf)[k] = k % 3;
			return (long)buf;
		}
		return (long)v;
	case K_PID:
		/* A literal never names a live process: the workers and their
		 * executors share the programs' uid, and a mutated literal that
		 * hit one would kill the fuzzer, not find a bug. Live pids come
		 * from fork() and getpid() results only. */
		return v > 0 && v < 1000000 ? 0x7fffffff : (long)v;
	case K_MODE:
		/* A directory its owner cannot search could not be cleaned up. */
		return nr == SYS_mkdir ? (long)(v | 0700) : (long)v;
	default:
		return (long)v;
	}
}

/* A call's buffer: the same bytes each time (a program's result must not
 * depend on what the last one left), cheap (a byte loop is a cost under
 * TCG that every call of every program pays). */
static void fill(char *buf, int64_t seed)
{
	memset(buf, 'a' + (int)(seed % 26), BUFSZ - 128);
}

/* What a program left in the executor that the next one would see: its
 * descriptors (each one a call made came back as its result: up to
 * maxfd), working directory, signal dispositions and affinity. */
static void reset_after(const struct fz_prog *p, long maxfd)
{
	bool sigs = false, cpus = false;

	for (int i = 0; i < p->n; i++) {
		const struct fz_desc *d = &fz_descs[p->c[i].desc];

		sigs |= d->nr == SYS_signal;
		cpus |= d->nr == SYS_sched_setaffinity || d->nr == SYS_sched_setscheduler;
	}
	for (int fd = 0; fd <= maxfd && fd < QS_OPEN_MAX; fd++)
		if (fd != RESULT_FD && fd != CMD_FD)
			close(fd);
	for (int sig = 1; sigs && sig < QS_NSIG; sig++)
		__syscall2(SYS_signal, sig, QS_SIG_DFL);
	if (cpus) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(worker_cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	if (chdir(sandbox))
		_exit(5);
}

/* In the executor: run one program, send each edge not yet in the map
 * down RESULT_FD, then END_MARK. */
static void execute(const struct fz_prog *p, bool cover, char *bufs, uint64_t *pcs)
{
	long res[MAX_CALLS], res2[MAX_CALLS];
	pid_t forked[MAX_CALLS];
	int nforked = 0, out = RESULT_FD;
	long maxfd = 2;
	uint32_t fresh[256];
	int nfresh = 0;

	for (int i = 0; i < p->n; i++) {
		const struct fz_desc *d = &fz_descs[p->c[i].desc];
		char *buf = bufs + i * BUFSZ;
		long a[MAX_ARGS] = { 0 };
		long ret;

		fill(buf, i);
		for (int k = 0; k < d->nargs; k++) {
			const struct fz_arg *x = &p->c[i].a[k];

			if (x->ref == A_RES)
				a[k] = res[x->v];
			else if (x->ref == A_RES2)
				a[k] = res2[x->v];
			else
				a[k] = materialize(d->kind[k], x->v, buf, d->nr);
		}
		if (cover)
			kcov(QS_KCOV_READ, (unsigned long)pcs, 0);	/* drop what setup ran */
		if (d->nr == SYS_fork) {
			/* The new process lives a little, so that what the program does
			 * to it (kill, waitpid, setaffinity) finds it alive. */
			ret = fork();
			if (ret == 0) {
				usleep(5000);
				_exit(0);
			}
			if (ret > 0)
				forked[nforked++] = ret;
		} else {
			ret = __syscall6(d->nr, a[0], a[1], a[2], a[3], a[4], a[5]);
		}
		res[i] = res2[i] = ret;
		if (d->res == R_PIPE && ret == 0 && a[0] == (long)buf) {
			res[i] = ((int *)buf)[0];
			res2[i] = ((int *)buf)[1];
		}
		/* Every call that can make a descriptor returns it (fcntl's
		 * F_DUPFD too), but a failed call may still have made one
		 * (pipe2 into a bad buffer): then everything is closed. */
		if (d->res == R_FD || d->res == R_SOCK || d->nr == SYS_fcntl || d->res == R_PIPE)
			maxfd = ret < 0 && d->res == R_PIPE ? QS_OPEN_MAX :
				max(maxfd, max(res[i], res2[i]));
		if (!cover)
			continue;
		long n = kcov(QS_KCOV_READ, (unsigned long)pcs, KCOV_CAP);
		uint32_t prev = 0;

		if (n < 0)
			continue;
		n &= ~QS_KCOV_OVERFLOW;
		for (long k = 0; k < n; k++) {
			uint32_t e = fz_edge(pcs[k], &prev);

			if (!fz_mark(edge_map, e))
				continue;
			fresh[nfresh++] = e;
			if (nfresh == N(fresh)) {
				write(out, fresh, sizeof(fresh));
				nfresh = 0;
			}
		}
	}
	/* Waited for, not killed: the cleanup must not reach what a
	 * program's own kill() does (the planted bug is there). */
	for (int i = 0; i < nforked; i++)
		waitpid(forked[i], NULL, 0);
	reset_after(p, maxfd);
	fresh[nfresh++] = END_MARK;
	write(out, fresh, nfresh * sizeof(fresh[0]));
}

/*
 * The executor: a child of the worker that runs programs one after the
 * other until one kills it, crashes it or hangs (then the worker starts
 * another). A fork per program is what contains a program; a fork per
 * program costs some 50 ms here (no copy-on-write: fork copies the
 * address space), fifty times what a program's calls take.
 */
static __attribute__((noreturn)) void executor(bool cover)
{
	char *bufs = malloc(MAX_CALLS * BUFSZ);
	uint64_t *pcs = cover ? malloc(KCOV_CAP * sizeof(uint64_t)) : NULL;
	struct fz_prog p;

	if (!bufs || (cover && (!pcs || kcov(QS_KCOV_ENABLE, KCOV_CAP, 0))))
		_exit(3);
	while (read(CMD_FD, &p, sizeof(p)) == sizeof(p)) {
		if (cover)
			kcov(QS_KCOV_READ, (unsigned long)pcs, 0);	/* not the read's own */
		execute(&p, cover, bufs, pcs);
	}
	_exit(0);
}

static long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* Remove path and everything under it: what the program left in the sandbox. */
static void rm_tree(const char *path, int depth)
{
	struct qs_dirent d[8];
	char sub[QS_PATH_MAX + 64];
	struct stat st;
	int fd, n;

	if (stat(path, &st))
		return;
	if (!S_ISDIR(st.st_mode) || depth > 16) {
		unlink(path);
		return;
	}
	fd = open(path, O_RDONLY | O_DIRECTORY);
	while (fd >= 0 && (n = qs_getdents(fd, d, 8)) > 0) {
		for (int i = 0; i < n; i++) {
			snprintf(sub, sizeof(sub), "%s/%s", path, d[i].name);
			rm_tree(sub, depth + 1);
		}
		close(fd);
		fd = open(path, O_RDONLY | O_DIRECTORY);	/* the names moved under us */
	}
	if (fd >= 0)
		close(fd);
	if (depth)
		rmdir(path);
}

/* What a program left in the sandbox and the worker's semaphore sets,
 * removed; only where a call of the program could have made any. */
static void cleanup(const struct fz_prog *p)
{
	bool files = false, sems = false;

	for (int i = 0; i < p->n; i++) {
		int nr = fz_descs[p->c[i].desc].nr;

		files |= nr == SYS_open || nr == SYS_rename || (nr >= SYS_mkdir && nr <= SYS_qs_creat);
		sems |= nr == SYS_semget;
	}
	for (int k = 0; sems && k < 4; k++) {
		int id = semget(sem_key(k), 0, 0);

		if (id >= 0)
			semctl(id, 0, IPC_RMID);
	}
	if (files) {
		rm_tree(sandbox, 0);
		/* The sandbox is a name of the table too (rmdir() of it works). */
		mkdir(sandbox, 0777);
	}
}

struct run_result {
	int nedges;
	uint32_t edges[1024];
	bool hung, signaled;
};

static pid_t exec_pid = -1;
static int exec_cmd = -1, exec_res = -1;

static void exec_stop(void)
{
	if (exec_pid > 0) {
		kill(exec_pid, QS_SIGKILL);
		waitpid(exec_pid, NULL, 0);
	}
	close(exec_cmd);
	close(exec_res);
	exec_pid = exec_cmd = exec_res = -1;
}

static int exec_start(bool cover)
{
	int c[2], r[2];

	if (pipe2(c, 0))
		return -1;
	if (pipe2(r, 0)) {
		close(c[0]);
		close(c[1]);
		return -1;
	}
	fcntl(r[0], F_SETFL, O_NONBLOCK);
	exec_pid = fork();
	if (exec_pid == 0) {
		/* A worker has done so already; a replay runs as root till here. */
		if (setuid(1000))
			_exit(4);
		/* Descriptors no literal of the table names, so a program's own
		 * calls do not write into them or close them. */
		dup2(c[0], CMD_FD);
		dup2(r[1], RESULT_FD);
		/* No console for the programs: their descriptors start at 0. */
		for (int fd = 0; fd < 8; fd++)
			close(fd);
		executor(cover);
	}
	close(c[0]);
	close(r[1]);
	exec_cmd = c[1];
	exec_res = r[0];
	if (exec_pid < 0) {
		exec_stop();
		return -1;
	}
	return 0;
}

/* One program in the executor (a new one if the last is gone): its new
 * edges, or that it hung (killed at the deadline) or ended the executor. */
static void run(const struct fz_prog *p, bool cover, struct run_result *r)
{
	long deadline = now_ns() + DEADLINE_NS;
	int st = 0;

	r->nedges = 0;
	r->hung = r->signaled = false;
	if (exec_pid < 0 && exec_start(cover))
		return;
	if (write(exec_cmd, p, sizeof(*p)) != sizeof(*p)) {
		exec_stop();
		return;
	}
	for (int polls = 0;; polls++) {
		uint32_t got[256];
		long n = read(exec_res, got, sizeof(got));
		bool end = false;

		for (long k = 0; k < n / 4 && !end; k++) {
			end = got[k] == END_MARK;
			if (!end && r->nedges < N(r->edges))
				r->edges[r->nedges++] = got[k];
		}
		if (end)
			break;
		if (n == 0) {			/* the executor is gone */
			waitpid(exec_pid, &st, 0);
			r->signaled = WIFSIGNALED(st);
			exec_pid = -1;
			exec_stop();
			break;
		}
		if (n > 0)
			continue;
		if (now_ns() > deadline) {
			r->hung = true;
			exec_stop();
			break;
		}
		/* Yield, not sleep: a sleep is a tick at least (4 ms at HZ=250),
		 * longer than most programs run. The CPU is the executor's
		 * anyway: it inherited the worker's affinity. */
		if (polls < 20000)
			sched_yield();
		else
			usleep(2000);
	}
	cleanup(p);
}

/* ---------------------------------------------------------------- the workers */
enum { MSG_NEW = 'N', MSG_STATS = 'S' };

struct msg_head {
	uint16_t len;		/* the whole message */
	uint8_t type, worker;
	uint32_t nedges;	/* MSG_NEW: then the edges, then the program's text */
	uint32_t progs, hangs, signaled;
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

static void send_stats(long progs, long hangs, long signaled)
{
	struct msg_head h = { sizeof(h), MSG_STATS, worker_id, 0, progs, hangs, signaled };

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

static int worker(int id, int ncpus, long end_ns, const char *seed_file, int nworkers)
{
	static struct run_result r;
	static char text[PROG_TEXT];
	long progs = 0, hangs = 0, signaled = 0, last_stats = 0;
	char *seeds = NULL, *next = NULL;
	size_t size = 0;
	int line = 0;
	cpu_set_t set;

	worker_cpu = id % ncpus;
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
		if (format(&p, text, sizeof(text)))
			continue;
		if (log_all)
			printf("syzq: run w%d %s\n", id, text);
		run(&p, have_kcov, &r);
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
			send_stats(progs, hangs, signaled);
			last_stats = now_ns();
		}
	}
	exec_stop();		/* before the parent counts processes */
	send_stats(progs, hangs, signaled);
	free(seeds);
	return 0;
}

/* ---------------------------------------------------------------- the parent */
struct totals {
	long progs[64], hangs[64], signaled[64];
	long edges, corpus;
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

	printf("syzq: %s %ld s: %ld programs (%ld.%ld/s), %ld edges, corpus %ld, hangs %ld, "
	       "killed %ld\n", what, ms / 1000, progs, rate10 / 10, rate10 % 10, t->edges, t->corpus,
	       sum(t->hangs), sum(t->signaled));
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
		if (!parse(line, &p) && !format(&p, text, sizeof(text))) {
			printf("syzq: replay %d %s\n", n++, text);
			run(&p, false, &r);
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
	take_baseline(base);
	replay_pass(data, size);
	exec_stop();
	printf("syzq: replay done\n");
	free(data);
	return 0;
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
				"| syzq -r programs\n");
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
	if (replay_file) {
		bad |= replay(replay_file, &base);
		return bad | baseline_check(&base);
	}
	long r = kcov(QS_KCOV_ENABLE, 1, 0);

	have_kcov = r == 0;
	if (have_kcov)
		kcov(QS_KCOV_DISABLE, 0, 0);
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
