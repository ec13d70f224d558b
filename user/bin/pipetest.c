/*
 * pipetest: pipes, dup/dup2 and SIGPIPE against what POSIX says (and
 * Linux does), and nothing leaked (docs/files.md, "Pipes"):
 *
 *   - pipe() gives the two lowest free descriptors, a FIFO, read end
 *     read-only and write end write-only, ESPIPE on lseek;
 *   - data goes through in order, across the ring's wrap, and a write
 *     of at most PIPE_BUF bytes is never split;
 *   - O_NONBLOCK (pipe2 or F_SETFL): EAGAIN on an empty read and on a
 *     write that does not fit, a partial count for a long one;
 *   - a blocked read wakes for a writer on another CPU, a blocked write
 *     for a reader; kill() ends either; an ignored signal does not;
 *   - end of file only when the last write end is closed (fork and dup
 *     share an end);
 *   - a write with no reader: the writer dies of SIGPIPE (waitpid sees
 *     WIFSIGNALED, WTERMSIG 13), also a writer blocked when the last
 *     reader goes; with signal(SIGPIPE, SIG_IGN) it gets EPIPE instead,
 *     and the disposition survives fork and exec;
 *   - dup2 onto itself, onto an open pipe end (closed: its reader sees
 *     EOF), EBADF for negative and huge descriptors, O_CLOEXEC;
 *   - EMFILE (also with one descriptor left), ENFILE past the system's
 *     pipe limit (children each filling their table), EFAULT for a bad
 *     fds pointer (the descriptors taken back), EINVAL for bad flags;
 *   - pipes, open files and kmalloc objects back at their baseline.
 *
 *   pipetest               the checks; PASS or FAIL and what failed
 *   pipetest epipe FD      (after exec) a write to FD must fail with EPIPE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include <signal.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <quiescent.h>

#define CHECK_PROG "pipetest"
#include <check.h>

static char big[3 * PIPE_BUF + 123], back[sizeof(big)];
static int ncpus = 1;

/* Run the calling child on another CPU than its parent, where there is one. */
static void other_cpu(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET((sched_getcpu() + 1) % ncpus, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static int wait_status(pid_t pid)
{
	int st = -1;

	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return st;
}

static void check_basics(void)
{
	int p[2] = { -1, -1 }, q[2];
	struct stat st;
	char buf[64];

	CHECK(pipe(p) == 0 && p[0] == 3 && p[1] == 4, "pipe gives fds 3 and 4, got %d %d",
	      p[0], p[1]);
	CHECK(fstat(p[0], &st) == 0 && S_ISFIFO(st.st_mode), "a FIFO (mode %#o)", st.st_mode);
	CHECK(fcntl(p[0], F_GETFL) == O_RDONLY && fcntl(p[1], F_GETFL) == O_WRONLY,
	      "the ends' access modes");
	CHECK(fcntl(p[0], F_GETFD) == 0, "no FD_CLOEXEC without O_CLOEXEC");
	FAILS(lseek(p[0], 0, SEEK_SET), ESPIPE);
	FAILS(write(p[0], "x", 1), EBADF);
	FAILS(read(p[1], buf, 1), EBADF);
	CHECK(write(p[1], "hello", 5) == 5, "write 5");
	CHECK(fstat(p[0], &st) == 0 && st.st_size == 5, "5 bytes buffered, size %ld",
	      (long)st.st_size);
	CHECK(read(p[0], buf, 0) == 0 && write(p[1], buf, 0) == 0, "zero-length calls");
	FAILS(read(p[0], (void *)0xffff800000100000UL, 5), EFAULT);
	CHECK(read(p[0], buf, 3) == 3 && !memcmp(buf, "hel", 3), "a short read");
	CHECK(write(p[1], " world", 6) == 6, "write 6");
	CHECK(read(p[0], buf, sizeof(buf)) == 8 && !memcmp(buf, "lo world", 8),
	      "a read returns what is there, in order (after the EFAULT kept it)");
	FAILS(write(p[1], (void *)16, 4), EFAULT);
	CHECK(close(p[1]) == 0 && read(p[0], buf, 1) == 0, "end of file once the writer closed");
	close(p[0]);

	FAILS(pipe(NULL), EFAULT);
	FAILS(pipe((int *)0xffff800000000000UL), EFAULT);
	/* mapped but read-only: the descriptors were installed, then taken back */
	FAILS(pipe((int *)(void *)check_basics), EFAULT);
	FAILS(pipe2(q, 0x40), EINVAL);
	FAILS(pipe2(q, -1), EINVAL);
	CHECK(pipe2(q, O_CLOEXEC) == 0 && q[0] == 3 && q[1] == 4, "after the EFAULTs fds 3 and 4 "
	      "are free again, got %d %d", q[0], q[1]);
	CHECK(fcntl(q[0], F_GETFD) == FD_CLOEXEC && fcntl(q[1], F_GETFD) == FD_CLOEXEC,
	      "O_CLOEXEC");
	close(q[0]);
	close(q[1]);
}

static void check_nonblock(void)
{
	int p[2];
	char buf[PIPE_BUF];
	long n;

	CHECK(pipe2(p, O_NONBLOCK) == 0, "pipe2(O_NONBLOCK)");
	CHECK(fcntl(p[0], F_GETFL) == (O_RDONLY | O_NONBLOCK), "F_GETFL shows O_NONBLOCK");
	FAILS(read(p[0], buf, 1), EAGAIN);
	memset(buf, 'a', sizeof(buf));
	CHECK(write(p[1], buf, PIPE_BUF - 100) == PIPE_BUF - 100, "fill all but 100 bytes");
	FAILS(write(p[1], buf, 200), EAGAIN);	/* <= PIPE_BUF: all or nothing */
	CHECK(write(p[1], buf, 100) == 100, "the last 100 bytes fit");
	FAILS(write(p[1], buf, 1), EAGAIN);
	CHECK(read(p[0], buf, sizeof(buf)) == PIPE_BUF, "drain");
	n = write(p[1], big, sizeof(big));
	CHECK(n == PIPE_BUF, "a long non-blocking write goes in part: %ld", n);
	close(p[0]);
	close(p[1]);

	CHECK(pipe(p) == 0, "pipe");
	CHECK(fcntl(p[0], F_SETFL, O_NONBLOCK) == 0, "F_SETFL O_NONBLOCK");
	FAILS(read(p[0], buf, 1), EAGAIN);
	close(p[0]);
	close(p[1]);
}

/* A blocked read wakes for a writer on another CPU; data through the ring's wrap. */
static void check_blocking(void)
{
	int p[2], st;
	pid_t pid;
	long got = 0, n;

	for (unsigned int i = 0; i < sizeof(big); i++)
		big[i] = (char)(i * 7 + i / 251);
	CHECK(pipe(p) == 0, "pipe");
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		other_cpu();
		usleep(30000);			/* the parent is asleep in read by now */
		/* longer than the pipe: this write blocks until the parent reads */
		_exit(write(p[1], big, sizeof(big)) == (long)sizeof(big) ? 0 : 1);
	}
	close(p[1]);
	while ((n = read(p[0], back + got, sizeof(back) - got)) > 0)
		got += n;
	CHECK(n == 0 && got == (long)sizeof(big) && !memcmp(big, back, sizeof(big)),
	      "%ld of %zu bytes through the pipe, then EOF (last read %ld)", got, sizeof(big), n);
	st = wait_status(pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the blocking writer: status %#x", st);
	close(p[0]);

	/* A writer blocked on a full pipe wakes when a reader makes room. */
	CHECK(pipe(p) == 0, "pipe");
	CHECK(write(p[1], big, PIPE_BUF) == PIPE_BUF, "fill");
	pid = fork();
	if (pid == 0) {
		char buf[PIPE_BUF];

		close(p[1]);
		other_cpu();
		usleep(30000);
		_exit(read(p[0], buf, sizeof(buf)) == PIPE_BUF ? 0 : 1);
	}
	CHECK(write(p[1], "more", 4) == 4, "a write to a full pipe waited for room");
	st = wait_status(pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the reader: status %#x", st);
	close(p[0]);
	close(p[1]);
}

/* EOF comes only with the last write end: fork and dup each hold one. */
static void check_eof(void)
{
	int p[2], d, st;
	char c;
	pid_t pid;

	CHECK(pipe(p) == 0, "pipe");
	d = dup(p[1]);
	CHECK(d == p[1] + 1, "dup gives the lowest free fd: %d", d);
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		other_cpu();
		usleep(30000);
		write(d, "c", 1);		/* through the inherited dup */
		_exit(0);			/* exit closes p[1] and d */
	}
	close(d);
	close(p[1]);
	CHECK(read(p[0], &c, 1) == 1 && c == 'c', "the child's byte through an inherited dup");
	CHECK(read(p[0], &c, 1) == 0, "EOF when the child, the last writer, exits");
	st = wait_status(pid);
	CHECK(WIFEXITED(st), "status %#x", st);
	close(p[0]);
}

static void check_sigpipe(void)
{
	int p[2], st;
	pid_t pid;

	FAILS(signal(SIGKILL, SIG_IGN), EINVAL);
	FAILS(signal(0, SIG_IGN), EINVAL);
	FAILS(signal(QS_NSIG, SIG_IGN), EINVAL);
	FAILS(signal(SIGPIPE, (sighandler_t)check_sigpipe), EINVAL);	/* no handlers */

	/* The default: a write with no reader kills the writer. */
	CHECK(pipe(p) == 0, "pipe");
	close(p[0]);
	pid = fork();
	if (pid == 0) {
		write(p[1], "x", 1);
		_exit(99);			/* not reached */
	}
	st = wait_status(pid);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGPIPE,
	      "a write with no reader: killed by SIGPIPE, status %#x", st);

	/* Ignored: EPIPE, across fork and exec. */
	pid = fork();
	if (pid == 0) {
		char fd[8], *argv[] = { "pipetest", "epipe", fd, NULL };
		int ok = signal(SIGPIPE, SIG_IGN) == SIG_DFL && write(p[1], "x", 1) == -1 &&
			 errno == EPIPE;
		pid_t g = fork();

		if (g == 0)
			_exit(write(p[1], "x", 1) == -1 && errno == EPIPE ? 0 : 1);
		st = wait_status(g);
		if (!ok || !WIFEXITED(st) || WEXITSTATUS(st))
			_exit(2);
		snprintf(fd, sizeof(fd), "%d", p[1]);
		execv("/bin/pipetest", argv);
		_exit(3);
	}
	st = wait_status(pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "with SIGPIPE ignored: EPIPE, also in a child and after exec, status %#x", st);
	close(p[1]);

	/* A writer blocked on a full pipe when the last reader closes: SIGPIPE. */
	CHECK(pipe(p) == 0, "pipe");
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		other_cpu();
		write(p[1], big, sizeof(big));	/* fills, then blocks */
		_exit(99);
	}
	close(p[1]);
	usleep(30000);
	close(p[0]);
	st = wait_status(pid);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGPIPE,
	      "a blocked writer whose reader left: status %#x", st);

	/* signal() reports the old disposition, and SIG_DFL restores death. */
	CHECK(signal(SIGPIPE, SIG_IGN) == SIG_DFL && signal(SIGPIPE, SIG_DFL) == SIG_IGN &&
	      signal(SIGPIPE, SIG_DFL) == SIG_DFL, "signal() returns the old disposition");
}

/* A blocked read ends with kill(); an ignored signal is discarded. */
static void check_kill(void)
{
	int p[2], st;
	pid_t pid;

	CHECK(pipe(p) == 0, "pipe");
	signal(SIGUSR1, SIG_IGN);		/* the child starts with it ignored */
	pid = fork();
	if (pid == 0) {
		char c;

		other_cpu();
		close(p[1]);
		_exit(read(p[0], &c, 1) == 1 && c == 'k' ? 7 : 1);
	}
	signal(SIGUSR1, SIG_DFL);
	usleep(30000);
	CHECK(kill(pid, SIGUSR1) == 0, "kill with an ignored signal");
	usleep(20000);
	CHECK(write(p[1], "k", 1) == 1, "write");
	st = wait_status(pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7,
	      "an ignored signal neither killed nor interrupted the read: status %#x", st);

	pid = fork();
	if (pid == 0) {
		char c;

		close(p[1]);
		read(p[0], &c, 1);		/* empty: blocks until killed */
		_exit(99);
	}
	usleep(30000);
	CHECK(kill(pid, SIGTERM) == 0, "kill a reader");
	st = wait_status(pid);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "a blocked reader killed: status %#x", st);
	close(p[0]);
	close(p[1]);
}

static void check_dup2(void)
{
	int a[2], b[2];
	char c;

	CHECK(pipe(a) == 0 && pipe(b) == 0, "two pipes");
	CHECK(dup2(a[0], a[0]) == a[0], "dup2 onto itself returns the fd");
	FAILS(dup2(77, 77), EBADF);
	FAILS(dup2(a[0], -1), EBADF);
	FAILS(dup2(a[0], QS_OPEN_MAX), EBADF);
	FAILS(dup2(a[0], 1 << 30), EBADF);
	FAILS(dup2(-1, 10), EBADF);
	FAILS(dup(-1), EBADF);
	FAILS(dup(0x7fffffff), EBADF);
	FAILS(close(-5), EBADF);
	FAILS(close(QS_OPEN_MAX + 1), EBADF);
	FAILS(write(-1, "x", 1), EBADF);
	FAILS(read(1 << 20, &c, 1), EBADF);

	/* dup2 onto a's only write end closes it: a's reader sees EOF. */
	fcntl(a[1], F_SETFD, FD_CLOEXEC);
	CHECK(dup2(b[1], a[1]) == a[1], "dup2 onto an open pipe end");
	CHECK(fcntl(a[1], F_GETFD) == 0, "dup2 clears FD_CLOEXEC on the new fd");
	CHECK(read(a[0], &c, 1) == 0, "the replaced write end is closed: EOF");
	CHECK(write(a[1], "z", 1) == 1 && read(b[0], &c, 1) == 1 && c == 'z',
	      "the fd now writes into the other pipe");
	close(a[0]);
	close(a[1]);
	close(b[0]);
	close(b[1]);
}

/* EMFILE: the table full of pipes, and with one descriptor left; nothing leaked. */
static void check_emfile(void)
{
	struct qs_stats s0, s1;
	int p[2], n = 0, last = -1;

	qs_stats(&s0, 0);
	if (s0.pipes_max - s0.pipes_open <= (QS_OPEN_MAX - 3) / 2) {
		printf("pipetest: pipe_max %lu is below a table's worth: EMFILE not checked\n",
		       s0.pipes_max);
		return;
	}
	while (pipe(p) == 0) {
		n++;
		last = p[1];
	}
	CHECK(errno == EMFILE, "the pipe past the limit: errno %d", errno);
	CHECK(n == (QS_OPEN_MAX - 3) / 2 && last == QS_OPEN_MAX - 2,
	      "%d pipes, last fd %d, before EMFILE", n, last);
	qs_stats(&s1, 0);
	CHECK(s1.pipes_open == s0.pipes_open + n, "pipes open %lu -> %lu", s0.pipes_open,
	      s1.pipes_open);
	/* one fd left: the read end cannot stay alone */
	FAILS(pipe(p), EMFILE);
	CHECK(dup(4) == QS_OPEN_MAX - 1, "the one free descriptor is still free after the failed pipe");
	qs_stats(&s1, 0);
	CHECK(s1.pipes_open == s0.pipes_open + n, "the failed pipes left none behind: %lu -> %lu",
	      s0.pipes_open, s1.pipes_open);
	for (int fd = 3; fd < QS_OPEN_MAX; fd++)
		close(fd);
}

/*
 * ENFILE: children each fill their table with pipes until the system's
 * limit (pipe_max) stops one; each reports why it stopped on `rep` and
 * holds its pipes until `go` reaches EOF.
 */
static void check_enfile(void)
{
	struct qs_stats s;
	int rep[2], go[2], kids = 0, enfile = 0, st;
	pid_t pids[32];
	long need;

	qs_stats(&s, 0);
	need = ((long)s.pipes_max - (long)s.pipes_open) / ((QS_OPEN_MAX - 7) / 2) + 2;
	if (need > 32) {
		printf("pipetest: pipe_max %lu needs %ld children: ENFILE not checked\n",
		       s.pipes_max, need);
		return;
	}
	CHECK(pipe(rep) == 0 && pipe(go) == 0, "pipes");
	while (kids < need && !enfile) {
		pid_t pid = fork();
		char why;

		if (pid == 0) {
			int p[2];

			close(rep[0]);
			close(go[1]);
			while (pipe(p) == 0)
				;
			why = errno == ENFILE ? 'N' : errno == EMFILE ? 'M' : '?';
			write(rep[1], &why, 1);
			_exit(read(go[0], &why, 1) == 0 ? 0 : 1);
		}
		if (pid < 0)
			break;
		pids[kids++] = pid;
		if (read(rep[0], &why, 1) != 1)
			break;
		enfile = why == 'N';
		CHECK(why == 'N' || why == 'M', "a child's pipes stopped with '%c'", why);
	}
	CHECK(enfile, "ENFILE within %d children (pipe_max %lu)", kids, s.pipes_max);
	if (enfile) {
		int p[2];

		qs_stats(&s, 0);
		CHECK(s.pipes_open == s.pipes_max, "the system is at its limit: %lu of %lu",
		      s.pipes_open, s.pipes_max);
		FAILS(pipe(p), ENFILE);
	}
	close(go[1]);
	close(go[0]);
	close(rep[0]);
	close(rep[1]);
	for (int i = 0; i < kids; i++) {
		st = wait_status(pids[i]);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a pipe filler: status %#x", st);
	}
}

int main(int argc, char **argv)
{
	struct qs_stats before, after;
	int p[2];

	if (argc == 3 && !strcmp(argv[1], "epipe"))
		return write(atoi(argv[2]), "x", 1) == -1 && errno == EPIPE ? 0 : 1;
	qs_stats(&before, QS_STATS_SYNC);
	ncpus = before.ncpus ? before.ncpus : 1;
	check_basics();
	check_nonblock();
	check_blocking();
	check_eof();
	check_sigpipe();
	check_kill();
	check_dup2();
	check_emfile();
	check_enfile();
	CHECK(pipe(p) == 0 && p[0] == 3, "a pipe again once the others are gone");
	close(p[0]);
	close(p[1]);
	qs_stats(&after, QS_STATS_SYNC);
	CHECK(after.pipes_open == before.pipes_open, "pipes %lu -> %lu", before.pipes_open,
	      after.pipes_open);
	CHECK(after.files_open == before.files_open, "open files %lu -> %lu",
	      before.files_open, after.files_open);
	/* objects, not bytes: our own descriptor table grew to QS_OPEN_MAX slots */
	CHECK(after.kmalloc_objects == before.kmalloc_objects, "kmalloc objects %lu -> %lu",
	      before.kmalloc_objects, after.kmalloc_objects);
	CHECK(after.processes == before.processes, "processes %lu -> %lu",
	      before.processes, after.processes);
	printf("pipetest: %lu pipes at most (pipe_max), %d descriptors per process, "
	       "PIPE_BUF %d\n", after.pipes_max, QS_OPEN_MAX, PIPE_BUF);
	return check_summary();
}
