/*
 * The descriptions of the system calls that syzq (user/bin/syzq.c) builds
 * programs from, as syzkaller's syzlang files describe Linux's: every call
 * of the uapi headers (include/uapi) once, with what it returns and the
 * kind of each argument (docs/fuzzing.md). A kind says where a value comes from:
 *
 *   a resource: the result of an earlier call of the program (the fd that
 *     open() or pipe2() made, the pid fork() returned, semget()'s id), or
 *     now and then a plain number, so that the bad-descriptor paths run too;
 *   a value from a set: flags, commands, signals, ops;
 *   memory: a buffer of the call's own (filled with a pattern, or for the
 *     kernel to fill), a name in the program's sandbox, a structure built
 *     from a seed (an address, a route, semaphore operations), or a bad
 *     pointer (NULL, a kernel address) now and then.
 *
 * An entry is CALL(SYS_name, result, flags, argument kinds...), one a line
 * (tests check the names against the kernel's syscall table). F_NOGEN:
 * described but never generated, because it would end or replace the
 * program (exit, execve), power the machine off, or turn off the coverage
 * the loop runs on (qs_kcov).
 */
#ifndef _FUZZ_CALLS_H
#define _FUZZ_CALLS_H

/* What a call returns that later calls may use. */
enum fz_res {
	R_NONE,
	R_FD,		/* a descriptor: open(), dup(), socket() */
	R_PIPE,		/* pipe2(): two descriptors in its buffer, read end first */
	R_PID,		/* fork(), getpid() */
	R_SEMID,	/* semget() */
	R_SOCK,		/* socket(): a descriptor that is a socket */
};

/* Argument kinds: how syzq generates, mutates and simplifies each one. */
#define FUZZ_KINDS(K)								\
	K(FD)		/* a descriptor: any R_FD, R_PIPE or R_SOCK result */	\
	K(SOCK)		/* a socket's descriptor (R_SOCK) */			\
	K(NEWFD)	/* dup2()'s target: a small number or an fd */		\
	K(PID)		/* a pid from fork() or getpid() */			\
	K(SEMID)	/* a semaphore set's id from semget() */			\
	K(INT)		/* a small integer, or a boundary value */		\
	K(LEN)		/* a length: the size of a buffer, or past it */	\
	K(BUF)		/* a buffer of the call's own, or a bad pointer */	\
	K(PATH)		/* a name in the sandbox, or of the initrd */		\
	K(OFLAGS)	/* open() flags */					\
	K(PFLAGS)	/* pipe2() flags */					\
	K(MODE)		/* a file mode */					\
	K(FCNTL)	/* fcntl() command */					\
	K(WHENCE)	/* lseek() whence */					\
	K(SIG)		/* a signal number */					\
	K(SIGDISP)	/* signal(): SIG_DFL or SIG_IGN */			\
	K(WAITOPT)	/* waitpid() options */					\
	K(TIMESPEC)	/* a struct qs_timespec, short */			\
	K(SEMKEY)	/* a semaphore key of the worker's own */		\
	K(SEMFLG)	/* semget() flags */					\
	K(SEMCMD)	/* semctl() command */					\
	K(SEMARG)	/* semctl()'s fourth argument: a value or an array */	\
	K(SEMOPS)	/* an array of struct qs_sembuf */			\
	K(NSOPS)	/* how many of them */					\
	K(DOMAIN)	/* socket() domain */					\
	K(STYPE)	/* socket() type */					\
	K(PROTO)	/* socket() protocol */					\
	K(SOCKADDR)	/* a struct qs_sockaddr_in */				\
	K(ADDRLEN)	/* its length, or a pointer to it */			\
	K(MSGFLAGS)	/* sendto()/recvfrom() flags */				\
	K(SOLEVEL)	/* setsockopt() level */				\
	K(SONAME)	/* setsockopt() name */					\
	K(OP)		/* a small op number of the call's own */		\
	K(ROUTE)	/* a struct qs_rtentry, or a lookup */			\
	K(MODIMG)	/* a module image: random bytes (refused) */		\
	K(UID)		/* a uid or gid */					\
	K(CPUMASK)	/* a CPU mask */					\
	K(POLICY)	/* a scheduling policy (never a realtime one) */	\
	K(ADDR)		/* a kernel or user address to name */

enum fz_kind {
#define FZ_KIND_ENUM(name)	K_##name,
	FUZZ_KINDS(FZ_KIND_ENUM)
#undef FZ_KIND_ENUM
	NR_KINDS
};

#define F_NOGEN		1	/* never generated (see above) */

/*
 * The table. Arguments past those listed are 0. Blocking is bounded by
 * the executor (each program has a deadline), so the kinds need not
 * rule out a call that waits; they make waiting rare (pipes and sockets
 * mostly non-blocking, semop mostly IPC_NOWAIT).
 */
#define FUZZ_CALLS(CALL)							\
	CALL(SYS_read, R_NONE, 0, K_FD, K_BUF, K_LEN)				\
	CALL(SYS_write, R_NONE, 0, K_FD, K_BUF, K_LEN)				\
	CALL(SYS_exit, R_NONE, F_NOGEN, K_INT)					\
	CALL(SYS_fork, R_PID, 0)						\
	CALL(SYS_execve, R_NONE, F_NOGEN, K_PATH, K_BUF, K_BUF)			\
	CALL(SYS_waitpid, R_NONE, 0, K_PID, K_BUF, K_WAITOPT)			\
	CALL(SYS_getpid, R_PID, 0)						\
	CALL(SYS_getppid, R_NONE, 0)						\
	CALL(SYS_nanosleep, R_NONE, 0, K_TIMESPEC, K_BUF)			\
	CALL(SYS_sched_yield, R_NONE, 0)					\
	CALL(SYS_sched_setscheduler, R_NONE, 0, K_PID, K_POLICY, K_BUF)		\
	CALL(SYS_sched_setaffinity, R_NONE, 0, K_PID, K_LEN, K_CPUMASK)		\
	CALL(SYS_getuid, R_NONE, 0)						\
	CALL(SYS_setuid, R_NONE, 0, K_UID)					\
	CALL(SYS_uname, R_NONE, 0, K_BUF)					\
	CALL(SYS_qs_stats, R_NONE, 0, K_BUF, K_LEN, K_INT)			\
	CALL(SYS_brk, R_NONE, 0, K_INT)						\
	CALL(SYS_clock_gettime, R_NONE, 0, K_INT, K_BUF)			\
	CALL(SYS_qs_ps, R_NONE, 0, K_BUF, K_INT)				\
	CALL(SYS_poweroff, R_NONE, F_NOGEN, K_INT)				\
	CALL(SYS_getcpu, R_NONE, 0)						\
	CALL(SYS_open, R_FD, 0, K_PATH, K_OFLAGS, K_MODE)			\
	CALL(SYS_close, R_NONE, 0, K_FD)					\
	CALL(SYS_lseek, R_NONE, 0, K_FD, K_INT, K_WHENCE)			\
	CALL(SYS_fstat, R_NONE, 0, K_FD, K_BUF)					\
	CALL(SYS_dup, R_FD, 0, K_FD)						\
	CALL(SYS_dup2, R_FD, 0, K_FD, K_NEWFD)					\
	CALL(SYS_fcntl, R_NONE, 0, K_FD, K_FCNTL, K_OFLAGS)			\
	CALL(SYS_kill, R_NONE, 0, K_PID, K_SIG)					\
	CALL(SYS_getgid, R_NONE, 0)						\
	CALL(SYS_setgid, R_NONE, 0, K_UID)					\
	CALL(SYS_qs_readdir, R_NONE, 0, K_INT, K_BUF)				\
	CALL(SYS_qs_rcu, R_NONE, 0, K_OP, K_INT)				\
	CALL(SYS_qs_cpu, R_NONE, 0, K_OP, K_INT)				\
	CALL(SYS_pipe2, R_PIPE, 0, K_BUF, K_PFLAGS)				\
	CALL(SYS_signal, R_NONE, 0, K_SIG, K_SIGDISP)				\
	CALL(SYS_qs_tasklist, R_NONE, 0, K_OP, K_INT)				\
	CALL(SYS_semget, R_SEMID, 0, K_SEMKEY, K_INT, K_SEMFLG)			\
	CALL(SYS_semop, R_NONE, 0, K_SEMID, K_SEMOPS, K_NSOPS)			\
	CALL(SYS_semtimedop, R_NONE, 0, K_SEMID, K_SEMOPS, K_NSOPS, K_TIMESPEC)	\
	CALL(SYS_semctl, R_NONE, 0, K_SEMID, K_INT, K_SEMCMD, K_SEMARG)		\
	CALL(SYS_init_module, R_NONE, 0, K_MODIMG, K_LEN, K_PATH, K_BUF)	\
	CALL(SYS_delete_module, R_NONE, 0, K_PATH, K_INT)			\
	CALL(SYS_query_modules, R_NONE, 0, K_BUF, K_INT)			\
	CALL(SYS_module_ctl, R_NONE, 0, K_PATH, K_INT, K_INT, K_BUF, K_LEN)	\
	CALL(SYS_ksym_lookup, R_NONE, 0, K_ADDR, K_BUF, K_LEN)			\
	CALL(SYS_module_stats, R_NONE, 0, K_BUF, K_LEN)				\
	CALL(SYS_socket, R_SOCK, 0, K_DOMAIN, K_STYPE, K_PROTO)			\
	CALL(SYS_bind, R_NONE, 0, K_SOCK, K_SOCKADDR, K_ADDRLEN)		\
	CALL(SYS_connect, R_NONE, 0, K_SOCK, K_SOCKADDR, K_ADDRLEN)		\
	CALL(SYS_sendto, R_NONE, 0, K_SOCK, K_BUF, K_LEN, K_MSGFLAGS, K_SOCKADDR, K_ADDRLEN) \
	CALL(SYS_recvfrom, R_NONE, 0, K_SOCK, K_BUF, K_LEN, K_MSGFLAGS, K_SOCKADDR, K_BUF) \
	CALL(SYS_setsockopt, R_NONE, 0, K_SOCK, K_SOLEVEL, K_SONAME, K_BUF, K_LEN) \
	CALL(SYS_getsockopt, R_NONE, 0, K_SOCK, K_SOLEVEL, K_SONAME, K_BUF, K_BUF) \
	CALL(SYS_getsockname, R_NONE, 0, K_SOCK, K_SOCKADDR, K_BUF)		\
	CALL(SYS_getpeername, R_NONE, 0, K_SOCK, K_SOCKADDR, K_BUF)		\
	CALL(SYS_shutdown, R_NONE, 0, K_SOCK, K_INT)				\
	CALL(SYS_qs_netif, R_NONE, 0, K_OP, K_BUF)				\
	CALL(SYS_qs_netstat, R_NONE, 0, K_BUF, K_LEN)				\
	CALL(SYS_qs_neigh, R_NONE, 0, K_OP, K_INT, K_BUF)			\
	CALL(SYS_qs_route, R_NONE, 0, K_OP, K_ROUTE, K_INT)			\
	CALL(SYS_qs_route_get, R_NONE, 0, K_ROUTE)				\
	CALL(SYS_qs_rtstat, R_NONE, 0, K_BUF, K_LEN)				\
	CALL(SYS_qs_rtcache, R_NONE, 0, K_OP, K_INT, K_BUF, K_INT)		\
	CALL(SYS_qs_trace, R_NONE, 0, K_OP, K_INT, K_INT)			\
	CALL(SYS_qs_kcov, R_NONE, F_NOGEN, K_OP, K_INT, K_INT)			\
	CALL(SYS_qs_c2c, R_NONE, F_NOGEN, K_OP, K_INT, K_BUF)				\
	CALL(SYS_mkdir, R_NONE, 0, K_PATH, K_MODE)				\
	CALL(SYS_rmdir, R_NONE, 0, K_PATH)					\
	CALL(SYS_unlink, R_NONE, 0, K_PATH)					\
	CALL(SYS_rename, R_NONE, 0, K_PATH, K_PATH)				\
	CALL(SYS_stat, R_NONE, 0, K_PATH, K_BUF)				\
	CALL(SYS_qs_creat, R_NONE, 0, K_PATH, K_MODE, K_INT)			\
	CALL(SYS_chdir, R_NONE, 0, K_PATH)					\
	CALL(SYS_getcwd, R_NONE, 0, K_BUF, K_LEN)				\
	CALL(SYS_qs_getdents, R_NONE, 0, K_FD, K_BUF, K_INT)			\
	CALL(SYS_qs_dcache, R_NONE, 0, K_OP, K_INT, K_BUF)

#endif
