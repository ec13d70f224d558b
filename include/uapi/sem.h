/*
 * SysV semaphores: the system-call ABI (kernel/ipc, docs/ipc.md). Numbers
 * in the range include/uapi/quiescent.h keeps for them (40-49); values
 * and layouts are Linux's on x86-64 (struct ipc64_perm, semid64_ds,
 * seminfo, sembuf), so that user/include/sys/ipc.h and sys/sem.h can give
 * POSIX programs the names and numbers they expect.
 */
#ifndef _UAPI_SEM_H
#define _UAPI_SEM_H

#include <stdint.h>

#define SYS_semget		40	/* (key, nsems, semflg) -> semid */
#define SYS_semop		41	/* (semid, struct qs_sembuf *, nsops) */
#define SYS_semtimedop		42	/* (semid, sops, nsops, const struct qs_timespec *) */
#define SYS_semctl		43	/* (semid, semnum, cmd, arg) */

/* <sys/ipc.h> */
#define QS_IPC_PRIVATE		0		/* key: always a new set */
#define QS_IPC_CREAT		001000
#define QS_IPC_EXCL		002000
#define QS_IPC_NOWAIT		004000
#define QS_IPC_RMID		0
#define QS_IPC_SET		1
#define QS_IPC_STAT		2
#define QS_IPC_INFO		3
#define QS_IPC_64		0x0100		/* glibc's version flag on cmd: accepted, ignored */

/* <sys/sem.h> */
#define QS_SEM_UNDO		0x1000
#define QS_GETPID		11
#define QS_GETVAL		12
#define QS_GETALL		13
#define QS_GETNCNT		14
#define QS_GETZCNT		15
#define QS_SETVAL		16
#define QS_SETALL		17
#define QS_SEM_STAT		18
#define QS_SEM_INFO		19
#define QS_SEM_STAT_ANY		20

/*
 * The limits. Linux 2.5's defaults (the kernel seed 004 changed), which
 * are also what its IPC_INFO reports today for SEMMSL, SEMOPM and SEMVMX;
 * SEMMNI is 2.5's 128 rather than today's 32000, so that a test can fill
 * the table.
 */
#define QS_SEMMNI		128		/* sets */
#define QS_SEMMSL		250		/* semaphores per set */
#define QS_SEMMNS		(QS_SEMMNI * QS_SEMMSL)	/* semaphores in all */
#define QS_SEMOPM		32		/* operations per semop() */
#define QS_SEMVMX		32767		/* largest semaphore value */
#define QS_SEMAEM		QS_SEMVMX	/* largest adjust-on-exit value */

/* Linux's struct ipc64_perm on x86-64. */
struct qs_ipc_perm {
	int32_t key;
	uint32_t uid, gid;		/* owner */
	uint32_t cuid, cgid;		/* creator */
	uint32_t mode;			/* the low 9 bits: permissions */
	uint16_t seq;			/* the sequence number in the id */
	uint16_t pad;
	uint64_t unused1, unused2;
};

/* Linux's struct semid64_ds on x86-64. */
struct qs_semid_ds {
	struct qs_ipc_perm sem_perm;
	int64_t sem_otime;		/* last semop(), 0 if none */
	uint64_t unused1;
	int64_t sem_ctime;		/* creation or last IPC_SET/SETVAL/SETALL */
	uint64_t unused2;
	uint64_t sem_nsems;
	uint64_t unused3, unused4;
};

/* IPC_INFO and SEM_INFO. */
struct qs_seminfo {
	int32_t semmap, semmni, semmns, semmnu, semmsl, semopm, semume, semusz, semvmx, semaem;
};

struct qs_sembuf {
	uint16_t sem_num;
	int16_t sem_op;
	int16_t sem_flg;		/* IPC_NOWAIT, SEM_UNDO */
};

#endif
