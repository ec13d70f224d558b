/*
 * filetest: file descriptors, the initrd's files (in ramfs) behind open(),
 * kill(), and group ids, against what POSIX says (and Linux does):
 * offsets shared across fork and dup, the lowest free descriptor, EMFILE,
 * FD_CLOEXEC across exec, EBADF/ENOENT/EISDIR/EEXIST/ENOTDIR/EINVAL/
 * EFAULT/ENAMETOOLONG/ESPIPE, kill() ending a sleeping and a spinning
 * child on another CPU with the signal waitpid() reports, EPERM and
 * ESRCH; and nothing leaked (open files and allocations back at their
 * baseline once the children are reaped).
 *
 *   filetest                 the checks; PASS or FAIL and what failed
 *   filetest closed N M      (after exec) fd N must be closed, fd M open
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include <signal.h>
#include <time.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <quiescent.h>

#define CHECK_PROG "filetest"
#include <check.h>

static const char motd_start[] = "Welcome to Quiescent";

static void check_open_read(void)
{
	char buf[512];
	struct stat st;
	int fd = open("/etc/motd", O_RDONLY);
	long n;

	CHECK(fd == 3, "the first open gets fd 3, got %d", fd);
	CHECK(fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 20, "fstat");
	n = read(fd, buf, sizeof(buf));
	CHECK(n == st.st_size, "read %ld of %ld bytes", n, (long)st.st_size);
	CHECK(!memcmp(buf, motd_start, sizeof(motd_start) - 1), "contents");
	CHECK(read(fd, buf, sizeof(buf)) == 0, "end of file reads 0");
	CHECK(lseek(fd, 8, SEEK_SET) == 8, "SEEK_SET");
	CHECK(read(fd, buf, 2) == 2 && !memcmp(buf, "to", 2), "read after seek");
	CHECK(lseek(fd, -2, SEEK_CUR) == 8, "SEEK_CUR");
	CHECK(lseek(fd, 0, SEEK_END) == st.st_size, "SEEK_END");
	FAILS(lseek(fd, -1, SEEK_SET), EINVAL);
	FAILS(lseek(fd, 0, 7), EINVAL);
	FAILS(lseek(1, 0, SEEK_SET), ESPIPE);
	FAILS(write(fd, "x", 1), EBADF);
	CHECK(close(fd) == 0, "close");
	FAILS(close(fd), EBADF);
	FAILS(read(fd, buf, 1), EBADF);
	FAILS(read(-1, buf, 1), EBADF);
	FAILS(read(1000, buf, 1), EBADF);
	FAILS(fstat(77, &st), EBADF);

	FAILS(open("/etc/nothing", O_RDONLY), ENOENT);
	FAILS(open("/etc", O_WRONLY), EISDIR);
	FAILS(open("/etc", O_RDWR), EISDIR);
	FAILS(open("/etc/none/new", O_WRONLY | O_CREAT, 0644), ENOENT);
	FAILS(open("/etc/motd", O_RDONLY | O_CREAT | O_EXCL, 0644), EEXIST);
	FAILS(open("/etc/motd", O_RDONLY | O_DIRECTORY), ENOTDIR);
	FAILS(open("/etc/motd", 3), EINVAL);
	FAILS(open("/etc/motd", 0x40000000), EINVAL);
	FAILS(open(NULL, O_RDONLY), EFAULT);
	FAILS(open((char *)0xffffffff80100000UL, O_RDONLY), EFAULT);
	{
		static char longpath[QS_PATH_MAX + 10];
		memset(longpath, 'a', sizeof(longpath) - 1);
		FAILS(open(longpath, O_RDONLY), ENAMETOOLONG);
	}
	fd = open("/bin/sh", O_RDONLY);
	CHECK(fd >= 0 && read(fd, buf, 4) == 4 && !memcmp(buf, "\177ELF", 4), "a program's ELF header");
	FAILS(read(fd, (void *)0xffff800000100000UL, 4), EFAULT);
	FAILS(syscall(SYS_fstat, fd, (void *)16), EFAULT);
	close(fd);
	fd = open("/bin", O_RDONLY | O_DIRECTORY);
	CHECK(fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode), "a directory opens with O_DIRECTORY");
	close(fd);
}

static void check_dup_fcntl(void)
{
	char a[4], b[4];
	int fd = open("/etc/motd", O_RDONLY), d, d2;

	d = dup(fd);
	CHECK(d == fd + 1, "dup gives the lowest free fd (%d, %d)", fd, d);
	CHECK(read(fd, a, 4) == 4 && read(d, b, 4) == 4 && !memcmp(a, "Welc", 4) &&
	      !memcmp(b, "ome ", 4), "dup shares the offset");
	d2 = open("/etc/motd", O_RDONLY);
	CHECK(dup2(fd, d2) == d2 && lseek(d2, 0, SEEK_CUR) == 8, "dup2 replaces an open fd");
	CHECK(dup2(fd, fd) == fd, "dup2 onto itself");
	FAILS(dup2(fd, QS_OPEN_MAX), EBADF);
	FAILS(dup2(fd, -1), EBADF);
	FAILS(dup(55), EBADF);
	CHECK(fcntl(fd, F_DUPFD, 20) == 20, "F_DUPFD from 20");
	CHECK(fcntl(fd, F_GETFL) == O_RDONLY, "F_GETFL");
	CHECK(fcntl(fd, F_SETFL, O_NONBLOCK) == 0 && (fcntl(d, F_GETFL) & O_NONBLOCK),
	      "O_NONBLOCK belongs to the open file, seen through its dup");
	CHECK(fcntl(fd, F_GETFD) == 0 && fcntl(fd, F_SETFD, FD_CLOEXEC) == 0 &&
	      fcntl(fd, F_GETFD) == FD_CLOEXEC && fcntl(d, F_GETFD) == 0,
	      "FD_CLOEXEC belongs to the descriptor");
	FAILS(fcntl(fd, 99), EINVAL);
	FAILS(fcntl(40, F_GETFL), EBADF);
	close(20);
	close(d2);

	/* Across fork the offset is shared, and exec closes FD_CLOEXEC fds. */
	pid_t pid = fork();
	if (pid == 0) {
		char fdn[8], keep[8];
		char *argv[] = { "filetest", "closed", fdn, keep, NULL };

		lseek(fd, 0, SEEK_SET);
		snprintf(fdn, sizeof(fdn), "%d", fd);
		snprintf(keep, sizeof(keep), "%d", d);
		execv("/bin/filetest", argv);
		_exit(99);
	}
	int st = -1;
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "child after exec: status %#x", st);
	CHECK(lseek(d, 0, SEEK_CUR) == 0, "the child's lseek moved the shared offset");
	close(fd);
	close(d);

	/* EMFILE, then every descriptor back. */
	int opened = 0, last = -1;
	for (int i = 0; i < QS_OPEN_MAX + 4; i++) {
		int f = open("/etc/motd", O_RDONLY);
		if (f < 0) {
			CHECK(errno == EMFILE, "the open past the limit");
			break;
		}
		opened++;
		last = f;
	}
	CHECK(opened == QS_OPEN_MAX - 3 && last == QS_OPEN_MAX - 1, "%d opened", opened);
	for (int f = 3; f < QS_OPEN_MAX; f++)
		close(f);
}

static pid_t child_that(int spin)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (spin)
			for (;;)
				__asm__ __volatile__("" ::: "memory");
		sleep(100);
		_exit(0);
	}
	return pid;
}

static void check_kill(void)
{
	int st = -1;
	long t0;
	struct timespec ts;
	pid_t a, b, c;

	a = child_that(0);
	usleep(20000);
	CHECK(kill(a, 0) == 0, "kill(pid, 0) finds a live child");
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	CHECK(kill(a, SIGTERM) == 0, "kill a sleeping child");
	CHECK(waitpid(a, &st, 0) == a && WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM,
	      "status %#x", st);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	printf("filetest: a sleeping child ended %ld ms after kill\n",
	       ts.tv_sec * 1000 + ts.tv_nsec / 1000000 - t0);

	b = child_that(1);
	usleep(20000);
	CHECK(kill(b, SIGKILL) == 0, "kill a spinning child");
	CHECK(waitpid(b, &st, 0) == b && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
	      "status %#x", st);
	FAILS(kill(b, SIGTERM), ESRCH);
	FAILS(kill(100000, SIGTERM), ESRCH);
	FAILS(kill(getpid(), QS_NSIG), EINVAL);
	FAILS(kill(getpid(), -1), EINVAL);
	FAILS(kill(0, SIGTERM), EINVAL);

	/* An unprivileged process may not signal root's. */
	c = fork();
	if (c == 0) {
		int ok = setgid(100) == 0 && getgid() == 100 && setuid(1000) == 0 &&
			 kill(getppid(), SIGTERM) == -1 && errno == EPERM &&
			 setgid(5) == -1 && errno == EPERM && getegid() == 100 &&
			 geteuid() == 1000;
		_exit(ok ? 0 : 1);
	}
	CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "unprivileged kill and setgid: status %#x", st);
}

int main(int argc, char **argv)
{
	struct qs_stats before, after;

	if (argc == 4 && !strcmp(argv[1], "closed")) {
		struct stat st;
		int gone = atoi(argv[2]), kept = atoi(argv[3]);
		if (fstat(gone, &st) == 0 || errno != EBADF || fstat(kept, &st) != 0 ||
		    lseek(kept, 0, SEEK_SET) != 0)
			return 1;
		return 0;
	}
	qs_stats(&before, QS_STATS_SYNC);
	check_open_read();
	check_dup_fcntl();
	check_kill();
	qs_stats(&after, QS_STATS_SYNC);
	CHECK(after.files_open == before.files_open, "open files %lu -> %lu",
	      before.files_open, after.files_open);
	CHECK(after.kmalloc_objects == before.kmalloc_objects, "kmalloc objects %lu -> %lu",
	      before.kmalloc_objects, after.kmalloc_objects);
	CHECK(after.processes == before.processes, "processes %lu -> %lu",
	      before.processes, after.processes);
	return check_summary();
}
