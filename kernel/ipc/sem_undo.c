/*
 * SEM_UNDO: each operation flagged SEM_UNDO records the opposite change
 * in the caller's adjustment for that semaphore (semadj), and when the
 * process ends (exit, a kill, a fault) exit_sem() applies what is left,
 * so a process that dies holding a semaphore gives it back. As in Linux
 * 2.5: one struct sem_undo per process and set, on the process's list
 * and on the set's; SETVAL and SETALL zero the adjustments they make
 * meaningless; fork() does not inherit them (the child starts with none)
 * and exec keeps them.
 *
 * Lifetime: only the owning process frees its sem_undo, and only after
 * taking it off the set's list under the set's lock. If the set is
 * removed first, freeary() marks each of the set's sem_undo with semid
 * -1 as the last thing it does to it (a release store); the owner frees
 * such a one when it next meets it (find_alloc_undo(), exit_sem()). An
 * owner that finds its set gone but the mark not yet made is racing that
 * very freeary(), which holds the set's lock until it is done: it waits
 * for the mark.
 */
#include "sem.h"
#include <ipc.h>
#include <kmalloc.h>
#include <cred.h>

struct sem_undo *find_alloc_undo(struct sem_array *sma, int semid)
{
	struct sem_undo **list = current_sem_undo();
	struct sem_undo **pp, *un;
	int id;

	if (!list)
		return NULL;
	for (pp = list; (un = *pp); ) {
		id = smp_load_acquire(&un->semid);
		if (id == semid)
			return un;
		if (id == -1) {			/* its set is gone: ours to free */
			*pp = un->proc_next;
			kfree(un);
			continue;
		}
		pp = &un->proc_next;
	}
	un = kzalloc(sizeof(*un) + sma->sem_nsems * sizeof(un->semadj[0]));
	if (!un)
		return NULL;
	un->semid = semid;
	list_add(&un->id_list, &sma->sem_undo);
	un->proc_next = *list;
	*list = un;
	return un;
}

void sem_undo_clear(struct sem_array *sma, int semnum)
{
	struct sem_undo *un;

	list_for_each_entry(un, &sma->sem_undo, id_list) {
		if (semnum >= 0)
			un->semadj[semnum] = 0;
		else
			for (int i = 0; i < sma->sem_nsems; i++)
				un->semadj[i] = 0;
	}
}

void sem_undo_release_all(struct sem_array *sma)
{
	struct sem_undo *un, *tmp;

	list_for_each_entry_safe(un, tmp, &sma->sem_undo, id_list)
		smp_store_release(&un->semid, -1);	/* the owner may free it now */
}

/* Apply un's adjustments to sma (locked), clamped to 0..SEMVMX as Linux does. */
static void apply_undo(struct sem_array *sma, struct sem_undo *un, int pid)
{
	for (int i = 0; i < sma->sem_nsems; i++) {
		struct sem *s = &sma->sem_base[i];
		int v;

		if (!un->semadj[i])
			continue;
		v = s->semval + un->semadj[i];
		if (v < 0)
			v = 0;
		if (v > SEMVMX)
			v = SEMVMX;
		s->semval = v;
		s->sempid = pid;
	}
}

void exit_sem(struct sem_undo **list, int pid)
{
	struct sem_undo *un, *next;
	struct sem_array *sma;
	int semid;

	for (un = *list; un; un = next) {
		next = un->proc_next;
		semid = smp_load_acquire(&un->semid);
		if (semid != -1) {
			sma = sem_lock_check(semid);
			if (sma) {
				list_del(&un->id_list);
				apply_undo(sma, un, pid);
				update_queue(sma);
				sem_unlock(sma);
			} else {
				while (smp_load_acquire(&un->semid) != -1)
					cpu_relax();
			}
		}
		kfree(un);
	}
	*list = NULL;
}
