/*
 * semstress [seconds] [workers per CPU]: SysV semaphores under load from
 * user space, the real system calls on the real table (the in-kernel
 * ipc_rcu_stress holds Figure 11's window open; this one runs the whole
 * path, docs/ipc.md):
 *
 *   workers   one or more per CPU, pinned: semop on many sets, each
 *             operation a lookup through ipc_lock(). On POOL sets made
 *             before the fork each worker owns one semaphore in every set
 *             and checks its value after every operation (nobody else
 *             touches it: a lost or doubled update shows); on any other
 *             set, found by SEM_STAT on a random slot, it operates
 *             without waiting and accepts EINVAL or EIDRM (the set was
 *             removed under it). Pairs of workers on different CPUs also
 *             hand a token through a blocking semop (a lost wake-up
 *             times out after 10 s and fails the run).
 *   churners  create sets (fills of up to 60 at once, so the table grows
 *             when it is young), operate on them with SEM_UNDO, park a
 *             waiter on some and remove them under it (EIDRM), and exit
 *             holding adjustments now and then (exit_sem).
 *
 * With kmalloc poisoning a use after free panics the kernel; the run
 * checks values, wake-ups, errors, and that allocations are back at the
 * baseline once everything is removed and reaped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <sched.h>
#include <time.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <sys/utsname.h>
#include <quiescent.h>

#define POOL		8		/* long-lived sets */
#define MAX_WORKERS	32
#define CHURNERS	2

union semun {
	int val;
	struct semid_ds *buf;
	unsigned short *array;
	struct seminfo *__buf;
};

static int pool[POOL], token;		/* token: one semaphore per worker pair */
static int ncpus, nworkers;
static unsigned long long rnd_state;

static unsigned long rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu % ncpus, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static int op1(int id, int num, int delta, int flg)
{
	struct sembuf b = { (unsigned short)num, (short)delta, (short)flg };

	return semop(id, &b, 1);
}

/* The worker's own semaphore in a pool set: +k, check, -k, check. */
static int own_ops(int w)
{
	int id = pool[rnd() % POOL], k = 1 + rnd() % 5;
	struct sembuf two[2] = { { (unsigned short)w, (short)k, 0 }, { (unsigned short)w, (short)-k, 0 } };

	if (op1(id, w, k, 0) || semctl(id, w, GETVAL) != k) {
		printf("semstress: FAIL: worker %d: value %d after +%d on set %d (errno %d)\n", w,
		       semctl(id, w, GETVAL), k, id, errno);
		return 1;
	}
	if (op1(id, w, -k, IPC_NOWAIT) || semctl(id, w, GETVAL) != 0) {
		printf("semstress: FAIL: worker %d: value %d after -%d on set %d (errno %d)\n", w,
		       semctl(id, w, GETVAL), k, id, errno);
		return 1;
	}
	if (semop(id, two, 2)) {		/* both at once: net zero */
		printf("semstress: FAIL: worker %d: +%d-%d in one call: errno %d\n", w, k, k, errno);
		return 1;
	}
	return 0;
}

/* Any set at all: whatever sits in a random slot, perhaps being removed. */
static int any_ops(void)
{
	struct semid_ds ds;
	union semun a = { .buf = &ds };
	int id = semctl(rnd() % SEMMNI, 0, SEM_STAT, a);

	if (id < 0)
		return errno == EINVAL ? 0 : 1;
	if (id == token)			/* its pairs count on it */
		return 0;
	for (int i = 0; i < POOL; i++)
		if (id == pool[i])		/* read only: the values are the workers' */
			return op1(id, 0, 0, IPC_NOWAIT) && errno != EAGAIN;
	/* A churner's set: up and down (update_queue()), or gone meanwhile. */
	errno = 0;
	if (op1(id, 0, 1, 0) == 0)
		op1(id, 0, -1, IPC_NOWAIT);
	if (errno == 0 || errno == EAGAIN || errno == EINVAL || errno == EIDRM)
		return 0;
	printf("semstress: FAIL: semop on set %d (slot %d): errno %d\n", id, id % 32768, errno);
	return 1;
}

/* Pass the token: worker 2i waits on 2i, posts 2i+1; worker 2i+1 the reverse. */
static int token_pass(int w)
{
	int mine = w, theirs = w ^ 1;
	struct sembuf b = { (unsigned short)mine, -1, 0 };
	struct timespec ts = { 10, 0 };

	if ((w & 1) == 0 && op1(token, theirs, 1, 0))
		return 1;
	if (semtimedop(token, &b, 1, &ts)) {
		printf("semstress: FAIL: worker %d waited 10 s for its token (errno %d): a lost wake-up\n",
		       w, errno);
		return 1;
	}
	if ((w & 1) == 1 && op1(token, theirs, 1, 0))
		return 1;
	return 0;
}

static int worker(int w, long until)
{
	long ops = 0, passes = 0;
	bool paired = (w ^ 1) < nworkers;

	pin(w);
	rnd_state = 0x9e3779b97f4a7c15ULL * (w + 1);
	while (now_ms() < until) {
		if (own_ops(w) || any_ops())
			return 1;
		ops += 4;
		if (paired && !(ops % 32)) {
			if (token_pass(w))
				return 1;
			passes++;
		}
	}
	/* The partner may still wait for a last token: give one. */
	if (paired)
		op1(token, w ^ 1, 1, 0);
	printf("semstress: worker %d on cpu %d: %ld operations, %ld token passes\n", w,
	       sched_getcpu(), ops, passes);
	return 0;
}

/* A child that holds an adjustment and a waiter on a set that is then removed. */
static int churn_victim(int id)
{
	pid_t pid = fork();

	if (pid == 0) {
		op1(id, 0, 1, SEM_UNDO);
		errno = 0;
		int r = op1(id, 1, -1, 0);	/* waits until the set is removed */
		_exit(r == -1 && errno == EIDRM ? 0 : 1);
	}
	for (int i = 0; i < 2000 && semctl(id, 1, GETNCNT) != 1; i++)
		usleep(500);
	semctl(id, 0, IPC_RMID);
	int st = 0;
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		printf("semstress: FAIL: a waiter on a removed set: status 0x%x\n", st);
		return 1;
	}
	return 0;
}

static int churner(int c, long until)
{
	int ids[60], n, rounds = 0, victims = 0;

	pin(c + 1);
	rnd_state = 0x1234567ULL * (c + 7);
	while (now_ms() < until) {
		n = 1 + rnd() % 60;
		for (int i = 0; i < n; i++) {
			ids[i] = semget(IPC_PRIVATE, 1 + rnd() % 8, 0600);
			if (ids[i] < 0) {
				if (errno != ENOSPC) {
					printf("semstress: FAIL: semget: errno %d\n", errno);
					return 1;
				}
				n = i;
				break;
			}
			op1(ids[i], 0, 2, SEM_UNDO);
		}
		if (!(rounds % 4)) {
			int id = semget(IPC_PRIVATE, 2, 0600);

			if (id >= 0 && churn_victim(id))
				return 1;
			victims += id >= 0;
		}
		for (int i = 0; i < n; i++)
			semctl(ids[rnd() % 2 ? i : n - 1 - i], 0, IPC_RMID);
		for (int i = 0; i < n; i++)	/* whatever the order missed */
			semctl(ids[i], 0, IPC_RMID);
		rounds++;
	}
	printf("semstress: churner %d: %d rounds, %d sets removed under a waiter\n", c, rounds, victims);
	return 0;
}

int main(int argc, char **argv)
{
	int seconds = argc > 1 ? atoi(argv[1]) : 3, per_cpu = argc > 2 ? atoi(argv[2]) : 1;
	struct qs_stats before, after;
	struct utsname u;
	pid_t pids[MAX_WORKERS + CHURNERS];
	int np = 0, bad = 0, st;
	long until;

	uname(&u);
	ncpus = u.ncpus;
	nworkers = ncpus * per_cpu < 2 ? 2 : ncpus * per_cpu;	/* at least one pair */
	if (seconds < 1 || per_cpu < 1 || nworkers > MAX_WORKERS) {
		fprintf(stderr, "usage: semstress [seconds] [workers per CPU, at most %d in all]\n",
			MAX_WORKERS);
		return 2;
	}
	qs_sem_table_grow();	/* its array at its largest before the baseline */
	qs_stats(&before, QS_STATS_SYNC);
	for (int i = 0; i < POOL; i++)
		pool[i] = semget(IPC_PRIVATE, nworkers, 0600);
	token = semget(IPC_PRIVATE, nworkers, 0600);
	if (token < 0 || pool[POOL - 1] < 0) {
		perror("semstress: semget");
		return 1;
	}
	printf("semstress: %d workers on %d CPUs and %d churners for %d s (%s)\n", nworkers, ncpus,
	       CHURNERS, seconds, u.rcu_variant);
	until = now_ms() + seconds * 1000L;
	for (int i = 0; i < nworkers + CHURNERS; i++) {
		pids[np] = fork();
		if (pids[np] == 0)
			_exit(i < nworkers ? worker(i, until) : churner(i - nworkers, until));
		np++;
	}
	for (int i = 0; i < np; i++) {
		if (waitpid(pids[i], &st, 0) != pids[i] || !WIFEXITED(st) || WEXITSTATUS(st)) {
			printf("semstress: FAIL: child %d ended with status 0x%x\n", i, st);
			bad++;
		}
	}
	for (int i = 0; i < POOL; i++) {
		for (int w = 0; w < nworkers; w++) {
			if (semctl(pool[i], w, GETVAL) != 0) {
				printf("semstress: FAIL: set %d semaphore %d ends at %d\n", pool[i], w,
				       semctl(pool[i], w, GETVAL));
				bad++;
			}
		}
		semctl(pool[i], 0, IPC_RMID);
	}
	semctl(token, 0, IPC_RMID);
	qs_stats(&after, QS_STATS_SYNC);
	if (after.kmalloc_objects != before.kmalloc_objects || after.kmalloc_bytes != before.kmalloc_bytes) {
		printf("semstress: FAIL: allocations %lu -> %lu objects, %lu -> %lu bytes\n",
		       (unsigned long)before.kmalloc_objects, (unsigned long)after.kmalloc_objects,
		       (unsigned long)before.kmalloc_bytes, (unsigned long)after.kmalloc_bytes);
		bad++;
	}
	if (bad) {
		printf("semstress: FAIL: %d problems\n", bad);
		return 1;
	}
	printf("semstress: PASS: %d workers, %d churners, %d s, values and wake-ups right, "
	       "allocations back at the baseline\n", nworkers, CHURNERS, seconds);
	return 0;
}
