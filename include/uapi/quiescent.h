/*
 * The system-call interface between the kernel and user programs: call
 * numbers and the structures the calls fill in. The one definition both
 * sides compile against (kernel/proc/ and user/lib/ include this file),
 * so it uses only fixed-width types and nothing from either side.
 *
 * Calling convention (docs/user-mode.md): the `syscall` instruction with
 * the number in rax and up to six arguments in rdi, rsi, rdx, r10, r8, r9;
 * the result comes back in rax, a negative errno on failure (errno values
 * are Linux's, include/errno.h). rcx and r11 are clobbered.
 */
#ifndef _UAPI_QUIESCENT_H
#define _UAPI_QUIESCENT_H

#include <stdint.h>

#define SYS_read		0	/* (fd, buf, n) */
#define SYS_write		1	/* (fd, buf, n) */
#define SYS_exit		2	/* (status) */
#define SYS_fork		3	/* () -> child pid, 0 in the child */
#define SYS_execve		4	/* (path, argv, envp): a program from the initrd */
#define SYS_waitpid		5	/* (pid or -1, &status, options) */
#define SYS_getpid		6
#define SYS_getppid		7
#define SYS_nanosleep		8	/* (const struct timespec *, struct timespec *) */
#define SYS_sched_yield		9
#define SYS_sched_setscheduler	10	/* (pid, policy, const struct sched_param *) */
#define SYS_sched_setaffinity	11	/* (pid, size in bytes, const uint64_t *mask) */
#define SYS_getuid		12
#define SYS_setuid		13	/* (uid): root may set any, others only their own */
#define SYS_uname		14	/* (struct utsname *) */
#define SYS_qs_stats		15	/* (struct qs_stats *, size, flags) */
#define SYS_brk			16	/* (addr) -> the new break (or the old one) */
#define SYS_clock_gettime	17	/* (clock id, struct timespec *) */
#define SYS_qs_ps		18	/* (struct qs_procinfo *, max [| QS_PS_KTHREADS]) -> count */
#define QS_PS_KTHREADS		0x40000000	/* qs_ps(): kernel threads too */
#define QS_PS_MAX		1024	/* entries qs_ps() fills at most */
#define SYS_poweroff		19	/* (code): root only; 0 = pass, else fail */
#define SYS_getcpu		20	/* () -> the CPU the caller runs on */

/* Files and processes (kernel/proc/file.c, kernel/proc/signal.c). */
#define SYS_open		21	/* (path, flags, mode) -> fd: files of the initrd, read only */
#define SYS_close		22	/* (fd) */
#define SYS_lseek		23	/* (fd, offset, whence) -> new offset */
#define SYS_fstat		24	/* (fd, struct qs_stat *) */
#define SYS_dup			25	/* (fd) -> lowest free fd */
#define SYS_dup2		26	/* (fd, newfd) -> newfd */
#define SYS_fcntl		27	/* (fd, cmd, arg): F_GETFL, F_SETFL (O_NONBLOCK), F_GETFD, F_SETFD */
#define SYS_kill		28	/* (pid, sig): every signal but 0 is fatal (no handlers) */
#define SYS_getgid		29
#define SYS_setgid		30	/* (gid): root may set any, others only their own */
#define SYS_qs_readdir		31	/* (index, struct qs_dirent *) -> 0, or -ENOENT past the end */

/* RCU work on demand, for the shell's `rcu sync|call N|barrier` (kernel/proc/qs_rcu.c). */
#define SYS_qs_rcu		32	/* (QS_RCU_*, n) */
/* CPU hotplug, for user/bin/cpu (`cpu N off|on`, kernel/proc/qs_cpu.c). */
#define SYS_qs_cpu		33	/* (QS_CPU_*, cpu): root only */
#define QS_CPU_ONLINE		0x6f6e6c6e	/* -> the online CPUs as a bit mask (CPUs 0-62) */
#define QS_CPU_DOWN		0x6f666600	/* cpu_down(cpu) */
#define QS_CPU_UP		0x6f6e0000	/* cpu_up(cpu) */
/* Pipes and signal dispositions (kernel/proc/pipe.c, kernel/proc/signal.c). */
#define SYS_pipe2		34	/* (int fds[2], flags: O_NONBLOCK, O_CLOEXEC) */
#define SYS_signal		35	/* (sig, QS_SIG_DFL or QS_SIG_IGN) -> the old one */
/* The task list under test, for user/bin/psstorm (kernel/proc/qs_tasklist.c). */
#define SYS_qs_tasklist		39	/* (QS_TASKLIST_*, arg) */
#define QS_TASKLIST_MODE	0x6d6f6465	/* arg -1: ask; 0: tasklist=lock, 1: rcu (root) -> 1 if rcu */
#define QS_TASKLIST_KTHREADS	0x6b746872	/* make and end kernel threads for arg ms (root) -> count */
#define QS_TASKLIST_KTHREADS_MAX_MS	60000

/*
 * Ranges kept for each subsystem's calls, numbered in its own uapi header:
 *   40-49   SysV semaphores (kernel/ipc, include/uapi/sem.h)
 *   50-59   modules and NMI handlers (kernel/module, include/uapi/module.h)
 *   60-79   sockets and interfaces (kernel/net, include/uapi/net.h)
 *   80-89   routing and the route cache (kernel/net, include/uapi/route.h)
 *   90-99   tracing (include/uapi/trace.h)
 *   110-119 the filesystem (kernel/fs, include/uapi/fs.h)
 * Calls register themselves (include/syscall.h); a number outside the
 * table or used twice stops the boot.
 */
#define NR_SYSCALLS		128

/* waitpid() options and status encoding (POSIX macros in sys/wait.h). */
#define QS_WNOHANG		1
#define QS_W_EXITED(code)	(((code) & 0xff) << 8)
#define QS_W_SIGNALED(sig)	((sig) & 0x7f)

/*
 * Signal numbers (Linux's): those a fault reports and those kill() sends.
 * There are no handlers: every signal ends the process (waitpid() reports
 * it with QS_W_SIGNALED).
 */
#define QS_SIGHUP		1
#define QS_SIGINT		2
#define QS_SIGQUIT		3
#define QS_SIGILL		4
#define QS_SIGTRAP		5
#define QS_SIGABRT		6
#define QS_SIGBUS		7
#define QS_SIGFPE		8
#define QS_SIGKILL		9
#define QS_SIGUSR1		10
#define QS_SIGSEGV		11
#define QS_SIGUSR2		12
#define QS_SIGPIPE		13
#define QS_SIGALRM		14
#define QS_SIGTERM		15
#define QS_NSIG			65	/* valid signals are 1 .. QS_NSIG - 1 */

/*
 * signal()'s dispositions: the default (the signal ends the process) or
 * ignored (kill() and the kernel discard it; SIGKILL cannot be ignored).
 * There are no handlers. SIG_IGN survives fork and exec, as in POSIX.
 */
#define QS_SIG_DFL		0
#define QS_SIG_IGN		1

#define QS_SCHED_NORMAL		0
#define QS_SCHED_FIFO		1
#define QS_SCHED_RR		2

/* open() flags and fcntl() commands: Linux's values. */
#define QS_O_RDONLY		00
#define QS_O_WRONLY		01
#define QS_O_RDWR		02
#define QS_O_ACCMODE		03
#define QS_O_CREAT		0100
#define QS_O_EXCL		0200
#define QS_O_TRUNC		01000
#define QS_O_APPEND		02000
#define QS_O_NONBLOCK		04000
#define QS_O_DIRECTORY		0200000
#define QS_O_CLOEXEC		02000000

#define QS_F_DUPFD		0
#define QS_F_GETFD		1
#define QS_F_SETFD		2
#define QS_F_GETFL		3
#define QS_F_SETFL		4
#define QS_FD_CLOEXEC		1

#define QS_SEEK_SET		0
#define QS_SEEK_CUR		1
#define QS_SEEK_END		2

#define QS_OPEN_MAX		256	/* file descriptors per process */
#define QS_PIPE_BUF		4096	/* a pipe's capacity; writes up to this are atomic */
#define QS_PATH_MAX		256

/* File types in qs_stat.mode (POSIX's S_IF* values). */
#define QS_S_IFMT		0170000
#define QS_S_IFSOCK		0140000
#define QS_S_IFREG		0100000
#define QS_S_IFDIR		0040000
#define QS_S_IFCHR		0020000
#define QS_S_IFIFO		0010000

struct qs_stat {
	uint64_t size;
	uint32_t mode;			/* type and permission bits */
	uint32_t uid, gid;
	uint32_t pad;
};

/* qs_readdir(): the initrd's files, one per index. */
struct qs_dirent {
	uint64_t size;
	uint32_t mode;
	uint32_t pad;
	char name[QS_PATH_MAX];
};

#define QS_CLOCK_REALTIME	0	/* there is no wall clock: since boot */
#define QS_CLOCK_MONOTONIC	1

struct qs_timespec {
	int64_t tv_sec;
	int64_t tv_nsec;
};

#define QS_UTSLEN		65

/* uname(): POSIX's five strings, then what a lab needs to know it ran. */
struct qs_utsname {
	char sysname[QS_UTSLEN];	/* "Quiescent" */
	char nodename[QS_UTSLEN];
	char release[QS_UTSLEN];
	char version[QS_UTSLEN];	/* "rcu=<variant> preemption=<model> HZ=<hz>" */
	char machine[QS_UTSLEN];	/* "x86_64" */
	char rcu_variant[QS_UTSLEN];
	char preempt[QS_UTSLEN];
	int32_t hz;
	int32_t ncpus;			/* online */
	int32_t max_cpus;
	uint64_t tsc_khz;		/* for programs that time with rdtsc */
};

#define QS_STATS_MAX_CPUS	16
#define QS_STATS_SYNC		1	/* rcu_barrier() first: deferred frees done */

struct qs_cpu_stats {
	uint64_t nr_switches, nvcsw, nivcsw;
	uint64_t idle_ns;
	uint64_t nr_running;
	uint64_t rcu_queued, rcu_invoked;
};

/* The RCU and scheduler statistics, and the allocator's (the fuzzer's baseline). */
struct qs_stats {
	uint64_t uptime_ns;
	uint32_t ncpus, hz;
	char rcu_variant[32];
	uint64_t rcu_gp_started, rcu_gp_completed;
	uint64_t rcu_cb_queued, rcu_cb_invoked;
	uint64_t nr_switches, nvcsw, nivcsw;
	uint64_t kmalloc_objects, kmalloc_bytes, slab_pages;
	uint64_t free_pages, total_pages;
	uint64_t tasks_alive;		/* struct task allocated, kernel threads too */
	uint64_t processes;		/* user processes, zombies too */
	uint64_t processes_freeing;	/* reaped, memory waiting for a grace period */
	uint64_t fork_rcu_retries;	/* forks that ran out of memory and waited for those */
	uint64_t user_pages;		/* pages of user memory and user page tables */
	uint64_t syscalls;		/* since boot, all CPUs */
	uint64_t files_open;		/* struct file alive (include/file.h) */
	struct qs_cpu_stats cpu[QS_STATS_MAX_CPUS];
	uint64_t pipes_open;		/* pipes alive (kernel/proc/pipe.c) */
	uint64_t pipes_max;		/* the system's limit: pipe() fails with ENFILE */
};

/* qs_rcu() operations: the public RCU API (include/rcupdate.h), from user space. */
#define QS_RCU_SYNC		0	/* synchronize_rcu(): wait for a grace period */
#define QS_RCU_CALL		1	/* queue n call_rcu() callbacks -> n; returns at once */
#define QS_RCU_BARRIER		2	/* rcu_barrier(): wait for every queued callback */
#define QS_RCU_MAX_CALLS	100000	/* callbacks queued by qs_rcu() and not yet run */

#define QS_COMM_LEN		16

struct qs_procinfo {
	int32_t pid, ppid, uid;
	int32_t cpu;
	char state;			/* R running/runnable, S sleeping, Z zombie */
	char name[QS_COMM_LEN];
	uint64_t run_ns;		/* time on a CPU */
};

/* The address-space layout (kernel/mm/uvm.c). */
#define QS_USER_BASE		0x0000000000400000UL	/* programs are linked here */
#define QS_USER_TOP		0x00007fff00000000UL	/* nothing user at or above */
#define QS_USER_STACK_TOP	QS_USER_TOP
#define QS_USER_STACK_PAGES	16			/* 64 KiB */
#define QS_USER_HEAP_MAX	(16UL << 20)		/* brk() limit per process */

#endif
