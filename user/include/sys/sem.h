/*
 * SysV semaphores (POSIX <sys/sem.h>, with Linux's extensions: semtimedop,
 * IPC_INFO/SEM_INFO/SEM_STAT, struct seminfo). As POSIX says, union semun
 * is for the program to define. Stubs in user/lib/ipc.c; the kernel side
 * is kernel/ipc (docs/ipc.md).
 */
#ifndef _USER_SYS_SEM_H
#define _USER_SYS_SEM_H

#include <sys/types.h>
#include <sys/ipc.h>
#include <time.h>

#define SEM_UNDO	QS_SEM_UNDO
#define GETPID		QS_GETPID
#define GETVAL		QS_GETVAL
#define GETALL		QS_GETALL
#define GETNCNT		QS_GETNCNT
#define GETZCNT		QS_GETZCNT
#define SETVAL		QS_SETVAL
#define SETALL		QS_SETALL
#define SEM_STAT	QS_SEM_STAT
#define SEM_INFO	QS_SEM_INFO
#define SEM_STAT_ANY	QS_SEM_STAT_ANY

#define SEMMNI		QS_SEMMNI
#define SEMMSL		QS_SEMMSL
#define SEMMNS		QS_SEMMNS
#define SEMOPM		QS_SEMOPM
#define SEMVMX		QS_SEMVMX
#define SEMAEM		QS_SEMAEM

struct sembuf {
	unsigned short sem_num;
	short sem_op;
	short sem_flg;
};

struct semid_ds {
	struct ipc_perm sem_perm;
	time_t sem_otime;
	unsigned long __glibc_reserved1;
	time_t sem_ctime;
	unsigned long __glibc_reserved2;
	unsigned long sem_nsems;
	unsigned long __glibc_reserved3;
	unsigned long __glibc_reserved4;
};

struct seminfo {
	int semmap, semmni, semmns, semmnu, semmsl, semopm, semume, semusz, semvmx, semaem;
};

int semget(key_t key, int nsems, int semflg);
int semop(int semid, struct sembuf *sops, size_t nsops);
int semtimedop(int semid, struct sembuf *sops, size_t nsops, const struct timespec *timeout);
/* The fourth argument, when cmd takes one, is a union semun (the program's). */
int semctl(int semid, int semnum, int cmd, ...);

#endif
