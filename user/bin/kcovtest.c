/*
 * kcovtest: KCOV's buffer holds the calling task's own kernel code, in
 * order, and nothing else (include/uapi/kcov.h, docs/kcov.md).
 *
 * A child pinned to another CPU calls uname() in a loop; this process,
 * pinned to CPU 0, enables KCOV and runs getpid(), open(), read() and
 * close() of /etc/motd, then spins in user mode across several timer
 * ticks. Each PC read back is resolved through the kernel's symbol
 * table (ksym_lookup()): the four calls' functions must be there, in the
 * order made; the child's sys_uname must not (another task's coverage),
 * nor the tick's handler, tick_interrupt (an interrupt's). Then the
 * interface: its errors, an overflow reported and not lost silently,
 * EFAULT, and a buffer freed at exit (kmalloc back at its baseline).
 *
 *   kcovtest            the checks, "kcovtest: PASS: N checks" at the end
 *   kcovtest dump       print the PCs of one getpid() as "kcov: pc <hex>"
 *
 * In a kernel without CONFIG_KCOV it checks for ENOSYS and stops.
 */
#define CHECK_PROG "kcovtest"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <time.h>
#include <sys/wait.h>
#include <sys/utsname.h>
#include <sys/module.h>
#include <sys/kcov.h>
#include <quiescent.h>

#define CAP		QS_KCOV_MAX
#define SPIN_MS		40	/* ten ticks at HZ=250: interrupts while recording */

static uint64_t pcs[CAP];

struct seen {
	const char *name;
	long first;		/* index of its first PC, -1 if none */
};

static struct seen want[] = {
	{ "sys_getpid", -1 }, { "sys_open", -1 }, { "sys_read", -1 }, { "sys_close", -1 },
};
static struct seen unwanted[] = {
	{ "sys_uname", -1 },		/* the child's, on the other CPU */
	{ "tick_interrupt", -1 },	/* the timer interrupt's handler */
};

static void pin(int cpu)
{
	cpu_set_t m;

	CPU_ZERO(&m);
	CPU_SET(cpu, &m);
	CHECK(sched_setaffinity(0, sizeof(m), &m) == 0, "pin to cpu %d", cpu);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The function a PC is in: "sys_getpid+0x1a/0x40" cut at the '+'. */
static void func_of(uint64_t pc, char *name, size_t len)
{
	if (ksym_lookup(pc, name, len) < 0) {
		snprintf(name, len, "?");
		return;
	}
	name[strcspn(name, "+")] = '\0';
}

static void classify(long n)
{
	char name[96];

	for (long i = 0; i < n; i++) {
		/* Consecutive PCs of one function resolve to one name: look
		 * up each run once (a syscall each, a few thousand PCs). */
		if (i && pcs[i] == pcs[i - 1])
			continue;
		func_of(pcs[i], name, sizeof(name));
		for (unsigned j = 0; j < sizeof(want) / sizeof(want[0]); j++)
			if (want[j].first < 0 && !strcmp(name, want[j].name))
				want[j].first = i;
		for (unsigned j = 0; j < sizeof(unwanted) / sizeof(unwanted[0]); j++)
			if (unwanted[j].first < 0 && !strcmp(name, unwanted[j].name)) {
				unwanted[j].first = i;
				printf("kcovtest: %s at index %ld: pc %lx\n", name, i,
				       (unsigned long)pcs[i]);
			}
	}
}

static pid_t start_busy_child(int cpu, int *ready_fd)
{
	int fds[2];
	pid_t pid;

	if (pipe2(fds, 0) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		struct utsname u;
		cpu_set_t m;

		close(fds[0]);
		CPU_ZERO(&m);
		CPU_SET(cpu, &m);
		sched_setaffinity(0, sizeof(m), &m);
		write(fds[1], "r", 1);
		close(fds[1]);
		for (;;)
			uname(&u);
	}
	close(fds[1]);
	*ready_fd = fds[0];
	return pid;
}

static void sequence(void)
{
	char buf[64];
	int fd;

	getpid();
	fd = open("/etc/motd", O_RDONLY);
	CHECK(fd >= 0, "open /etc/motd");
	CHECK(read(fd, buf, sizeof(buf)) > 0, "read /etc/motd");
	close(fd);
}

static void check_coverage(int ncpus)
{
	int ready = -1;
	pid_t child = -1;
	long n, t0;
	char c;

	pin(0);
	if (ncpus > 1) {
		child = start_busy_child(1, &ready);
		CHECK(child > 0, "fork the uname() loop");
		CHECK(read(ready, &c, 1) == 1, "the uname() loop started");
		close(ready);
	}
	CHECK(qs_kcov(QS_KCOV_ENABLE, CAP, 0) == 0, "enable with %d PCs", CAP);
	FAILS(qs_kcov(QS_KCOV_ENABLE, CAP, 0), EBUSY);
	qs_kcov(QS_KCOV_READ, (unsigned long)pcs, CAP);	/* empty it */
	sequence();
	t0 = now_ms();
	while (now_ms() - t0 < SPIN_MS)
		for (volatile int i = 0; i < 100000; i++)
			;
	n = qs_kcov(QS_KCOV_READ, (unsigned long)pcs, CAP);
	CHECK(n > 0 && !(n & QS_KCOV_OVERFLOW), "read the PCs: %ld", n);
	CHECK(qs_kcov(QS_KCOV_DISABLE, 0, 0) == 0, "disable");
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	if (n <= 0)
		return;
	/* Full: still look at what it holds, which names whose PCs filled it. */
	n &= ~QS_KCOV_OVERFLOW;
	classify(n);
	printf("kcovtest: %ld PCs for the sequence and %d ms of spinning\n", n, SPIN_MS);
	for (unsigned j = 0; j < sizeof(want) / sizeof(want[0]); j++) {
		CHECK(want[j].first >= 0, "%s is in the buffer", want[j].name);
		if (j)
			CHECK(want[j].first > want[j - 1].first, "%s (at %ld) comes after %s (at %ld)",
			      want[j].name, want[j].first, want[j - 1].name, want[j - 1].first);
	}
	CHECK(unwanted[0].first < 0 || ncpus < 2,
	      "another task's sys_uname is in this task's buffer (index %ld)", unwanted[0].first);
	CHECK(unwanted[1].first < 0,
	      "the timer interrupt's tick_interrupt is in the buffer (index %ld)", unwanted[1].first);
}

static void check_interface(void)
{
	long r;

	FAILS(qs_kcov(QS_KCOV_READ, (unsigned long)pcs, CAP), EINVAL);	/* not enabled */
	FAILS(qs_kcov(QS_KCOV_DISABLE, 0, 0), EINVAL);
	FAILS(qs_kcov(QS_KCOV_ENABLE, 0, 0), EINVAL);
	FAILS(qs_kcov(QS_KCOV_ENABLE, CAP + 1, 0), EINVAL);
	FAILS(qs_kcov(99, 0, 0), EINVAL);

	/* 4 PCs hold less than one getpid() (its way in alone is more): the
	 * rest are dropped, and the read says so. */
	CHECK(qs_kcov(QS_KCOV_ENABLE, 4, 0) == 0, "enable with 4 PCs");
	getpid();
	r = qs_kcov(QS_KCOV_READ, (unsigned long)pcs, CAP);
	CHECK(r == (long)(4 | QS_KCOV_OVERFLOW), "a full buffer reads as 4 | OVERFLOW: %#lx", r);
	getpid();
	r = qs_kcov(QS_KCOV_READ, (unsigned long)pcs, 1);
	CHECK(r == (long)(1 | QS_KCOV_OVERFLOW), "a read of 1 of more reads as 1 | OVERFLOW: %#lx", r);
	CHECK(qs_kcov(QS_KCOV_DISABLE, 0, 0) == 0, "disable");
	/* Two reads back to back: the second holds only the first's way out
	 * and its own way in, without overflow. */
	CHECK(qs_kcov(QS_KCOV_ENABLE, CAP, 0) == 0, "enable again after a disable");
	qs_kcov(QS_KCOV_READ, (unsigned long)pcs, CAP);
	r = qs_kcov(QS_KCOV_READ, (unsigned long)pcs, CAP);
	CHECK(r > 0 && r < 64, "a read right after a read: %ld PCs", r);
	getpid();
	FAILS(qs_kcov(QS_KCOV_READ, 8, CAP), EFAULT);
	CHECK(qs_kcov(QS_KCOV_DISABLE, 0, 0) == 0, "disable");
}

static void snapshot(struct qs_stats *s)
{
	qs_rcu(QS_RCU_BARRIER, 0);
	qs_stats(s, 0);
}

/* A child that enables KCOV and exits without disabling: exit frees it. */
static void check_exit_frees(void)
{
	struct qs_stats s0, s1;
	pid_t pid;
	int status = -1;

	snapshot(&s0);
	pid = fork();
	if (pid == 0)
		_exit(qs_kcov(QS_KCOV_ENABLE, CAP, 0) == 0 ? 0 : 1);
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "the child enabled KCOV and exited: status %#x", status);
	for (int tries = 0; tries < 40; tries++) {
		snapshot(&s1);
		if (s1.kmalloc_objects == s0.kmalloc_objects && s1.kmalloc_bytes == s0.kmalloc_bytes)
			break;
		usleep(50000);
	}
	CHECK(s1.kmalloc_objects == s0.kmalloc_objects && s1.kmalloc_bytes == s0.kmalloc_bytes,
	      "kmalloc back at its baseline after the child's exit: objects %lu -> %lu, bytes %lu -> %lu",
	      (unsigned long)s0.kmalloc_objects, (unsigned long)s1.kmalloc_objects,
	      (unsigned long)s0.kmalloc_bytes, (unsigned long)s1.kmalloc_bytes);
}

static int dump(void)
{
	long n;

	if (qs_kcov(QS_KCOV_ENABLE, CAP, 0) < 0) {
		printf("kcovtest: enable: %s\n", strerror(errno));
		return 1;
	}
	qs_kcov(QS_KCOV_READ, (unsigned long)pcs, CAP);
	getpid();
	n = qs_kcov(QS_KCOV_READ, (unsigned long)pcs, CAP);
	for (long i = 0; i < (n & ~QS_KCOV_OVERFLOW); i++)
		printf("kcov: pc %lx\n", (unsigned long)pcs[i]);
	return 0;
}

int main(int argc, char **argv)
{
	struct utsname u;

	if (qs_kcov(QS_KCOV_DISABLE, 0, 0) < 0 && errno == ENOSYS) {
		printf("kcovtest: no KCOV in this kernel (qs_kcov() is ENOSYS)\n");
		return check_summary();
	}
	if (argc > 1 && !strcmp(argv[1], "dump"))
		return dump();
	uname(&u);
	check_interface();
	check_coverage(u.ncpus);
	check_exit_frees();
	return check_summary();
}
