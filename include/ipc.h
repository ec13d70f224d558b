/*
 * SysV IPC (kernel/ipc, docs/ipc.md): what the rest of the kernel calls.
 * The system calls register themselves (include/syscall.h); the ABI is
 * include/uapi/sem.h.
 */
#ifndef _IPC_H
#define _IPC_H

struct process;

/* The semaphore ID table, in the mode the command line chose (ipc=rcu|global). */
void ipc_init(void);
/* Process exit (and kill): apply and free the SEM_UNDO adjustments on
 * list (the process's), on behalf of pid. */
struct sem_undo;
void exit_sem(struct sem_undo **list, int pid);

#endif
