/*
 * syzq's executor: a child of the worker that runs programs one after the
 * other, with KCOV on for itself only, and sends back the edges each
 * program reached first; the worker's side of it (start, stop, run with
 * a deadline, clean the sandbox). The worker's identity, sandbox and edge
 * map live here because the executor is what uses them.
 */
#ifndef _FUZZ_EXEC_H
#define _FUZZ_EXEC_H

/* ---------------------------------------------------------------- running one */
#define BUFSZ		4096
#define KCOV_CAP	16384
#define DEADLINE_NS	300000000L	/* a program that runs longer is killed: a hang */
#define RESULT_FD	200		/* the executor's edges out */
#define CMD_FD		201		/* and its programs in */
#define END_MARK	0xffffffffu	/* after a program's edges */
#define COLLIDE_FAIL	0xfffffffeu	/* before END_MARK: no order explains a collide */
#define CONSOLE_FD	202	/* the executor's way to the console (a collide's report) */

static uint8_t edge_map[MAP_BYTES];
static int worker_id, worker_cpu, worker_ncpus = 1;
static int collide_repeat = 1;		/* collides per collide program (more in -r) */
static char sandbox[32];
static bool have_kcov;

/*
 * syzq -r FILE -C: each PC the programs reach, printed once per executor
 * as "kcov: pc <hex>" for the host's coverage report of a corpus
 * (tools/kcov_report.py). The PCs, not the edges: the report names blocks,
 * and an edge is a hash of two. A set of PC_SET slots (open addressing)
 * keeps the console to one line a block; an executor that dies takes its
 * set with it, and the next prints some again, which the report unions.
 */
#define PC_SET		(1 << 16)
static bool pc_dump;
static uint64_t *pc_seen;
static long pc_count;

static void pc_out(uint64_t pc)
{
	static char line[4096];
	static int len;

	if (pc) {
		unsigned int h = (unsigned int)((pc * 0x9e3779b97f4a7c15ULL) >> 48);

		while (pc_seen[h] && pc_seen[h] != pc)
			h = (h + 1) & (PC_SET - 1);
		if (pc_seen[h])
			return;
		if (pc_count < PC_SET * 3 / 4) {	/* else printed, not kept */
			pc_seen[h] = pc;
			pc_count++;
		}
		len += snprintf(line + len, sizeof(line) - len, "kcov: pc %lx\n", (unsigned long)pc);
	}
	if (len && (!pc || len > (int)sizeof(line) - 64)) {
		write(CONSOLE_FD, line, len);
		len = 0;
	}
}

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
static long materialize(int kind, int64_t v, char *buf, int nr, int path_slot)
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
	case K_PATH:		/* a call's second name (rename's) must not overwrite its first */
		return (long)path_of(v, buf + BUFSZ - 128 + 64 * (path_slot & 1));
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
		if (fd != RESULT_FD && fd != CMD_FD && fd != CONSOLE_FD)
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
		for (int k = 0, paths = 0; k < d->nargs; k++) {
			const struct fz_arg *x = &p->c[i].a[k];

			if (x->ref == A_RES)
				a[k] = res[x->v];
			else if (x->ref == A_RES2)
				a[k] = res2[x->v];
			else
				a[k] = materialize(d->kind[k], x->v, buf, d->nr,
						   d->kind[k] == K_PATH ? paths++ : 0);
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

			if (pc_dump)
				pc_out(pcs[k]);
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
	if (pc_dump)
		pc_out(0);		/* before END_MARK: the worker may kill us next */
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
static void collide(const struct fz_prog *p, char *bufs);	/* fuzz/collide.h */

static __attribute__((noreturn)) void executor(bool cover)
{
	char *bufs = malloc(MAX_CALLS * BUFSZ);
	uint64_t *pcs = cover ? malloc(KCOV_CAP * sizeof(uint64_t)) : NULL;
	struct fz_prog p;

	if (!bufs || (cover && (!pcs || kcov(QS_KCOV_ENABLE, KCOV_CAP, 0))))
		_exit(3);
	if (pc_dump && !(pc_seen = calloc(PC_SET, sizeof(*pc_seen))))
		_exit(3);
	while (read(CMD_FD, &p, sizeof(p)) == sizeof(p)) {
		if (p.collide) {
			collide(&p, bufs);
			continue;
		}
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
	bool collide_fail;	/* a collide's results had no order (fuzz/collide.h) */
};
static long collide_fails;

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
		dup2(1, CONSOLE_FD);
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
	long deadline = now_ns() + DEADLINE_NS * (p->collide ? 1 + collide_repeat : 1);
	int st = 0;

	r->nedges = 0;
	r->hung = r->signaled = r->collide_fail = false;
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
			if (got[k] == COLLIDE_FAIL) {
				r->collide_fail = true;
				collide_fails++;
			} else if (!end && r->nedges < N(r->edges))
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

#endif
