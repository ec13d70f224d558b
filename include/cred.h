/*
 * The caller's credentials, for system calls outside kernel/proc (ipc,
 * net, module, trace). Processes live in kernel/proc (layer 6), which
 * nothing below it may include; these few questions are all the other
 * subsystems ask of it (kernel/proc/cred.c answers them).
 *
 * Quiescent has one privilege: uid 0 holds every capability, as a Linux
 * root without a capability set would. capable() names the capability
 * anyway, so that each check says what it guards and a finer model can
 * come later without touching the callers.
 */
#ifndef _CRED_H
#define _CRED_H

#include <types.h>

enum cap {
	CAP_IPC_OWNER,		/* SysV IPC objects whatever their modes */
	CAP_NET_ADMIN,		/* interfaces, routes, the neighbour cache */
	CAP_SYS_ADMIN,		/* tracing */
	CAP_SYS_MODULE,		/* loading and unloading modules */
};

/* The calling process's uid and gid; 0 in a kernel thread, which has none. */
int current_uid(void);
int current_gid(void);
/* The calling process's pid; a kernel thread's own task id. */
int current_tgid(void);
/* The calling process's SEM_UNDO list head (kernel/ipc/sem_undo.c), or
 * NULL in a kernel thread. */
struct sem_undo;
struct sem_undo **current_sem_undo(void);
/* Whether the caller holds cap (today: whether it runs as uid 0). */
bool capable(enum cap cap);

#endif
