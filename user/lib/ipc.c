/* SysV semaphores and ftok() (sys/sem.h, sys/ipc.h; the kernel: kernel/ipc). */
#include <sys/sem.h>
#include <quiescent.h>
#include <sys/ipc.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <fcntl.h>
#include <unistd.h>
#include <errno.h>
#include <stdarg.h>

static long ret(long r)
{
	if (r < 0 && r > -4096) {
		errno = -r;
		return -1;
	}
	return r;
}

int semget(key_t key, int nsems, int semflg)
{
	return ret(__syscall3(SYS_semget, key, nsems, semflg));
}

int semop(int semid, struct sembuf *sops, size_t nsops)
{
	return ret(__syscall3(SYS_semop, semid, sops, nsops));
}

int semtimedop(int semid, struct sembuf *sops, size_t nsops, const struct timespec *timeout)
{
	return ret(__syscall6(SYS_semtimedop, semid, (long)sops, (long)nsops, (long)timeout, 0, 0));
}

/*
 * union semun is one machine word passed by value (an int, or a pointer):
 * read it as such, for the commands that take it, as glibc does.
 */
int semctl(int semid, int semnum, int cmd, ...)
{
	unsigned long arg = 0;
	va_list ap;

	switch (cmd & ~QS_IPC_64) {
	case SETVAL: case GETALL: case SETALL: case IPC_STAT: case IPC_SET:
	case IPC_INFO: case SEM_INFO: case SEM_STAT: case SEM_STAT_ANY:
		va_start(ap, cmd);
		arg = va_arg(ap, unsigned long);
		va_end(ap);
		break;
	}
	return ret(__syscall6(SYS_semctl, semid, semnum, cmd, (long)arg, 0, 0));
}

key_t ftok(const char *path, int proj_id)
{
	struct stat st;
	unsigned int h = 2166136261u;		/* FNV-1a */
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return -1;
	}
	close(fd);
	while (*path == '/')
		path++;
	for (; *path; path++) {
		h ^= (unsigned char)*path;
		h *= 16777619u;
	}
	return (key_t)(((unsigned int)(proj_id & 0xff) << 24) | (h & 0xffffff));
}

void qs_sem_table_grow(void)		/* <quiescent.h> */
{
	static int ids[SEMMNI];
	int n = 0;

	while (n < SEMMNI && (ids[n] = semget(IPC_PRIVATE, 1, 0600)) >= 0)
		n++;
	while (n)
		semctl(ids[--n], 0, IPC_RMID);
}
