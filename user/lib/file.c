/* Descriptors, files and signals: open, close, lseek, fstat, dup, pipe, fcntl, kill, signal. */
#include <sys/syscall.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>
#include <signal.h>
#include <stdarg.h>
#include <errno.h>
#include <quiescent.h>

static long ret(long r)
{
	if (r < 0 && r > -4096) {
		errno = -r;
		return -1;
	}
	return r;
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	int mode;

	va_start(ap, flags);
	mode = flags & O_CREAT ? va_arg(ap, int) : 0;
	va_end(ap);
	return ret(__syscall3(SYS_open, path, flags, mode));
}

int close(int fd)			{ return ret(__syscall1(SYS_close, fd)); }
off_t lseek(int fd, off_t off, int w)	{ return ret(__syscall3(SYS_lseek, fd, off, w)); }
int dup(int fd)				{ return ret(__syscall1(SYS_dup, fd)); }
int dup2(int fd, int newfd)		{ return ret(__syscall2(SYS_dup2, fd, newfd)); }
int kill(pid_t pid, int sig)		{ return ret(__syscall2(SYS_kill, pid, sig)); }
int pipe2(int fds[2], int flags)	{ return ret(__syscall2(SYS_pipe2, fds, flags)); }
int pipe(int fds[2])			{ return pipe2(fds, 0); }

sighandler_t signal(int sig, sighandler_t handler)
{
	long r = __syscall2(SYS_signal, sig, (long)handler);

	if (r < 0) {
		ret(r);
		return SIG_ERR;
	}
	return (sighandler_t)r;
}
gid_t getgid(void)			{ return __syscall0(SYS_getgid); }
gid_t getegid(void)			{ return __syscall0(SYS_getgid); }
uid_t geteuid(void)			{ return __syscall0(SYS_getuid); }
int setgid(gid_t gid)			{ return ret(__syscall1(SYS_setgid, gid)); }

int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	long arg;

	va_start(ap, cmd);
	arg = va_arg(ap, long);
	va_end(ap);
	return ret(__syscall3(SYS_fcntl, fd, cmd, arg));
}

int fstat(int fd, struct stat *st)
{
	struct qs_stat s;
	long r = __syscall2(SYS_fstat, fd, &s);

	if (r < 0)
		return ret(r);
	st->st_size = s.size;
	st->st_mode = s.mode;
	st->st_uid = s.uid;
	st->st_gid = s.gid;
	return 0;
}

int qs_readdir(int index, struct qs_dirent *d)
{
	return ret(__syscall2(SYS_qs_readdir, index, d));
}
