/* The system-call stubs: POSIX names over include/uapi/quiescent.h. */
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/utsname.h>
#include <sys/kcov.h>
#include <sys/c2c.h>
#include <unistd.h>
#include <sched.h>
#include <time.h>
#include <errno.h>
#include <stdarg.h>
#include <quiescent.h>

static long ret(long r)
{
	if (r < 0 && r > -4096) {
		errno = -r;
		return -1;
	}
	return r;
}

long syscall(long nr, ...)
{
	va_list ap;
	long a[6];

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	return ret(__syscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5]));
}

ssize_t read(int fd, void *buf, size_t n)	{ return ret(__syscall3(SYS_read, fd, buf, n)); }
ssize_t write(int fd, const void *buf, size_t n) { return ret(__syscall3(SYS_write, fd, buf, n)); }
pid_t fork(void)				{ return ret(__syscall0(SYS_fork)); }
pid_t getpid(void)				{ return __syscall0(SYS_getpid); }
pid_t getppid(void)				{ return __syscall0(SYS_getppid); }
uid_t getuid(void)				{ return __syscall0(SYS_getuid); }
int setuid(uid_t uid)				{ return ret(__syscall1(SYS_setuid, uid)); }
int sched_yield(void)				{ return ret(__syscall0(SYS_sched_yield)); }
int sched_getcpu(void)				{ return ret(__syscall0(SYS_getcpu)); }
int uname(struct utsname *u)			{ return ret(__syscall1(SYS_uname, u)); }
int qs_stats(struct qs_stats *s, int flags)	{ return ret(__syscall3(SYS_qs_stats, s, sizeof(*s), flags)); }
int qs_ps(struct qs_procinfo *buf, int max)	{ return ret(__syscall2(SYS_qs_ps, buf, max)); }
int poweroff(int code)				{ return ret(__syscall1(SYS_poweroff, code)); }
long qs_cpu(long op, unsigned long cpu)		{ return ret(__syscall2(SYS_qs_cpu, op, cpu)); }
long qs_rcu(int op, unsigned long n)		{ return ret(__syscall2(SYS_qs_rcu, op, n)); }
long qs_tasklist(long op, long arg)		{ return ret(__syscall2(SYS_qs_tasklist, op, arg)); }
/* A READ result with QS_KCOV_OVERFLOW set is positive: ret() passes it on. */
long qs_kcov(int op, unsigned long a, unsigned long b) { return ret(__syscall3(SYS_qs_kcov, op, a, b)); }
long qs_c2c(int op, unsigned long a, unsigned long b) { return ret(__syscall3(SYS_qs_c2c, op, a, b)); }

void _exit(int status)
{
	for (;;)
		__syscall1(SYS_exit, status);
}

int execve(const char *path, char *const argv[], char *const envp[])
{
	return ret(__syscall3(SYS_execve, path, argv, envp));
}

int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

pid_t waitpid(pid_t pid, int *status, int options)
{
	return ret(__syscall3(SYS_waitpid, pid, status, options));
}

pid_t wait(int *status)
{
	return waitpid(-1, status, 0);
}

int nanosleep(const struct timespec *req, struct timespec *rem)
{
	return ret(__syscall2(SYS_nanosleep, req, rem));
}

int clock_gettime(clockid_t clock, struct timespec *ts)
{
	return ret(__syscall2(SYS_clock_gettime, clock, ts));
}

unsigned int sleep(unsigned int seconds)
{
	struct timespec ts = { seconds, 0 }, rem = { 0, 0 };

	return nanosleep(&ts, &rem) ? rem.tv_sec : 0;
}

int usleep(unsigned long usec)
{
	struct timespec ts = { usec / 1000000, (usec % 1000000) * 1000 };

	return nanosleep(&ts, 0);
}

int sched_setscheduler(pid_t pid, int policy, const struct sched_param *param)
{
	return ret(__syscall3(SYS_sched_setscheduler, pid, policy, param));
}

int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *mask)
{
	return ret(__syscall3(SYS_sched_setaffinity, pid, size, mask));
}

/* brk: the kernel returns the break in force; failure leaves it unmoved. */
static char *cur_brk;

int brk(void *addr)
{
	char *b = (char *)__syscall1(SYS_brk, addr);

	cur_brk = b;
	if (b != addr) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

void *sbrk(long inc)
{
	char *old;

	if (!cur_brk)
		cur_brk = (char *)__syscall1(SYS_brk, 0);
	old = cur_brk;
	if (inc && brk(old + inc))
		return (void *)-1;
	return old;
}
