/*
 * semtest: SysV semaphores against what POSIX says and Linux does
 * (kernel/ipc, docs/ipc.md). A plain POSIX program: the same source
 * builds with glibc on Linux and gives the same results there (only the
 * allocation check and the table-full check are Quiescent's own).
 *
 *   semget: IPC_PRIVATE, keys from ftok(), IPC_CREAT/IPC_EXCL, and its
 *           errors (EINVAL, ENOENT, EEXIST, EACCES, ENOSPC at SEMMNI)
 *   semop:  several operations applied all or none; IPC_NOWAIT; blocking
 *           and wake-up between processes on different CPUs (a ping-pong
 *           that would hang on a lost wake-up); wait-for-zero; timeouts;
 *           E2BIG, EFBIG, ERANGE, EINVAL, EFAULT, EAGAIN, EIDRM to a
 *           waiter whose set is removed; SETVAL and SETALL wake waiters
 *   SEM_UNDO: applied at exit and at a kill (with the kill ending a
 *           blocked semop), clamped to 0..SEMVMX, cleared by SETVAL
 *   semctl: every command, and EINVAL, ERANGE, EFAULT, EACCES, EPERM;
 *           permissions for owner, group and others after setuid/setgid,
 *           root's bypass, IPC_SET handing a set to another user
 *   a stale id (its set removed and its slot reused) fails
 *   nothing leaked: allocations back at the baseline (Quiescent)
 *
 * Prints "semtest: PASS: N checks" or each failure and "semtest: FAIL".
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <signal.h>
#include <sched.h>
#include <time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <sys/ipc.h>
#include <sys/sem.h>

#if __has_include(<quiescent.h>)
#define QUIESCENT 1
#include <quiescent.h>
#include <sys/utsname.h>
static int ncpus(void)
{
	struct utsname u;

	return uname(&u) ? 1 : u.ncpus;
}
#else
#define QUIESCENT 0
#include <sys/sysinfo.h>
static int ncpus(void)
{
	return get_nprocs();
}
#endif

union semun {
	int val;
	struct semid_ds *buf;
	unsigned short *array;
	struct seminfo *__buf;
};

#define CHECK_PROG "semtest"
#include "../include/check.h"	/* a path, so that Linux's compiler finds it too */

static void *const BAD_PTR = (void *)0xffffffff80100000UL;	/* the kernel's text */

static int getval(int id, int n)
{
	return semctl(id, n, GETVAL);
}

static int setval(int id, int n, int v)
{
	union semun a = { .val = v };

	return semctl(id, n, SETVAL, a);
}

static int rmid(int id)
{
	return semctl(id, 0, IPC_RMID);
}

static int op(int id, int num, int delta, int flg)
{
	struct sembuf b = { (unsigned short)num, (short)delta, (short)flg };

	return semop(id, &b, 1);
}

/* semop with a timeout of ms milliseconds. */
static int op_timed(int id, int num, int delta, int flg, long ms)
{
	struct sembuf b = { (unsigned short)num, (short)delta, (short)flg };
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	return semtimedop(id, &b, 1, &ts);
}

/* Run on cpu only (cpu < 0: on any). */
static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	for (int c = 0; c < ncpus(); c++)
		if (cpu < 0 || c == cpu % ncpus())
			CPU_SET(c, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* Wait (up to 10 s: liveness, not timing) until cmd on semnum reads want. */
static bool wait_count(int id, int semnum, int cmd, int want)
{
	for (int i = 0; i < 10000; i++) {
		if (semctl(id, semnum, cmd) == want)
			return true;
		usleep(1000);
	}
	return false;
}

/* A child's exit status, or -1 if it was killed. */
static int reap(pid_t pid)
{
	int st = 0;

	if (waitpid(pid, &st, 0) != pid)
		return -2;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* ---------------------------------------------------------------- semget */

static void check_semget(void)
{
	struct seminfo si;
	union semun a = { .__buf = &si };
	key_t k1, k2;
	int id, id2;

	CHECK(semctl(0, 0, IPC_INFO, a) >= 0, "IPC_INFO");
	printf("semtest: limits SEMMNI %d SEMMSL %d SEMOPM %d SEMVMX %d SEMMNS %d\n",
	       si.semmni, si.semmsl, si.semopm, si.semvmx, si.semmns);
	CHECK(si.semvmx == 32767 && si.semopm >= 32 && si.semmsl >= 250, "Linux's limits");
	FAILS(semget(IPC_PRIVATE, -1, 0600), EINVAL);
	FAILS(semget(IPC_PRIVATE, si.semmsl + 1, 0600), EINVAL);
	FAILS(semget(IPC_PRIVATE, 0, 0600), EINVAL);

	k1 = ftok("/etc/motd", 'S');
	k2 = ftok("/etc/motd", 'T');
	CHECK(k1 != -1 && k1 == ftok("/etc/motd", 'S'), "ftok gives one key for one file and id");
	CHECK(k2 != -1 && k2 != k1, "ftok: another id, another key");
	FAILS(ftok("/etc/no-such-file", 'S'), ENOENT);
	semctl(semget(k1, 0, 0), 0, IPC_RMID);		/* a leftover from an earlier run */

	FAILS(semget(k1, 2, 0600), ENOENT);
	id = semget(k1, 2, IPC_CREAT | 0600);
	CHECK(id >= 0, "a set by key");
	CHECK(semget(k1, 2, 0600) == id && semget(k1, 0, 0) == id && semget(k1, 1, IPC_CREAT) == id,
	      "the key finds it again");
	FAILS(semget(k1, 2, IPC_CREAT | IPC_EXCL | 0600), EEXIST);
	FAILS(semget(k1, 3, 0600), EINVAL);
	id2 = semget(IPC_PRIVATE, 2, IPC_CREAT | IPC_EXCL | 0600);
	CHECK(id2 >= 0 && id2 != id, "IPC_PRIVATE is always a new set");
	CHECK(rmid(id) == 0 && rmid(id2) == 0, "IPC_RMID");
	FAILS(semget(k1, 2, 0600), ENOENT);
	FAILS(rmid(id), EINVAL);
}

/* ---------------------------------------------------------------- semop */

static void check_semop_errors(void)
{
	struct sembuf many[64], b;
	struct timespec ts;
	struct seminfo si;
	union semun a = { .__buf = &si };
	int id = semget(IPC_PRIVATE, 3, 0600);

	semctl(0, 0, IPC_INFO, a);
	memset(many, 0, sizeof(many));
	for (int i = 0; i < 64; i++)
		many[i].sem_op = 1;
	CHECK(id >= 0, "semget");
	FAILS(semop(id, many, 0), EINVAL);
	FAILS(semop(-1, many, 1), EINVAL);
	FAILS(semop(id + 1, many, 1), EINVAL);
	FAILS(semop(id, many, si.semopm + 1), E2BIG);
	FAILS(semop(id, many, (size_t)0x80000000), E2BIG);
	FAILS(semop(id, NULL, 1), EFAULT);
	FAILS(semop(id, (struct sembuf *)BAD_PTR, 1), EFAULT);
	b = (struct sembuf){ 3, 1, 0 };
	FAILS(semop(id, &b, 1), EFBIG);
	b = (struct sembuf){ 65535, 1, 0 };
	FAILS(semop(id, &b, 1), EFBIG);
	CHECK(setval(id, 0, 32767) == 0, "SETVAL SEMVMX");
	FAILS(op(id, 0, 1, 0), ERANGE);
	CHECK(op(id, 1, 32767, 0) == 0 && getval(id, 1) == 32767, "up to SEMVMX in one step");
	FAILS(op(id, 2, -1, IPC_NOWAIT), EAGAIN);
	FAILS(op_timed(id, 2, -1, 0, 30), EAGAIN);
	FAILS(op_timed(id, 2, -1, 0, 0), EAGAIN);
	ts = (struct timespec){ 0, 2000000000L };
	b = (struct sembuf){ 2, -1, 0 };
	FAILS(semtimedop(id, &b, 1, &ts), EINVAL);
	ts = (struct timespec){ -1, 0 };
	FAILS(semtimedop(id, &b, 1, &ts), EINVAL);
	FAILS(semtimedop(id, &b, 1, (struct timespec *)BAD_PTR), EFAULT);
	/* SEM_UNDO adjustments have the same range. */
	CHECK(setval(id, 2, 0) == 0, "SETVAL 0");
	CHECK(op(id, 2, 32767, SEM_UNDO) == 0, "+SEMVMX with SEM_UNDO");
	CHECK(op(id, 2, -32767, 0) == 0, "back to 0");
	FAILS(op(id, 2, 2, SEM_UNDO), ERANGE);	/* the adjustment would pass -SEMAEM-1 */
	CHECK(getval(id, 2) == 0, "an ERANGE leaves the value alone");
	CHECK(rmid(id) == 0, "IPC_RMID");
	FAILS(op(id, 0, 1, 0), EINVAL);
}

/* Several operations in one call: all applied, or none. */
static void check_atomicity(void)
{
	int id = semget(IPC_PRIVATE, 3, 0600), c;
	struct sembuf two[2] = { { 0, -1, IPC_NOWAIT }, { 1, -1, IPC_NOWAIT } };
	struct sembuf over[3] = { { 0, 1, 0 }, { 1, 1, 0 }, { 2, 1, 0 } };
	struct sembuf dup[3] = { { 0, 2, 0 }, { 0, -1, 0 }, { 0, -1, 0 } };
	pid_t pid;

	CHECK(setval(id, 0, 1) == 0 && setval(id, 1, 0) == 0, "SETVAL");
	FAILS(semop(id, two, 2), EAGAIN);
	CHECK(getval(id, 0) == 1, "the first operation was backed out");
	setval(id, 2, 32767);
	FAILS(semop(id, over, 3), ERANGE);
	CHECK(getval(id, 0) == 1 && getval(id, 1) == 0 && getval(id, 2) == 32767,
	      "an overflow in the last operation backs out the first two");
	CHECK(semop(id, dup, 3) == 0 && getval(id, 0) == 1, "operations on one semaphore apply in order");

	/* Blocking: a child needs both; it gets them only when both are there. */
	pid = fork();
	if (pid == 0) {
		struct sembuf b[2] = { { 0, -1, 0 }, { 1, -1, 0 } };
		struct timespec ts = { 10, 0 };
		_exit(semtimedop(id, b, 2, &ts) == 0 ? 0 : 1);
	}
	CHECK(wait_count(id, 1, GETNCNT, 1), "the child waits for semaphore 1");
	CHECK(getval(id, 0) == 1, "while it waits, semaphore 0 is untouched");
	CHECK(op(id, 1, 1, 0) == 0, "+1 on semaphore 1");
	c = reap(pid);
	CHECK(c == 0, "the child got both (status %d)", c);
	CHECK(getval(id, 0) == 0 && getval(id, 1) == 0, "both taken: %d %d", getval(id, 0), getval(id, 1));
	rmid(id);
}

/* Two processes on different CPUs hand a token back and forth. */
static void check_pingpong(int rounds)
{
	int id = semget(IPC_PRIVATE, 2, 0600), done = 0, c;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		pin(1);
		for (int i = 0; i < rounds; i++) {
			if (op_timed(id, 0, -1, 0, 10000) || op(id, 1, 1, 0))
				_exit(1);
		}
		_exit(0);
	}
	pin(0);
	for (; done < rounds; done++) {
		if (op(id, 0, 1, 0) || op_timed(id, 1, -1, 0, 10000))
			break;
	}
	c = reap(pid);
	CHECK(done == rounds && c == 0, "ping-pong: %d of %d rounds, child status %d (a lost wake-up "
	      "times out)", done, rounds, c);
	printf("semtest: ping-pong between cpu 0 and cpu %d: %d rounds\n", 1 % ncpus(), done);
	pin(-1);
	rmid(id);
}

/* Wait-for-zero: a child waits until the value is 0, not before. */
static void check_wait_zero(void)
{
	int id = semget(IPC_PRIVATE, 1, 0600), c;
	pid_t pid;

	setval(id, 0, 2);
	pid = fork();
	if (pid == 0) {
		pin(1);
		_exit(op_timed(id, 0, 0, 0, 10000) == 0 ? 0 : 1);
	}
	CHECK(wait_count(id, 0, GETZCNT, 1), "GETZCNT sees the waiter");
	CHECK(semctl(id, 0, GETNCNT) == 0, "GETNCNT does not");
	CHECK(op(id, 0, -1, 0) == 0, "2 -> 1");
	usleep(20000);
	CHECK(waitpid(pid, NULL, WNOHANG) == 0 && semctl(id, 0, GETZCNT) == 1,
	      "still waiting at 1");
	CHECK(op(id, 0, -1, 0) == 0, "1 -> 0");
	c = reap(pid);
	CHECK(c == 0, "the waiter went through at 0 (status %d)", c);
	CHECK(op(id, 0, 0, IPC_NOWAIT) == 0, "wait-for-zero at 0 does not wait");
	rmid(id);
}

/* SETVAL and SETALL wake the waiters they satisfy. */
static void check_set_wakes(void)
{
	int id = semget(IPC_PRIVATE, 2, 0600), c;
	unsigned short vals[2] = { 0, 3 };
	union semun a = { .array = vals };
	pid_t pid;

	for (int round = 0; round < 2; round++) {
		pid = fork();
		if (pid == 0) {
			pin(1);
			_exit(op_timed(id, round, -1, 0, 10000) == 0 ? 0 : 1);
		}
		CHECK(wait_count(id, round, GETNCNT, 1), "the child waits on semaphore %d", round);
		if (round == 0)
			CHECK(setval(id, 0, 1) == 0, "SETVAL 1");
		else
			CHECK(semctl(id, 0, SETALL, a) == 0, "SETALL 0 3");
		c = reap(pid);
		CHECK(c == 0, "%s woke the waiter (status %d)", round ? "SETALL" : "SETVAL", c);
	}
	CHECK(getval(id, 0) == 0 && getval(id, 1) == 2, "values %d %d", getval(id, 0), getval(id, 1));
	rmid(id);
}

/* EIDRM to a waiter whose set is removed. */
static void check_eidrm(void)
{
	int id = semget(IPC_PRIVATE, 1, 0600), c;
	pid_t pid = fork();

	if (pid == 0) {
		pin(1);
		errno = 0;
		int r = op_timed(id, 0, -1, 0, 10000);
		_exit(r == -1 && errno == EIDRM ? 0 : 1);
	}
	CHECK(wait_count(id, 0, GETNCNT, 1), "the child waits");
	CHECK(rmid(id) == 0, "IPC_RMID under a waiter");
	c = reap(pid);
	CHECK(c == 0, "the waiter got EIDRM (status %d)", c);
}

/* ---------------------------------------------------------------- SEM_UNDO */

static void check_undo(void)
{
	int id = semget(IPC_PRIVATE, 4, 0600), c;
	union semun a;
	pid_t pid;

	/* At exit. */
	pid = fork();
	if (pid == 0) {
		op(id, 0, 3, SEM_UNDO);
		op(id, 0, -1, SEM_UNDO);
		op(id, 1, 5, 0);
		_exit(getval(id, 0) == 2 ? 0 : 1);
	}
	c = reap(pid);
	CHECK(c == 0 && getval(id, 0) == 0 && getval(id, 1) == 5,
	      "SEM_UNDO applied at exit: %d (and a plain op kept: %d)", getval(id, 0), getval(id, 1));

	/* Clamped: to SEMVMX above, to 0 below. */
	setval(id, 2, 32766);
	setval(id, 3, 0);
	pid = fork();
	if (pid == 0) {
		op(id, 2, -1, SEM_UNDO);		/* 32765, adjustment +1 */
		op(id, 3, 1, SEM_UNDO);			/* 1, adjustment -1 */
		op(id, 0, -1, 0);			/* wait for the parent */
		_exit(0);
	}
	CHECK(wait_count(id, 0, GETNCNT, 1), "the child waits");
	op(id, 2, 2, 0);				/* 32767 */
	op(id, 3, -1, 0);				/* 0 */
	op(id, 0, 1, 0);
	c = reap(pid);
	CHECK(c == 0 && getval(id, 2) == 32767 && getval(id, 3) == 0,
	      "adjustments clamped to SEMVMX and 0: %d %d", getval(id, 2), getval(id, 3));

	/* At a kill, which also ends the child's blocked semop. */
	setval(id, 0, 0);
	pid = fork();
	if (pid == 0) {
		op(id, 1, -5, SEM_UNDO);		/* takes all 5 */
		op(id, 0, -1, 0);			/* and blocks for ever */
		_exit(3);
	}
	CHECK(wait_count(id, 0, GETNCNT, 1) && getval(id, 1) == 0, "the child holds 5 and waits");
	CHECK(kill(pid, SIGKILL) == 0, "kill it");
	c = reap(pid);
	CHECK(c == -1, "killed, not exited (status %d)", c);
	CHECK(getval(id, 1) == 5 && semctl(id, 0, GETNCNT) == 0,
	      "SEM_UNDO applied at the kill: %d, waiters %d", getval(id, 1), semctl(id, 0, GETNCNT));

	/* SETVAL clears the adjustment it makes meaningless. */
	pid = fork();
	if (pid == 0) {
		op(id, 1, -5, SEM_UNDO);
		op(id, 0, -1, 0);
		_exit(0);
	}
	CHECK(wait_count(id, 0, GETNCNT, 1), "the child waits");
	a.val = 7;
	semctl(id, 1, SETVAL, a);
	op(id, 0, 1, 0);
	c = reap(pid);
	CHECK(c == 0 && getval(id, 1) == 7, "SETVAL cleared the adjustment: %d", getval(id, 1));

	/* A child's adjustment for a set removed before it exits is dropped. */
	pid = fork();
	if (pid == 0) {
		op(id, 1, -1, SEM_UNDO);
		op(id, 0, -1, 0);
		_exit(errno == EIDRM ? 0 : 1);
	}
	CHECK(wait_count(id, 0, GETNCNT, 1), "the child waits");
	rmid(id);
	c = reap(pid);
	CHECK(c == 0, "the child exits cleanly after its set went (status %d)", c);
}

/* ---------------------------------------------------------------- semctl */

static void check_semctl(void)
{
	unsigned short vals[5] = { 1, 2, 3, 4, 5 }, got[5];
	struct semid_ds ds;
	struct seminfo si;
	union semun a;
	int id = semget(IPC_PRIVATE, 5, 0640), n, sets;

	a.buf = &ds;
	CHECK(semctl(id, 0, IPC_STAT, a) == 0, "IPC_STAT");
	CHECK(ds.sem_nsems == 5 && (ds.sem_perm.mode & 0777) == 0640 && ds.sem_perm.uid == getuid() &&
	      ds.sem_perm.cuid == getuid() && ds.sem_perm.gid == getgid() && ds.sem_otime == 0 &&
	      ds.sem_ctime != 0, "nsems %lu mode %o otime %ld ctime %ld", (unsigned long)ds.sem_nsems,
	      (unsigned)ds.sem_perm.mode, (long)ds.sem_otime, (long)ds.sem_ctime);
	a.array = vals;
	CHECK(semctl(id, 0, SETALL, a) == 0, "SETALL");
	a.array = got;
	CHECK(semctl(id, 0, GETALL, a) == 0 && !memcmp(got, vals, sizeof(vals)), "GETALL");
	CHECK(op(id, 4, 1, 0) == 0 && getval(id, 4) == 6, "an op after SETALL");
	CHECK(semctl(id, 4, GETPID) == getpid(), "GETPID is the last caller");
	a.buf = &ds;
	CHECK(semctl(id, 0, IPC_STAT, a) == 0 && ds.sem_otime != 0, "sem_otime set by semop");
	CHECK(semctl(id, 2, GETNCNT) == 0 && semctl(id, 2, GETZCNT) == 0, "no waiters");

	FAILS(semctl(id, 5, GETVAL), EINVAL);
	FAILS(semctl(id, -1, GETVAL), EINVAL);
	FAILS(semctl(id, 0, 99), EINVAL);
	FAILS(semctl(-1, 0, GETVAL), EINVAL);
	FAILS(semctl(id + 1, 0, GETVAL), EINVAL);
	FAILS(setval(id, 0, 32768), ERANGE);
	FAILS(setval(id, 0, -1), ERANGE);
	vals[2] = 40000;
	a.array = vals;
	FAILS(semctl(id, 0, SETALL, a), ERANGE);
	CHECK(getval(id, 2) == 3, "a refused SETALL changes nothing");
	a.array = BAD_PTR;
	FAILS(semctl(id, 0, SETALL, a), EFAULT);
	FAILS(semctl(id, 0, GETALL, a), EFAULT);
	a.buf = BAD_PTR;
	FAILS(semctl(id, 0, IPC_STAT, a), EFAULT);
	FAILS(semctl(id, 0, IPC_SET, a), EFAULT);
	a.buf = NULL;
	FAILS(semctl(id, 0, IPC_STAT, a), EFAULT);
	a.__buf = BAD_PTR;
	FAILS(semctl(0, 0, IPC_INFO, a), EFAULT);

	/* IPC_SET: mode, owner. */
	a.buf = &ds;
	semctl(id, 0, IPC_STAT, a);
	ds.sem_perm.mode = 0600;
	CHECK(semctl(id, 0, IPC_SET, a) == 0, "IPC_SET");
	semctl(id, 0, IPC_STAT, a);
	CHECK((ds.sem_perm.mode & 0777) == 0600, "mode now %o", (unsigned)ds.sem_perm.mode);

	/* IPC_INFO, SEM_INFO, SEM_STAT. */
	a.__buf = &si;
	n = semctl(0, 0, SEM_INFO, a);
	sets = si.semusz;
	CHECK(n >= 0 && sets >= 1 && si.semaem >= 5, "SEM_INFO: %d sets, %d semaphores", sets, si.semaem);
	/* The id is ignored for IPC_INFO and SEM_INFO (POSIX systems, Linux). */
	CHECK(semctl(-1, 0, SEM_INFO, a) == n, "SEM_INFO with id -1: %s", strerror(errno));
	CHECK(semctl(-1, 0, IPC_INFO, a) == n, "IPC_INFO with id -1: %s", strerror(errno));
	int found = 0;
	for (int i = 0; i <= n; i++) {
		a.buf = &ds;
		int sid = semctl(i, 0, SEM_STAT, a);
		if (sid == id)
			found = ds.sem_nsems == 5;
	}
	CHECK(found, "SEM_STAT by index finds the set and its id");
	a.buf = &ds;
	FAILS(semctl(32767, 0, SEM_STAT, a), EINVAL);
	rmid(id);
}

/* ---------------------------------------------------------------- permissions */

/* In a child as uid/gid: run the checks, exit with the number that failed. */
static void as_user(int uid, int gid, void (*fn)(int id), int id)
{
	pid_t pid = fork();

	if (pid == 0) {
		int before = failed;
		if (setgid(gid) || setuid(uid))
			_exit(100);
		fn(id);
		_exit(failed - before);
	}
	int c = reap(pid);
	CHECK(c == 0, "%d checks failed as uid %d gid %d", c, uid, gid);
}

static void as_group(int id)		/* uid 1000, gid 0: the group's bits, r-- */
{
	struct sembuf zero = { 0, 0, IPC_NOWAIT };
	union semun a;
	struct semid_ds ds;

	CHECK(getuid() == 1000, "setuid");
	CHECK(getval(id, 0) == 0, "the group may read");
	CHECK(semop(id, &zero, 1) == 0, "and wait for zero");
	FAILS(setval(id, 0, 1), EACCES);
	FAILS(op(id, 0, 1, 0), EACCES);
	a.buf = &ds;
	CHECK(semctl(id, 0, IPC_STAT, a) == 0, "IPC_STAT");
	FAILS(semctl(id, 0, IPC_SET, a), EPERM);
	FAILS(rmid(id), EPERM);
	FAILS(semget(ds.sem_perm.__key, 1, 0600), EACCES);
	CHECK(semget(ds.sem_perm.__key, 1, 0400) == id, "semget asking for read only");
}

static void as_other(int id)		/* uid 1000, gid 1000: the others' bits, --- */
{
	struct sembuf zero = { 0, 0, IPC_NOWAIT };
	union semun a;
	struct semid_ds ds;

	FAILS(getval(id, 0), EACCES);
	FAILS(semop(id, &zero, 1), EACCES);
	a.buf = &ds;
	FAILS(semctl(id, 0, IPC_STAT, a), EACCES);
	FAILS(semctl(id % 32768, 0, SEM_STAT, a), EACCES);
	FAILS(rmid(id), EPERM);
	CHECK(getval(id, 0) == -1, "still refused");
}

static void as_new_owner(int id)	/* IPC_SET gave uid 1000 the set */
{
	CHECK(setval(id, 0, 3) == 0 && getval(id, 0) == 3, "the new owner's bits (rw-)");
	CHECK(rmid(id) == 0, "the owner may remove it");
}

static void check_permissions(void)
{
	key_t key = ftok("/etc/motd", 'P');
	int id;
	union semun a;
	struct semid_ds ds;

	if (getuid() != 0) {
		printf("semtest: not root: permission checks skipped\n");
		return;
	}
	semctl(semget(key, 0, 0), 0, IPC_RMID);
	id = semget(key, 1, IPC_CREAT | 0640);
	CHECK(id >= 0, "a 0640 set");
	as_user(1000, 0, as_group, id);
	as_user(1000, 1000, as_other, id);

	/* Root bypasses the bits; IPC_SET hands the set to uid 1000. */
	a.buf = &ds;
	semctl(id, 0, IPC_STAT, a);
	ds.sem_perm.mode = 0;
	CHECK(semctl(id, 0, IPC_SET, a) == 0, "mode 000");
	CHECK(setval(id, 0, 1) == 0 && getval(id, 0) == 1, "root ignores mode 000");
	ds.sem_perm.uid = 1000;
	ds.sem_perm.mode = 0600;
	CHECK(semctl(id, 0, IPC_SET, a) == 0, "IPC_SET uid 1000");
	as_user(1000, 1000, as_new_owner, id);
	FAILS(getval(id, 0), EINVAL);
}

/* ---------------------------------------------------------------- the table */

/* A removed set's id fails, also after its slot holds a new set. */
static void check_stale_id(void)
{
	int old = semget(IPC_PRIVATE, 1, 0600), id;

	CHECK(old >= 0 && rmid(old) == 0, "a set made and removed");
	id = semget(IPC_PRIVATE, 1, 0600);
	CHECK(id >= 0 && id != old, "the new set has a new id (%d, %d)", old, id);
	if (QUIESCENT)
		CHECK(id % 32768 == old % 32768, "in the same slot (%d, %d)", old % 32768, id % 32768);
	FAILS(getval(old, 0), EINVAL);
	FAILS(op(old, 0, 1, 0), EINVAL);
	FAILS(rmid(old), EINVAL);
	CHECK(getval(id, 0) == 0 && op(id, 0, 1, 0) == 0 && getval(id, 0) == 1, "the new id works");
	rmid(id);
}

/* Fill the table: ENOSPC at SEMMNI (where SEMMNI is small enough to try). */
static void check_enospc(void)
{
	struct seminfo si;
	union semun a = { .__buf = &si };
	static int ids[1024];
	int n = 0, existing;

	semctl(0, 0, SEM_INFO, a);
	existing = si.semusz;
	semctl(0, 0, IPC_INFO, a);
	if (si.semmni > 1024) {
		printf("semtest: SEMMNI is %d: ENOSPC not tried\n", si.semmni);
		return;
	}
	for (;;) {
		int id = semget(IPC_PRIVATE, 1, 0600);
		if (id < 0)
			break;
		ids[n++] = id;
	}
	CHECK(errno == ENOSPC && n + existing == si.semmni, "ENOSPC after %d sets (+%d existing) of %d",
	      n, existing, si.semmni);
	for (int i = 0; i < n; i++)
		rmid(ids[i]);
	int id = semget(IPC_PRIVATE, 1, 0600);
	CHECK(id >= 0, "room again once they are removed");
	rmid(id);
}

static void run_checks(int rounds)
{
	check_semget();
	check_semop_errors();
	check_atomicity();
	check_pingpong(rounds);
	check_wait_zero();
	check_set_wakes();
	check_eidrm();
	check_undo();
	check_semctl();
	check_permissions();
	check_stale_id();
	check_enospc();
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 300;
#if QUIESCENT
	struct qs_stats before, after;
#endif
	/*
	 * Filling the table first grows its array to SEMMNI slots, which the
	 * kernel keeps (as Linux does): the baseline is taken after that. The
	 * checks run in a child, so that what a process keeps until it exits
	 * (its SEM_UNDO structures) is gone when the allocations are compared.
	 */
	check_enospc();
	/* The child's tally comes back in a semaphore set (checks, failed). */
	int tally = semget(IPC_PRIVATE, 2, 0600);
#if QUIESCENT
	qs_stats(&before, QS_STATS_SYNC);
#endif
	pid_t pid = fork();
	if (pid == 0) {
		run_checks(rounds);
		setval(tally, 0, checks);
		setval(tally, 1, failed);
		_exit(0);
	}
	int c = reap(pid);
	CHECK(c == 0, "the checks' process (status %d)", c);
#if QUIESCENT
	qs_stats(&after, QS_STATS_SYNC);
	CHECK(after.kmalloc_objects == before.kmalloc_objects &&
	      after.kmalloc_bytes == before.kmalloc_bytes,
	      "allocations back at the baseline: objects %ld -> %ld, bytes %ld -> %ld",
	      (long)before.kmalloc_objects, (long)after.kmalloc_objects,
	      (long)before.kmalloc_bytes, (long)after.kmalloc_bytes);
#endif
	checks += getval(tally, 0);
	failed += getval(tally, 1);
	rmid(tally);
	return check_summary();
}
