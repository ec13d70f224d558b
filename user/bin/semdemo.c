/*
 * semdemo: a textbook SysV semaphore program, plain POSIX (no Quiescent
 * header), that builds unchanged with glibc and prints the same lines on
 * Linux (docs/ipc.md). Four processes increment a counter held in a
 * semaphore under a mutex semaphore (SEM_UNDO), with a usleep() inside
 * the critical section to invite races; one process gives up root and is
 * refused; one dies holding the mutex and SEM_UNDO gives it back; the
 * parent removes the set, after which the id is invalid.
 *
 *   cc semdemo.c -o semdemo && ./semdemo      (Linux: the same output)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <sys/ipc.h>
#include <sys/sem.h>

#define WORKERS	4
#define ROUNDS	50

union semun {
	int val;
	struct semid_ds *buf;
	unsigned short *array;
};

static int id;

static int lock(void)
{
	struct sembuf p = { 0, -1, SEM_UNDO };

	return semop(id, &p, 1);
}

static int unlock(void)
{
	struct sembuf v = { 0, 1, SEM_UNDO };

	return semop(id, &v, 1);
}

/* counter++ under the mutex, the slow way: read, sleep, write. */
static void worker(int n)
{
	union semun arg;

	for (int i = 0; i < ROUNDS; i++) {
		if (lock() < 0) {
			printf("worker %d: lock: %s\n", n, strerror(errno));
			_exit(1);
		}
		arg.val = semctl(id, 1, GETVAL) + 1;
		if (i % 8 == n)
			usleep(200);
		semctl(id, 1, SETVAL, arg);
		unlock();
	}
	_exit(0);
}

int main(void)
{
	union semun arg;
	pid_t pid;
	int status, failed = 0;

	id = semget(IPC_PRIVATE, 2, IPC_CREAT | 0600);
	if (id < 0) {
		perror("semget");
		return 1;
	}
	arg.val = 1;
	semctl(id, 0, SETVAL, arg);		/* the mutex */
	arg.val = 0;
	semctl(id, 1, SETVAL, arg);		/* the counter */

	for (int n = 0; n < WORKERS; n++)
		if (fork() == 0)
			worker(n);
	while ((pid = wait(&status)) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			failed++;
	printf("semdemo: %d workers x %d increments: counter = %d, %d failed\n", WORKERS, ROUNDS,
	       semctl(id, 1, GETVAL), failed);

	/* Another user may not touch a 0600 set. */
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct sembuf p = { 0, -1, IPC_NOWAIT };

		if (setuid(1000) < 0) {
			perror("setuid");
			_exit(1);
		}
		if (semop(id, &p, 1) < 0)
			printf("semdemo: semop as uid %d: %s\n", (int)getuid(), strerror(errno));
		fflush(stdout);		/* _exit() does not flush stdio (on Linux it buffers) */
		_exit(0);
	}
	waitpid(pid, &status, 0);

	/* A process that exits holding the mutex gives it back (SEM_UNDO). */
	pid = fork();
	if (pid == 0) {
		lock();
		_exit(0);
	}
	waitpid(pid, &status, 0);
	printf("semdemo: the mutex after its holder exited: %d\n", semctl(id, 0, GETVAL));

	semctl(id, 0, IPC_RMID);
	if (lock() < 0)
		printf("semdemo: after IPC_RMID: %s\n", strerror(errno));
	return 0;
}
