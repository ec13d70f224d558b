/*
 * Semaphore sets (kernel/ipc/sem*.c): the structures behind semget(),
 * semop() and semctl(), laid out as Linux 2.5's ipc/sem.c laid them out,
 * and found through the ID table of util.c (seed 004 Figure 9).
 */
#ifndef _KERNEL_IPC_SEM_H
#define _KERNEL_IPC_SEM_H

#include "util.h"
#include <uapi/sem.h>

#define SEMMNI		QS_SEMMNI
#define SEMMSL		QS_SEMMSL
#define SEMMNS		QS_SEMMNS
#define SEMOPM		QS_SEMOPM
#define SEMVMX		QS_SEMVMX
#define SEMAEM		QS_SEMAEM
#define SEMUSZ		20	/* what IPC_INFO reports, as Linux does */

/* One semaphore. */
struct sem {
	int semval;
	int sempid;			/* the last process to operate on it */
};

/*
 * One set (semget()). It is an ipc_rcu_alloc() block: ipc_lock() may
 * still reach it for a grace period after IPC_RMID, and sees it deleted.
 */
struct sem_array {
	struct kern_ipc_perm sem_perm;	/* first: the table points here */
	long sem_otime;			/* last semop() */
	long sem_ctime;			/* creation, IPC_SET, SETVAL, SETALL */
	struct sem *sem_base;		/* sems[] below */
	struct list_head sem_pending;	/* struct sem_queue: blocked semop()s */
	struct list_head sem_undo;	/* struct sem_undo of processes with adjustments */
	int sem_nsems;
	int sem_id;			/* the id semget() returned */
	struct sem sems[];
};

/*
 * A semop() that must wait: it lives on its caller's kernel stack, on
 * sma->sem_pending, until a waker (update_queue(), freeary()) decides
 * its result and sets status (release), or until the caller gives up
 * (timeout, kill) and takes it off the list under the set's lock.
 */
#define SEMQ_WAITING	1		/* status until decided: 0 or -errno then */

struct task;

struct sem_queue {
	struct list_head list;
	struct task *sleeper;
	struct sem_undo *undo;
	int pid;
	int status;
	struct qs_sembuf *sops;
	int nsops;
	bool alter;			/* changes a value (else waits for zero) */
};

/*
 * A process's adjustments for one set (SEM_UNDO), applied when it exits.
 * On two lists: the process's own (proc_next; only that process walks or
 * changes it) and the set's (id_list, under the set's lock). When the set
 * is removed freeary() sets semid to -1 (release): after that it never
 * touches the structure again, and its owner may free it.
 */
struct sem_undo {
	struct sem_undo *proc_next;
	struct list_head id_list;
	int semid;
	short semadj[];
};

extern struct ipc_ids sem_ids;

/* The set semid names, locked (ipc_lock() and its sequence number), or NULL. */
struct sem_array *sem_lock_check(int semid);
static inline void sem_unlock(struct sem_array *sma)
{
	ipc_unlock(&sem_ids, &sma->sem_perm);
}

/* semop.c */
/* Apply what can be applied of sma's waiting operations, waking their callers. */
void update_queue(struct sem_array *sma);
/* Decide q's result and wake its caller; q is off the list already. */
void sem_wake(struct sem_queue *q, int status);
long do_semtimedop(int semid, struct qs_sembuf *sops, unsigned int nsops, long timeout,
		   bool timed);

/* sem.c, for in-kernel tests: a private set (its id), and IPC_RMID. */
int sem_create_private(int nsems, int mode);
int sem_remove(int semid);

/* sem_undo.c */
/* The caller's adjustments for this set, made if needed; NULL: no memory. */
struct sem_undo *find_alloc_undo(struct sem_array *sma, int semid);
/* SETVAL and SETALL: forget every process's adjustments for semnum (-1: all). */
void sem_undo_clear(struct sem_array *sma, int semnum);
/* IPC_RMID: let every owner free its adjustments for sma. */
void sem_undo_release_all(struct sem_array *sma);

#endif
