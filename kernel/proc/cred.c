/*
 * include/cred.h: the caller's credentials from its struct process. A
 * kernel thread has no process and acts as root (it runs only the
 * kernel's own code).
 */
#include <cred.h>
#include "proc.h"

int current_uid(void)
{
	struct process *p = current_proc();

	return p ? p->uid : 0;
}

int current_gid(void)
{
	struct process *p = current_proc();

	return p ? p->gid : 0;
}

int current_tgid(void)
{
	struct process *p = current_proc();

	return p ? p->pid : current->pid;
}

bool capable(enum cap cap)
{
	return current_uid() == 0;
}

struct sem_undo **current_sem_undo(void)
{
	struct process *p = current_proc();

	return p ? &p->sem_undo : NULL;
}
