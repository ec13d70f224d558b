/*
 * fuzz [procs] [calls] [seed]: the system-call fuzzer.
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
 * As root, before the children start, the parent also feeds init_module()
 * a bounded number of images (random bytes, and hello.ko truncated or with
 * a few random bytes changed) and delete_module() random names: every
 * image must be refused, and none can run: each goes with a parameter no
 * module has, so one that passes every check of the file is still
 * refused before its init (kernel/module/loader.c).
 *
 * Never chosen: exit, fork (the number of processes and calls would stop
 * being bounded) and read (it would wait for the console). write to the
 * console and nanosleep are tamed (short, a few dots; short sleeps) when
 * their arguments happen to be valid, so the run stays bounded; kill only
 * asks (signal 0: the siblings share our uid), and close and dup2 leave
 * fds 0-2 alone so that each child can print its summary.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sched.h>
#include <sys/wait.h>
#include <sys/utsname.h>
#include <sys/syscall.h>
#include <quiescent.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <sys/module.h>
#include <errno.h>

static char scratch[8192] __attribute__((aligned(4096)));
static unsigned long long state;

static unsigned long long rnd(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

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

		if (r % 8 == 1)		/* a socket call more often: they have many paths */
			nr = SYS_socket + (long)((r >> 3) % (SYS_qs_neigh - SYS_socket + 1));

		if (nr == SYS_exit || nr == SYS_fork || nr == SYS_read)
			continue;
		return nr;
	}
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

static void tame(long nr, long a[6])
{
	tame_socket(nr, a);
	/* Siblings share our uid: a signal would end them, so only ask. */
	if (nr == SYS_kill && a[1] > 0 && a[1] < QS_NSIG)
		a[1] = 0;
	/* qs_rcu: a few callbacks at a time (a bad count still gets EINVAL). */
	if (nr == SYS_qs_rcu && a[0] == QS_RCU_CALL && (unsigned long)a[1] <= QS_RCU_MAX_CALLS)
		a[1] %= 256;
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

static int child(int id, int ncpus, long calls)
{
	cpu_set_t set;
	long ok = 0, err = 0, sock_ok = 0;

	CPU_ZERO(&set);
	CPU_SET(id % ncpus, &set);
	sched_setaffinity(0, sizeof(set), &set);
	if (setuid(1000)) {
		perror("fuzz: setuid");
		return 1;
	}
	for (long i = 0; i < calls; i++) {
		long nr = pick_nr(), a[6];

		for (int k = 0; k < 6; k++)
			a[k] = rand_arg();
		tame(nr, a);
		if (__syscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5]) < 0) {
			err++;
		} else {
			ok++;
			sock_ok += nr >= SYS_socket && nr <= SYS_qs_neigh;
		}
	}
	printf("\nfuzz: child %d (pid %d, uid %d) on cpu %d: %ld calls, %ld failed as expected or not, "
	       "%ld socket calls succeeded\n", id, getpid(), getuid(), sched_getcpu(), ok + err, err,
	       sock_ok);
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
	struct qs_stats before, after;
	struct qs_module_stats mbefore, mafter;
	struct utsname u;
	int bad = 0;
	bool ok = true;

	if (procs < 1 || procs > 64 || calls < 0) {
		fprintf(stderr, "usage: fuzz [procs <= 64] [calls per process] [seed]\n");
		return 2;
	}
	uname(&u);
	/*
	 * A short warm-up round first: what the kernel allocates once and
	 * keeps (the first use of a path on a CPU) is not a leak. Then the
	 * baseline, the real round, and the comparison.
	 */
	printf("fuzz: warm-up: %d processes x %ld calls\n", procs, calls / 20 + 1);
	bad += round(procs, u.ncpus, calls / 20 + 1, seed + 1000);
	state = seed + 1000;
	bad += root_modules(10);
	qs_stats(&before, QS_STATS_SYNC);
	module_stats(&mbefore);
	printf("fuzz: %d processes x %ld calls on %d CPUs, seed %lu\n", procs, calls, u.ncpus, seed);
	state = seed;
	bad += root_modules(calls / 20 < 300 ? calls / 20 : 300);
	bad += round(procs, u.ncpus, calls, seed);
	qs_stats(&after, QS_STATS_SYNC);
	module_stats(&mafter);
	ok &= same("module pages", mbefore.pages, mafter.pages);
	ok &= same("kmalloc objects", before.kmalloc_objects, after.kmalloc_objects);
	ok &= same("kmalloc bytes", before.kmalloc_bytes, after.kmalloc_bytes);
	ok &= same("tasks", before.tasks_alive, after.tasks_alive);
	ok &= same("processes", before.processes, after.processes);
	ok &= same("user pages", before.user_pages, after.user_pages);
	ok &= same("open files", before.files_open, after.files_open);
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
