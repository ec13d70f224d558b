/*
 * fuzz [procs] [calls] [seed] [cover]: the random system-call fuzzer
 * (syzq is the one that learns: docs/fuzzing.md; `cover` counts KCOV's
 * edges as syzq does, for comparing the two: cover_start() below).
 *
 * Forks `procs` children, spread over every CPU, each an unprivileged
 * user (uid 1000), each making `calls` system calls with random numbers
 * (some far outside the table) and random, mostly bad, arguments: NULL,
 * small integers, -1, kernel addresses, non-canonical and unmapped
 * addresses, the end of the heap, huge sizes, and pointers into a scratch
 * buffer. The kernel must survive it all, and once the children are
 * reaped its allocation statistics (kmalloc objects and bytes, tasks,
 * processes, user pages) must be back at their baseline.
 *
 * The file calls (110-118) and open work mostly in the child's own
 * directory, /tmp/fz<id>, its working directory, which it removes before
 * it exits (tame_fs() below).
 *
 * As root, before the children start, the parent also feeds init_module()
 * a bounded number of images (random bytes, and hello.ko truncated or with
 * a few random bytes changed) and delete_module() random names: every
 * image must be refused, and none can run: each goes with a parameter no
 * module has, so one that passes every check of the file is still
 * refused before its init (kernel/module/loader.c). It also adds and
 * deletes a bounded number of random routes (include/uapi/route.h) and
 * switches the route cache's mode a few times; afterwards the routing
 * table must be as it was. The route cache is emptied before each
 * allocation count (routes the children's lookups cached are not leaks).
 *
 * Never chosen: exit, fork (the number of processes and calls would stop
 * being bounded); read only on a pipe (the console would wait). write to the
 * console and nanosleep are tamed (short, a few dots; short sleeps) when
 * their arguments happen to be valid, so the run stays bounded; kill only
 * asks (signal 0: the siblings share our uid), and close and dup2 leave
 * fds 0-2 alone so that each child can print its summary. The SysV
 * semaphore calls get arguments that reach their deeper paths, and never
 * wait for long (tame_sem() below). Pipes (pipe2, dup, dup2, close,
 * read, write, fcntl, signal) get small descriptors and scratch for their
 * fds most of the time, so real pipes are made, duplicated and closed;
 * every pipe is non-blocking (pipe2 always gets O_NONBLOCK, F_SETFL on a
 * pipe keeps it) and SIGPIPE stays ignored, so no call waits and no
 * write to a readerless pipe ends a child; read is made only on a pipe.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sched.h>
#include <sys/wait.h>
#include <sys/utsname.h>
#include <sys/syscall.h>
#include <sys/sem.h>
#include <quiescent.h>
#include <qs_fs.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <sys/module.h>
#include <sys/trace.h>
#include <qs_route.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/kcov.h>
#include <sys/c2c.h>
#include "fuzz/edges.h"
#include "fuzz/rnd.h"

static char scratch[8192] __attribute__((aligned(4096)));
static bool cover;		/* fuzz ... cover: count KCOV's edges (cover_start()) */

static bool in_scratch(long p)
{
	return p >= (long)scratch && p < (long)scratch + (long)sizeof(scratch);
}

static long rand_arg(void)
{
	unsigned long long r = rnd();

	switch (r % 12) {
	case 0:  return 0;
	case 1:  return (r >> 8) % 16;
	case 2:  return -1;
	case 3:  return rnd();
	case 4:  return 0xffff800000000000L + (long)((r >> 8) % (1UL << 32));
	case 5:  return 0xffffffff80000000L + (long)((r >> 8) % (4UL << 20));
	case 6:  return (long)scratch + (long)((r >> 8) % sizeof(scratch));
	case 7:  return (long)scratch;
	case 8:  return 0x1000 + (long)((r >> 8) % 0x100000);
	case 9:  return (long)(0x8000000000000000UL | (r >> 4));
	case 10: return (long)sbrk(0) - (long)((r >> 8) % 64);
	default: return 1L << ((r >> 8) % 48);
	}
}

static long pick_nr(void)
{
	for (;;) {
		unsigned long long r = rnd();
		long nr = r % 8 == 0 ? (long)rnd() : (long)((r >> 3) % 104);	/* past the ranges in use */
		if (r % 32 == 5)	/* a file call (kernel/fs), tamed by tame_fs() */
			nr = SYS_mkdir + (long)((r >> 5) % (SYS_qs_getdents - SYS_mkdir + 1));

		if (r % 8 == 1)		/* a socket call more often: they have many paths */
			nr = SYS_socket + (long)((r >> 3) % (SYS_qs_neigh - SYS_socket + 1));
		if (r % 16 == 2)	/* and a semaphore call (kernel/ipc) */
			nr = SYS_semget + (long)((r >> 4) % 4);
		if (r % 16 == 3) {	/* and a descriptor call on pipes (tame_pipe) */
			static const long fdcalls[] = { SYS_pipe2, SYS_pipe2, SYS_dup, SYS_dup2,
				SYS_close, SYS_read, SYS_write, SYS_fcntl, SYS_signal, SYS_kill };
			nr = fdcalls[(r >> 4) % (sizeof(fdcalls) / sizeof(fdcalls[0]))];
		}

		if (nr == SYS_exit || nr == SYS_fork || (cover && nr == SYS_qs_kcov))
			continue;
		return nr;
	}
}

/*
 * File calls (110-118, and open): each child works in its own directory,
 * /tmp/fz<id>, made before its calls, its working directory throughout.
 * Three in four path arguments are names there (absolute, or relative to
 * the working directory, never with ".."), so the calls reach past the
 * lookup into create, rename and remove; the rest keep their random
 * pointers (EFAULT, ENAMETOOLONG, names nothing can reach). chdir is always
 * tamed, so relative names never leave the sandbox; the child removes the
 * whole tree before it exits (fs_cleanup()), and the parent shrinks the
 * dcache before each allocation count (negative dentries are a cache).
 */
static char fs_base[32];
static long fs_ok;		/* file calls that succeeded */

static long fs_path(unsigned long long r, int slot)
{
	static const char *const names[] = { "a", "b", "f", "b/c", "a/d", "b/c/e", "g" };
	char *p = scratch + 4096 + 1024 + slot * 128;

	if (r % 3)
		snprintf(p, 128, "%s/%s", fs_base, names[(r >> 2) % 7]);
	else
		snprintf(p, 128, "%s", names[(r >> 2) % 7]);
	return (long)p;
}

static void tame_fs(long nr, long a[6])
{
	unsigned long long r = rnd();

	if (nr == SYS_chdir) {
		static const char *const dirs[] = { "", "/a", "/b", "/b/c" };
		char *p = scratch + 4096 + 1024;

		snprintf(p, 128, "%s%s", fs_base, dirs[r % 4]);
		a[0] = (long)p;
		return;
	}
	/* The sandbox's files stay small: a write or a seek past a few MiB
	 * into a ramfs file would hold that much kernel memory per name. */
	if (nr == SYS_lseek && a[1] > (1L << 20))
		a[1] &= (1L << 20) - 1;
	if (nr == SYS_write && a[0] > 2 && (unsigned long)a[2] > 65536)
		a[2] &= 65535;
	if ((nr < SYS_mkdir || nr > SYS_qs_getdents) && nr != SYS_open)
		return;
	/* A directory its owner cannot read or search could not be cleaned up. */
	if (nr == SYS_mkdir)
		a[1] = (r >> 2) % 4 ? 0755 : 0700 | (long)((r >> 4) & 077);
	if (r % 4 == 0)
		return;				/* a quarter keep their random arguments */
	switch (nr) {
	case SYS_getcwd:
		a[0] = (long)scratch + 4096 + 2048;
		a[1] = (r >> 2) % 4 ? 128 : (long)((r >> 4) % 24);
		return;
	case SYS_qs_getdents:
		a[0] = 3 + (long)((r >> 2) % 6);	/* likely a descriptor open() gave */
		a[1] = (long)scratch + 4096 + 2048 - 256 * 4;
		a[2] = (r >> 5) % 8 ? (long)((r >> 6) % 4) : a[2];
		return;
	case SYS_open: {
		static const long flags[] = { O_RDONLY, O_RDONLY | O_DIRECTORY, O_CREAT | O_WRONLY,
					      O_CREAT | O_EXCL | O_RDWR, O_RDWR | O_TRUNC,
					      O_WRONLY | O_APPEND, O_CREAT | O_DIRECTORY };
		a[0] = fs_path(r >> 2, 0);
		a[1] = flags[(r >> 12) % 7];
		a[2] = 0644;
		return;
	}
	case SYS_stat:
		a[1] = (long)scratch + 4096 + 2048;
		break;
	case SYS_qs_creat:
		a[1] = (r >> 2) % 4 ? 0644 : (long)((r >> 4) & 07777);
		a[2] = (r >> 16) % 2;
		break;
	case SYS_rename:
		a[1] = fs_path(r >> 20, 1);
		break;
	}
	a[0] = fs_path(r >> 30, 0);
}

/* Remove path and everything under it (the child's own tree). */
static void rm_tree(const char *path, int depth)
{
	struct qs_dirent d[4];		/* not static: the calls below nest */
	char sub[QS_PATH_MAX + 64];
	struct stat st;
	int fd, n, again = 1;

	if (stat(path, &st))
		return;
	if ((st.st_mode & S_IFMT) != S_IFDIR || depth > 32) {
		unlink(path);
		return;
	}
	/* getdents may skip a name while the directory changes under it: read
	 * it again until a pass finds nothing to remove. */
	while (again) {
		again = 0;
		fd = open(path, O_RDONLY | O_DIRECTORY);
		if (fd < 0)
			break;
		while ((n = qs_getdents(fd, d, 4)) > 0)
			for (int i = 0; i < n; i++) {
				snprintf(sub, sizeof(sub), "%s/%s", path, d[i].name);
				rm_tree(sub, depth + 1);
				again = 1;
			}
		close(fd);
	}
	rmdir(path);
}

/* Made as root before setuid(), open to all (0777): the child, uid 1000,
 * works in it as its working directory. 0, or 1 (said). */
static int fs_setup(int id)
{
	snprintf(fs_base, sizeof(fs_base), "/tmp/fz%d", id);
	rm_tree(fs_base, 0);		/* a tree a killed run left */
	if (mkdir(fs_base, 0777) || chdir(fs_base)) {
		perror("fuzz: the file calls' directory");
		return 1;
	}
	return 0;
}

static void fs_note(long nr, long ret)
{
	if (ret >= 0 && ((nr >= SYS_mkdir && nr <= SYS_qs_getdents) || nr == SYS_open))
		fs_ok++;
}

/* 0, or 1 (said) if the child's tree could not be removed. */
static int fs_cleanup(int id)
{
	struct stat st;

	/* The random calls may have filled the descriptor table, and the
	 * cleanup needs one for each directory it reads. */
	for (int fd = 3; fd < 256; fd++)
		close(fd);
	chdir("/");
	rm_tree(fs_base, 0);
	if (stat(fs_base, &st) == 0) {
		printf("fuzz: FAIL: %s is still there after the cleanup\n", fs_base);
		return 1;
	}
	printf("\nfuzz: files: child %d: %ld file calls succeeded in %s, removed\n", id, fs_ok,
	       fs_base);
	return 0;
}

/*
 * Socket calls (60-72): mostly real sockets and well-formed addresses,
 * so that the calls get past their first checks and into the protocol;
 * the destinations are 127.0.0.1 or addresses with no route, so nothing
 * waits on ARP; recvfrom always gets MSG_DONTWAIT, so nothing blocks.
 */
static void tame_socket(long nr, long a[6])
{
	unsigned long long r = rnd();
	struct sockaddr_in *sin = (struct sockaddr_in *)(scratch + 4096);

	if (nr < SYS_socket || nr > SYS_qs_neigh)
		return;
	if (nr == SYS_socket) {
		static const long types[] = { SOCK_DGRAM, SOCK_DGRAM | SOCK_NONBLOCK, SOCK_RAW };
		if (r % 4) {
			a[0] = AF_INET;
			a[1] = types[(r >> 2) % 3];
			a[2] = a[1] == SOCK_RAW ? IPPROTO_ICMP : (long)((r >> 4) % 2) * IPPROTO_UDP;
		}
		return;
	}
	if (r % 4)
		a[0] = 3 + (long)((r >> 2) % 8);		/* likely a socket */
	if ((r >> 5) % 3) {					/* a real address */
		sin->sin_family = (r >> 7) % 8 ? AF_INET : (sa_family_t)(r >> 8);
		sin->sin_port = htons((r >> 10) % 4 ? 7000 + (r >> 12) % 8 : (uint16_t)(r >> 12));
		sin->sin_addr.s_addr = (r >> 28) % 4 ? htonl(INADDR_LOOPBACK)
						    : (r >> 30) % 2 ? 0 : htonl(0xc0000201);
		if (nr == SYS_bind || nr == SYS_connect) {
			a[1] = (long)sin;
			a[2] = (r >> 31) % 4 ? sizeof(*sin) : (long)((r >> 33) % 20);
		} else if (nr == SYS_sendto) {
			a[4] = (long)sin;
			a[5] = sizeof(*sin);
		}
	}
	if ((nr == SYS_sendto || nr == SYS_recvfrom) && (r >> 40) % 2) {
		a[1] = (long)scratch + (long)((r >> 41) % 1024);	/* a real buffer */
		a[2] = (long)((r >> 51) % 1600);
	}
	if ((nr == SYS_sendto || nr == SYS_recvfrom) && (r >> 45) % 4)
		a[3] = (r >> 47) % 2 ? MSG_PEEK : 0;			/* flags that are allowed */
	if (nr == SYS_recvfrom) {
		a[3] |= MSG_DONTWAIT;
		if ((r >> 44) % 2) {
			int *alen = (int *)(scratch + 4096 + 128);
			*alen = sizeof(*sin);
			a[4] = (long)sin;
			a[5] = (long)alen;
		}
	}
	if (nr == SYS_setsockopt && (r >> 35) % 2) {
		struct timeval_like { long sec, usec; } *tv = (void *)(scratch + 4096 + 64);
		tv->sec = 0;
		tv->usec = (long)((r >> 36) % 100000);
		a[1] = SOL_SOCKET;
		a[2] = SO_RCVTIMEO;
		a[3] = (long)tv;
		a[4] = sizeof(*tv);
	}
}

/* A route's fields: a plausible prefix (often with bits past its length) or noise. */
static void rand_route(struct qs_rtentry *e)
{
	unsigned long long r = rnd();
	static const char *const devs[] = { "", "eth0", "eth1", "lo", "nosuch", "eth0eth0eth0eth0" };
	static const uint32_t subnets[] = { 0x0a000200, 0x0a010000, 0x0a020000 };

	memset(e, 0, sizeof(*e));
	e->prefixlen = r % 8 ? 8 + (r >> 3) % 25 : (uint8_t)(r >> 3);
	e->dst = r % 4 ? htonl(0xac100000 | (uint32_t)((r >> 11) & 0xfffff)) : (uint32_t)rnd();
	if ((r >> 31) % 2 && e->prefixlen <= 32)	/* clear the bits past the length */
		e->dst &= htonl(e->prefixlen ? ~0u << (32 - e->prefixlen) : 0);
	/* On the test machines' subnets (10.0.2/24; a router's 10.1.0/24, 10.2.0/24), or noise. */
	e->gateway = (r >> 32) % 4 ? htonl(subnets[(r >> 34) % 3] | (uint32_t)((r >> 36) % 256))
				   : (uint32_t)rnd();
	e->metric = (r >> 42) % 4 ? (r >> 44) % 4 : (uint32_t)rnd();
	strncpy(e->dev, devs[(r >> 50) % 6], sizeof(e->dev));	/* the last one fills it unterminated */
}

/* Routing calls (80-83): real structures in scratch, counts that stay small. */
static void tame_route(long nr, long a[6])
{
	unsigned long long r = rnd();
	void *buf = scratch + 4096 + 256;

	if (nr < SYS_qs_route || nr > SYS_qs_rtcache || r % 4 == 0)
		return;					/* a quarter keep their random arguments */
	if (nr == SYS_qs_route) {
		a[0] = (r >> 2) % 4;			/* add, del, dump, or a bad op */
		a[1] = (long)buf;
		if (a[0] == QS_ROUTE_DUMP)
			a[2] = (long)((r >> 4) % 40) - 4;	/* room for 3K entries at most */
		else
			rand_route(buf);
	} else if (nr == SYS_qs_route_get) {
		struct qs_rtlookup *lk = buf;
		static const uint32_t dsts[] = { 0x7f000001, 0x0a00020f, 0x0a000202, 0xac100101,
						 0xe0000001, 0xffffffff, 0 };

		memset(lk, 0, sizeof(*lk));
		lk->dst = (r >> 2) % 8 < 7 ? htonl(dsts[(r >> 2) % 8]) : (uint32_t)rnd();
		lk->src = (r >> 5) % 4 ? 0 : (uint32_t)rnd();
		lk->tos = (r >> 7) % 4 ? (r >> 9) % 32 : (uint32_t)rnd();
		a[0] = (long)lk;
	} else if (nr == SYS_qs_rtstat) {
		a[0] = (long)buf;
		a[1] = (r >> 2) % 4 ? sizeof(struct qs_rtstat) : (long)((r >> 4) % 4096);
	} else {
		a[0] = (r >> 2) % 8;			/* the ops, and a few past them */
		a[1] = (r >> 5) % 2 ? (long)((r >> 6) % 1100) : (long)((r >> 6) % 5);
		a[2] = (long)buf;
		a[3] = (long)((r >> 20) % 40) - 4;	/* entries of a bucket, 35 at most */
	}
}

/* The kernel takes a descriptor as an int, as Linux does: 1L << 32 | 3 is fd 3. */
static bool is_pipe(long fd)
{
	struct stat st;
	int f = (int)fd;

	return f >= 0 && f < QS_OPEN_MAX && fstat(f, &st) == 0 && S_ISFIFO(st.st_mode);
}

/* Pipes and descriptors: see the comment at the top. Runs before tame(). */
static void tame_pipe(long nr, long a[6])
{
	unsigned long long r = rnd();

	if (nr == SYS_pipe2) {
		if (r % 4)
			a[0] = (long)scratch + 8 * (long)((r >> 2) % (sizeof(scratch) / 8 - 1));
		a[1] = r % 8 ? QS_O_NONBLOCK | ((r >> 8) & 1 ? QS_O_CLOEXEC : 0) : a[1] | QS_O_NONBLOCK;
		return;
	}
	if ((nr == SYS_dup || nr == SYS_dup2 || nr == SYS_close || nr == SYS_read ||
	     nr == SYS_write || nr == SYS_fcntl) && r % 2)
		a[0] = 3 + (long)((r >> 1) % 24);
	if (nr == SYS_dup2 && (r >> 6) % 2)
		a[1] = 3 + (long)((r >> 7) % 32);
	if (nr == SYS_fcntl && (r >> 12) % 2)
		a[1] = (long)((r >> 13) % 6);
	if (nr == SYS_fcntl && a[1] == QS_F_SETFL && is_pipe(a[0]))
		a[2] |= QS_O_NONBLOCK;
	if (nr == SYS_read && !is_pipe(a[0]))
		a[0] = -1 - (long)(r % 3);	/* the console would wait for a line */
	if ((nr == SYS_read || nr == SYS_write) && is_pipe(a[0]) && (r >> 20) % 2) {
		a[1] = (long)scratch + (long)((r >> 21) % 4096);
		a[2] = (long)((r >> 33) % 4096);
	}
	if (nr == SYS_signal && a[0] == QS_SIGPIPE)
		a[1] = QS_SIG_IGN;
}

static void tame(long nr, long a[6])
{
	tame_socket(nr, a);
	tame_route(nr, a);
	tame_fs(nr, a);
	/* Siblings share our uid: a signal would end them, so only ask. */
	if (nr == SYS_kill && a[1] > 0 && a[1] < QS_NSIG)
		a[1] = 0;
	/* qs_rcu: a few callbacks at a time (a bad count still gets EINVAL). */
	if (nr == SYS_qs_rcu && a[0] == QS_RCU_CALL && (unsigned long)a[1] <= QS_RCU_MAX_CALLS)
		a[1] %= 256;
	/* qs_trace: the commands and a few past them (not root: EPERM, or the mask). */
	if (nr == SYS_qs_trace && a[0] & 1)
		a[0] = (unsigned long)a[0] % 6;
	/* Keep the console descriptors: the summary line goes out on fd 1. */
	if ((nr == SYS_close || nr == SYS_dup2) && a[nr == SYS_dup2] >= 0 &&
	    a[nr == SYS_dup2] <= 2)
		a[nr == SYS_dup2] += 3;
	if (nr == SYS_write && (a[0] == 1 || a[0] == 2)) {
		a[2] %= 4;
		if (in_scratch(a[1]) && a[1] + 4 <= (long)scratch + (long)sizeof(scratch))
			memcpy((void *)a[1], "....", 4);
	}
	/* Any pointer that may be mapped gets a short sleep to read. */
	if (nr == SYS_nanosleep && (unsigned long)a[0] >= QS_USER_BASE &&
	    (unsigned long)a[0] < QS_USER_TOP) {
		long ts[2] = { 0, (long)(rnd() % 2000000) };
		a[0] = (long)scratch + (long)(rnd() % (sizeof(scratch) - 16));
		memcpy((void *)a[0], ts, sizeof(ts));
	}
}

/*
 * SysV semaphores (kernel/ipc): arguments that reach past the first
 * checks most of the time: ids this child made or found (and random
 * ones), a few keys shared by the children, sembuf arrays in scratch with
 * small semaphore numbers and values. Never an unbounded wait: semop gets
 * IPC_NOWAIT on every operation, semtimedop a timeout of at most 2 ms (or
 * IPC_NOWAIT when its timeout pointer is not scratch). A child removes the
 * sets it made or found before it exits; the parent grows the table to its
 * limit before the baseline (an array the kernel keeps is not a leak).
 */
#define FUZZ_SEMS	16		/* sets a child keeps track of: 4 children fit SEMMNI */
static int sem_ids[FUZZ_SEMS], sem_nids;

static int sem_id(void)
{
	unsigned long long r = rnd();

	if (sem_nids && r % 4)
		return sem_ids[(r >> 2) % sem_nids];
	return r % 8 ? (int)(r >> 8) % 4 : (int)rand_arg();
}

static void sem_fill_sops(long at, int n, bool nowait)
{
	struct sembuf *b = (struct sembuf *)at;

	for (int i = 0; i < n; i++) {
		unsigned long long r = rnd();

		b[i].sem_num = r % 16 ? r % 4 : (unsigned short)(r >> 4);
		b[i].sem_op = r % 32 ? (short)((r >> 8) % 5) - 2 : (short)(r >> 16);
		b[i].sem_flg = ((r >> 24) & 1 ? SEM_UNDO : 0) | ((r >> 25) & 1 ? IPC_NOWAIT : 0) |
			       (r % 64 ? 0 : (short)(r >> 32));
		if (nowait)
			b[i].sem_flg |= IPC_NOWAIT;
	}
}

static bool in_user(long p)
{
	return (unsigned long)p >= QS_USER_BASE && (unsigned long)p < QS_USER_TOP;
}

static void tame_sem(long nr, long a[6])
{
	unsigned long long r = rnd();
	long sops = (long)scratch + 64, ts = (long)scratch;
	int n = r % 16 ? 1 + (r >> 4) % 4 : (int)((r >> 4) % 40);

	if (nr == SYS_semget) {
		if (r % 4) {
			a[0] = r % 3 ? IPC_PRIVATE : 0x5150 + (long)((r >> 2) % 4);
			a[1] = r % 16 ? (long)((r >> 6) % 5) : a[1];
			a[2] = (r >> 10) % 2 * IPC_CREAT | (r >> 11) % 4 / 3 * IPC_EXCL |
			       ((r >> 12) % 2 ? 0600 : (long)((r >> 13) & 0777));
		}
		if (sem_nids == FUZZ_SEMS) {	/* enough sets: lookups only, never a new one */
			a[0] = 0x5150 + (long)((r >> 2) % 4);
			a[2] &= ~(long)IPC_CREAT;
		}
		return;
	}
	if (r % 4)
		a[0] = sem_id();
	if (nr == SYS_semctl) {
		static const int cmds[] = { GETVAL, SETVAL, GETALL, SETALL, GETPID, GETNCNT, GETZCNT,
					    IPC_STAT, IPC_SET, IPC_RMID, IPC_INFO, SEM_INFO, SEM_STAT };
		if (r % 4) {
			a[1] = (r >> 2) % 8 ? (long)((r >> 5) % 5) - 1 : a[1];
			a[2] = (r >> 8) % 8 ? cmds[(r >> 11) % 13] : a[2];
			if (a[2] == SETVAL)
				a[3] = (r >> 16) % 8 ? (long)((r >> 20) % 4) : a[3];
			else if ((r >> 16) % 4)
				a[3] = (long)scratch + (long)((r >> 20) % 256);
		}
		if (a[2] == SEM_STAT && (r >> 30) % 2)
			a[0] = (r >> 31) % 16;
		return;
	}
	/* semop, semtimedop: sops in scratch, or a pointer that faults. */
	if (r % 4 || in_user(a[1])) {
		a[1] = sops;
		a[2] = r % 16 ? n : a[2];
	}
	if (nr == SYS_semtimedop && ((r >> 40) % 4 || in_user(a[3]))) {
		long t[2] = { 0, (long)(rnd() % 2000000) };	/* at most 2 ms */

		memcpy(scratch, t, sizeof(t));
		a[3] = ts;
		sem_fill_sops(sops, 40, false);
	} else {
		/* semop, or no timeout (NULL) or one that faults: never wait. */
		sem_fill_sops(sops, 40, true);
	}
}

static void sem_note(long nr, long ret)
{
	if (nr != SYS_semget || ret < 0 || sem_nids == FUZZ_SEMS)
		return;
	for (int i = 0; i < sem_nids; i++)
		if (sem_ids[i] == ret)
			return;
	sem_ids[sem_nids++] = ret;
}

static void sem_cleanup(void)
{
	while (sem_nids)
		semctl(sem_ids[--sem_nids], 0, IPC_RMID);
}

/*
 * fuzz ... cover: KCOV's edges, counted as syzq counts them
 * (fuzz/edges.h), so that the two fuzzers' coverage compare. Each child
 * keeps a map and leaves it in /tmp/fzcov<id>; the parent merges them.
 * qs_kcov() itself is not among the calls then: a random DISABLE would
 * stop the count.
 */
#define COVER_PCS	16384
static uint8_t *cover_map;
static uint64_t *cover_pcs;

static void cover_start(void)
{
	if (!cover)
		return;
	cover_map = calloc(1, MAP_BYTES);
	cover_pcs = malloc(COVER_PCS * sizeof(uint64_t));
	if (!cover_map || !cover_pcs || qs_kcov(QS_KCOV_ENABLE, COVER_PCS, 0))
		cover = false;
}

static void cover_note(void)
{
	long n = cover ? __syscall3(SYS_qs_kcov, QS_KCOV_READ, (long)cover_pcs, COVER_PCS) : -1;
	uint32_t prev = 0;

	for (long k = 0; k < (n & ~(long)QS_KCOV_OVERFLOW); k++)
		fz_mark(cover_map, fz_edge(cover_pcs[k], &prev));
}

static void cover_save(int id)
{
	char path[32];
	int fd;

	if (!cover)
		return;
	qs_kcov(QS_KCOV_DISABLE, 0, 0);
	snprintf(path, sizeof(path), "/tmp/fzcov%d", id);
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd < 0 || write(fd, cover_map, MAP_BYTES) != MAP_BYTES)
		printf("fuzz: FAIL: child %d could not save its coverage in %s\n", id, path);
	close(fd);
	free(cover_map);
	free(cover_pcs);
}

/* The children's maps merged: how many edges they reached in all. */
static long cover_merge(int procs)
{
	uint8_t *all = calloc(1, MAP_BYTES);
	long edges = 0;

	for (int i = 0; all && i < procs; i++) {
		char path[32];
		uint8_t *m;
		size_t size;

		snprintf(path, sizeof(path), "/tmp/fzcov%d", i);
		if (read_file(path, (void **)&m, &size) == 0) {
			for (size_t b = 0; b < size && b < MAP_BYTES; b++)
				all[b] |= m[b];
			free(m);
		}
		unlink(path);
	}
	for (uint32_t b = 0; all && b < MAP_BYTES; b++)
		for (uint8_t v = all[b]; v; v &= v - 1)	/* no libgcc: no popcount */
			edges++;
	free(all);
	return edges;
}

static int child(int id, int ncpus, long calls)
{
	cpu_set_t set;
	long ok = 0, err = 0, sock_ok = 0, pipes = 0;

	CPU_ZERO(&set);
	CPU_SET(id % ncpus, &set);
	sched_setaffinity(0, sizeof(set), &set);
	if (fs_setup(id))
		return 1;
	if (setuid(1000)) {
		perror("fuzz: setuid");
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);	/* a write to a pipe without reader: EPIPE */
	cover_start();
	for (long i = 0; i < calls; i++) {
		long nr = pick_nr(), a[6];

		for (int k = 0; k < 6; k++)
			a[k] = rand_arg();
		tame_pipe(nr, a);
		tame(nr, a);
		if (nr >= SYS_semget && nr <= SYS_semctl)
			tame_sem(nr, a);
		long ret = __syscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
		if (ret < 0) {
			err++;
		} else {
			ok++;
			sock_ok += nr >= SYS_socket && nr <= SYS_qs_neigh;
			pipes += nr == SYS_pipe2;
		}
		sem_note(nr, ret);
		fs_note(nr, ret);
		cover_note();
	}
	sem_cleanup();
	if (fs_cleanup(id))
		return 1;
	cover_save(id);		/* after fs_cleanup(): the calls may have filled the fd table */
	printf("\nfuzz: child %d (pid %d, uid %d) on cpu %d: %ld calls, %ld failed as expected or not, "
	       "%ld socket calls succeeded, %ld pipes made\n", id, getpid(), getuid(), sched_getcpu(),
	       ok + err, err, sock_ok, pipes);
	return 0;
}

/* procs children making `calls` calls each; the number that failed. */
static int round(int procs, int ncpus, long calls, unsigned long seed)
{
	int bad = 0, st;

	for (int i = 0; i < procs; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			state = seed * 0x9e3779b97f4a7c15ULL + i + 1;
			_exit(child(i, ncpus, calls));
		}
		if (pid < 0) {
			perror("fuzz: fork");
			bad++;
		}
	}
	while (wait(&st) > 0)
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			printf("fuzz: a child ended with status %#x\n", st);
			bad++;
		}
	return bad;
}

/* Root's share: images the loader must refuse, names that match no module. */
static int root_modules(int n)
{
	char err[QS_MODULE_ERRLEN], name[16];
	unsigned char *img = NULL, *buf = malloc(8192);
	size_t size = 0;
	int loaded = 0, deep = 0;

	if (getuid() != 0 || !buf || read_file("/lib/modules/hello.ko", (void **)&img, &size)) {
		free(buf);
		return 0;
	}
	for (int i = 0; i < n; i++) {
		unsigned long r = rnd();
		size_t len;

		if (r % 3 == 0 || size > 8192) {
			len = 1 + (rnd() % 8192);
			for (size_t k = 0; k < len; k++)
				buf[k] = rnd();
		} else {
			len = r % 3 == 1 ? 1 + rnd() % size : size;
			memcpy(buf, img, size);
			for (int k = 1 + rnd() % 8; k > 0; k--)
				buf[rnd() % len] = rnd();
		}
		if (init_module(buf, len, "fuzz_refuse_me=1", err) == 0) {
			printf("fuzz: FAIL: a fuzzed image was loaded\n");
			loaded++;
		} else {
			deep += errno == EINVAL;	/* the file passed; the parameter did not */
		}
		snprintf(name, sizeof(name), "fz%lx", (unsigned long)(rnd() & 0xffffff));
		delete_module(name, rnd() % 2);
	}
	free(img);
	free(buf);
	printf("fuzz: root: %d images refused by the module loader (%d of them only for the "
	       "parameter), %d loaded\n", n - loaded, deep, loaded);
	return loaded;
}

/* Root's share of routing: random routes added and deleted, the cache's mode
 * switched; the table as it was afterwards. The number of routes in the table. */
static int route_count(void)
{
	static struct qs_rtentry all[QS_ROUTE_MAX];

	return qs_route(QS_ROUTE_DUMP, all, QS_ROUTE_MAX);
}

static int root_routes(int n)
{
	struct qs_rtentry e, added[64];
	int nadded = 0, before = route_count(), refused = 0;

	if (getuid() != 0)
		return 0;
	for (int i = 0; i < n; i++) {
		rand_route(&e);
		if (rnd() % 2 == 0 && qs_route(QS_ROUTE_ADD, &e, 0) == 0) {
			if (nadded < 64)
				added[nadded++] = e;
			else
				qs_route(QS_ROUTE_DEL, &e, 0);
		} else if (qs_route(QS_ROUTE_DEL, &e, 0) < 0) {
			refused++;
		}
		if (i % (n / 3 + 1) == 0)
			qs_rtcache(QS_RTCACHE_SET_MODE, rnd() % 3, NULL, 0);
	}
	for (int i = 0; i < nadded; i++)
		qs_route(QS_ROUTE_DEL, &added[i], 0);
	qs_rtcache(QS_RTCACHE_SET_MODE, QS_RTCACHE_RCU, NULL, 0);
	printf("fuzz: root: %d route changes (%d refused), %d routes added and deleted again\n",
	       n, refused, nadded);
	if (route_count() != before) {
		printf("fuzz: FAIL: %d routes in the table, %d before\n", route_count(), before);
		return 1;
	}
	return 0;
}

static bool same(const char *what, unsigned long before, unsigned long after)
{
	printf("fuzz: %-16s %10lu -> %10lu%s\n", what, before, after, before == after ? "" : "  CHANGED");
	return before == after;
}

int main(int argc, char **argv)
{
	int procs = argc > 1 ? atoi(argv[1]) : 4;
	long calls = argc > 2 ? atol(argv[2]) : 5000;
	unsigned long seed = argc > 3 ? strtoul(argv[3], NULL, 0) : 42;
	struct timespec t0, t1;
	struct qs_stats before, after;
	struct qs_module_stats mbefore, mafter;
	struct utsname u;
	int bad = 0;
	bool ok = true;

	if (procs < 1 || procs > 64 || calls < 0) {
		fprintf(stderr, "usage: fuzz [procs <= 64] [calls per process] [seed] [cover]\n");
		return 2;
	}
	cover = argc > 4 && !strcmp(argv[4], "cover");
	uname(&u);
	qs_sem_table_grow();
	/*
	 * A short warm-up round first: what the kernel allocates once and
	 * keeps (the first use of a path on a CPU) is not a leak. Then the
	 * baseline, the real round, and the comparison.
	 */
	printf("fuzz: warm-up: %d processes x %ld calls\n", procs, calls / 20 + 1);
	bad += round(procs, u.ncpus, calls / 20 + 1, seed + 1000);
	cover_merge(procs);		/* the warm-up's maps are not counted */
	state = seed + 1000;
	bad += root_modules(10);
	bad += root_routes(20);
	qs_rtcache(QS_RTCACHE_FLUSH, 0, NULL, 0);	/* what lookups cached is not a leak */
	qs_dcache(QS_DCACHE_SHRINK, 0, NULL);		/* nor names known absent */
	qs_stats(&before, QS_STATS_SYNC);
	module_stats(&mbefore);
	printf("fuzz: %d processes x %ld calls on %d CPUs, seed %lu\n", procs, calls, u.ncpus, seed);
	state = seed;
	bad += root_modules(calls / 20 < 300 ? calls / 20 : 300);
	bad += root_routes(calls / 20 < 300 ? calls / 20 : 300);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	bad += round(procs, u.ncpus, calls, seed);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (cover) {
		long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;

		printf("fuzz: coverage: %ld edges (KCOV, as syzq counts them) in %ld.%03ld s\n",
		       cover_merge(procs), ms / 1000, ms % 1000);
	}
	qs_rtcache(QS_RTCACHE_FLUSH, 0, NULL, 0);
	qs_dcache(QS_DCACHE_SHRINK, 0, NULL);
	qs_stats(&after, QS_STATS_SYNC);
	module_stats(&mafter);
	ok &= same("module pages", mbefore.pages, mafter.pages);
	ok &= same("kmalloc objects", before.kmalloc_objects, after.kmalloc_objects);
	ok &= same("kmalloc bytes", before.kmalloc_bytes, after.kmalloc_bytes);
	ok &= same("tasks", before.tasks_alive, after.tasks_alive);
	ok &= same("processes", before.processes, after.processes);
	ok &= same("user pages", before.user_pages, after.user_pages);
	ok &= same("open files", before.files_open, after.files_open);
	ok &= same("pipes", before.pipes_open, after.pipes_open);
	/* Not compared: kmalloc's free pools take whole pages for their
	 * pointer chunks as they grow and keep them, so free pages drift. */
	printf("fuzz: %-16s %10lu -> %10lu (not compared: kmalloc's pools keep pages)\n",
	       "free pages", before.free_pages, after.free_pages);
	printf("fuzz: %lu system calls in all since the baseline\n", after.syscalls - before.syscalls);
	if (bad || !ok) {
		printf("fuzz: FAIL: %d children failed; allocations %s\n", bad,
		       ok ? "back at the baseline" : "NOT back at the baseline");
		return 1;
	}
	printf("fuzz: PASS: %ld calls from %d processes on %d CPUs; the kernel survived and its "
	       "allocations are back at the baseline\n", calls * procs, procs, u.ncpus);
	return 0;
}
