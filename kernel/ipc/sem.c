/*
 * SysV semaphore sets: semget() and semctl(), on the ID table of util.c
 * (seed 004 section 4; docs/ipc.md). semop() is in semop.c, SEM_UNDO in
 * sem_undo.c.
 *
 * Every set is reached through ipc_lock() (Figure 11) and released with
 * ipc_unlock(), so the same code runs in ipc=rcu and ipc=global mode.
 * Creating and removing a set also holds sem_ids.sem, the updaters'
 * semaphore, as Linux 2.5 did; removal is freeary(): ipc_rmid()
 * (Figure 10), wake every waiter with EIDRM, and ipc_rcu_free()
 * (Figure 12) once the lock is dropped.
 *
 * Semantics are POSIX's as Linux gives them (the error for each case, the
 * limits in include/uapi/sem.h): semctl()'s commands GETVAL, SETVAL,
 * GETALL, SETALL, GETPID, GETNCNT, GETZCNT, IPC_STAT, IPC_SET, IPC_RMID,
 * IPC_INFO, SEM_INFO, SEM_STAT (and SEM_STAT_ANY). Where Linux has
 * changed over time we follow today's: an id whose set is gone is EINVAL,
 * EIDRM is for a caller whose set is removed while it waits.
 */
#include "sem.h"
#include <ipc.h>
#include <syscall.h>
#include <uaccess.h>
#include <kmalloc.h>
#include <string.h>
#include <printk.h>

struct ipc_ids sem_ids;
static int used_sems;			/* semaphores in all sets (sem_ids.sem) */

void ipc_init(void)
{
	ipc_init_ids(&sem_ids, SEMMNI, IPC_INITIAL_SIZE, "sem_ids.ary");
	printk("ipc: semaphore ids: %s lookup (%s), %d slots to start, at most %d sets\n",
	       ipc_mode_name(), ipc_mode == IPC_MODE_RCU ?
	       "rcu_read_lock and a lock per set, seed 004 Figure 11" :
	       "one lock for the table, Linux 2.5.42", sem_ids.size, SEMMNI);
}

struct sem_array *sem_lock_check(int semid)
{
	struct kern_ipc_perm *p = ipc_lock(&sem_ids, semid);

	if (p && ipc_checkid(&sem_ids, p, semid)) {
		ipc_unlock(&sem_ids, p);
		return NULL;
	}
	return (struct sem_array *)p;
}

static int sem_size(int nsems)
{
	return sizeof(struct sem_array) + nsems * sizeof(struct sem);
}

/* ---------------------------------------------------------------- semget */

/* A new set; sem_ids.sem held. The id, or -errno. */
static int newary(int key, int nsems, int semflg)
{
	struct sem_array *sma;
	int id;

	if (!nsems)
		return -EINVAL;
	if (used_sems + nsems > SEMMNS)
		return -ENOSPC;
	sma = ipc_rcu_alloc(sem_size(nsems));
	if (!sma)
		return -ENOMEM;
	memset(sma, 0, sem_size(nsems));
	sma->sem_perm.key = key;
	sma->sem_perm.mode = semflg & S_IRWXUGO;
	ipc_cred(&sma->sem_perm.uid, &sma->sem_perm.gid);
	sma->sem_perm.cuid = sma->sem_perm.uid;
	sma->sem_perm.cgid = sma->sem_perm.gid;
	sma->sem_base = sma->sems;
	sma->sem_nsems = nsems;
	sma->sem_ctime = ipc_time();
	INIT_LIST_HEAD(&sma->sem_pending);
	INIT_LIST_HEAD(&sma->sem_undo);

	id = ipc_addid(&sem_ids, &sma->sem_perm, SEMMNI);
	if (id == -1) {
		ipc_rcu_free(sma, sem_size(nsems));
		return -ENOSPC;
	}
	used_sems += nsems;
	sma->sem_id = ipc_buildid(&sem_ids, id, sma->sem_perm.seq);
	id = sma->sem_id;
	sem_unlock(sma);
	return id;
}

/* An existing set by its slot; sem_ids.sem held. */
static int sem_get_existing(int lid, int nsems, int semflg)
{
	struct sem_array *sma = (struct sem_array *)ipc_lock(&sem_ids, lid);
	int err;

	if (!sma)
		return -EIDRM;		/* cannot happen: updaters hold sem_ids.sem */
	if (nsems > sma->sem_nsems)
		err = -EINVAL;
	else if (ipcperms(&sma->sem_perm, semflg))
		err = -EACCES;
	else
		err = sma->sem_id;
	sem_unlock(sma);
	return err;
}

static long sys_semget(struct pt_regs *r)
{
	int key = SYSCALL_ARG0(r), nsems = SYSCALL_ARG1(r), semflg = SYSCALL_ARG2(r);
	int lid, err;

	if (nsems < 0 || nsems > SEMMSL)
		return -EINVAL;
	down(&sem_ids.sem);
	if (key == QS_IPC_PRIVATE) {
		err = newary(key, nsems, semflg);
	} else if ((lid = ipc_findkey(&sem_ids, key)) == -1) {
		err = semflg & QS_IPC_CREAT ? newary(key, nsems, semflg) : -ENOENT;
	} else if ((semflg & QS_IPC_CREAT) && (semflg & QS_IPC_EXCL)) {
		err = -EEXIST;
	} else {
		err = sem_get_existing(lid, nsems, semflg);
	}
	up(&sem_ids.sem);
	return err;
}
SYSCALL_DEFINE(SYS_semget, sys_semget);

/* ---------------------------------------------------------------- removal */

/*
 * IPC_RMID: sma is locked and sem_ids.sem held. Out of the table and
 * marked deleted (Figure 10), every waiter told EIDRM, every undo
 * structure released to its owner; then, unlocked, freed after a grace
 * period (Figure 12).
 */
static void freeary(struct sem_array *sma)
{
	struct sem_queue *q, *tq;
	int nsems = sma->sem_nsems;

	ipc_rmid(&sem_ids, sma->sem_id);
	sem_undo_release_all(sma);
	list_for_each_entry_safe(q, tq, &sma->sem_pending, list) {
		list_del(&q->list);
		sem_wake(q, -EIDRM);
	}
	used_sems -= nsems;
	sem_unlock(sma);
	ipc_rcu_free(sma, sem_size(nsems));
}

/* ---------------------------------------------------------------- semctl */

static void fill_semid_ds(struct sem_array *sma, struct qs_semid_ds *ds)
{
	struct kern_ipc_perm *p = &sma->sem_perm;

	memset(ds, 0, sizeof(*ds));
	ds->sem_perm.key = p->key;
	ds->sem_perm.uid = p->uid;
	ds->sem_perm.gid = p->gid;
	ds->sem_perm.cuid = p->cuid;
	ds->sem_perm.cgid = p->cgid;
	ds->sem_perm.mode = p->mode;
	ds->sem_perm.seq = p->seq;
	ds->sem_otime = sma->sem_otime;
	ds->sem_ctime = sma->sem_ctime;
	ds->sem_nsems = sma->sem_nsems;
}

/* IPC_INFO, SEM_INFO: the limits (and use); returns the highest slot in use. */
static long semctl_info(int cmd, void __user *buf)
{
	struct qs_seminfo si = {
		.semmni = SEMMNI, .semmns = SEMMNS, .semmsl = SEMMSL, .semopm = SEMOPM,
		.semvmx = SEMVMX, .semmnu = SEMMNS, .semmap = SEMMNS, .semume = SEMOPM,
		.semusz = SEMUSZ, .semaem = SEMAEM,
	};
	int max_id;

	down(&sem_ids.sem);
	if (cmd == QS_SEM_INFO) {
		si.semusz = sem_ids.in_use;
		si.semaem = used_sems;
	}
	max_id = sem_ids.max_id;
	up(&sem_ids.sem);
	if (copy_to_user(buf, &si, sizeof(si)))
		return -EFAULT;
	return max_id < 0 ? 0 : max_id;
}

/* IPC_STAT (by id) and SEM_STAT/SEM_STAT_ANY (by slot, returning the id). */
static long semctl_stat(int semid, int cmd, void __user *buf)
{
	struct qs_semid_ds ds;
	struct sem_array *sma;
	long ret = 0;

	if (cmd == QS_IPC_STAT)
		sma = sem_lock_check(semid);
	else
		sma = semid >= SEMMNI ? NULL : (struct sem_array *)ipc_lock(&sem_ids, semid);
	if (!sma)
		return -EINVAL;
	if (cmd != QS_SEM_STAT_ANY && ipcperms(&sma->sem_perm, S_IRUGO)) {
		sem_unlock(sma);
		return -EACCES;
	}
	fill_semid_ds(sma, &ds);
	if (cmd != QS_IPC_STAT)
		ret = sma->sem_id;
	sem_unlock(sma);
	if (copy_to_user(buf, &ds, sizeof(ds)))
		return -EFAULT;
	return ret;
}

/* GETNCNT (zero = false) or GETZCNT: callers waiting that this semaphore holds up. */
static int count_waiters(struct sem_array *sma, int semnum, bool zero)
{
	struct sem_queue *q;
	int n = 0, val = sma->sem_base[semnum].semval;

	list_for_each_entry(q, &sma->sem_pending, list) {
		for (int i = 0; i < q->nsops; i++) {
			struct qs_sembuf *op = &q->sops[i];
			bool held;

			if (op->sem_num != semnum)
				continue;
			if (zero)
				held = op->sem_op == 0 && val != 0;
			else
				held = op->sem_op < 0 && val + op->sem_op < 0;
			if (held) {
				n++;
				break;
			}
		}
	}
	return n;
}

/* GETVAL, GETPID, GETNCNT, GETZCNT. */
static long semctl_get(int semid, int semnum, int cmd)
{
	struct sem_array *sma = sem_lock_check(semid);
	long ret;

	if (!sma)
		return -EINVAL;
	if (ipcperms(&sma->sem_perm, S_IRUGO))
		ret = -EACCES;
	else if (semnum < 0 || semnum >= sma->sem_nsems)
		ret = -EINVAL;
	else if (cmd == QS_GETVAL)
		ret = sma->sem_base[semnum].semval;
	else if (cmd == QS_GETPID)
		ret = sma->sem_base[semnum].sempid;
	else
		ret = count_waiters(sma, semnum, cmd == QS_GETZCNT);
	sem_unlock(sma);
	return ret;
}

static long semctl_setval(int semid, int semnum, int val)
{
	struct sem_array *sma;
	long ret = 0;

	if (val > SEMVMX || val < 0)
		return -ERANGE;
	sma = sem_lock_check(semid);
	if (!sma)
		return -EINVAL;
	if (semnum < 0 || semnum >= sma->sem_nsems) {
		ret = -EINVAL;
	} else if (ipcperms(&sma->sem_perm, S_IWUGO)) {
		ret = -EACCES;
	} else {
		sem_undo_clear(sma, semnum);
		sma->sem_base[semnum].semval = val;
		sma->sem_base[semnum].sempid = ipc_caller_pid();
		sma->sem_ctime = ipc_time();
		update_queue(sma);
	}
	sem_unlock(sma);
	return ret;
}

static long semctl_getall(int semid, u16 __user *array)
{
	u16 vals[SEMMSL];
	struct sem_array *sma = sem_lock_check(semid);
	int nsems;

	if (!sma)
		return -EINVAL;
	if (ipcperms(&sma->sem_perm, S_IRUGO)) {
		sem_unlock(sma);
		return -EACCES;
	}
	nsems = sma->sem_nsems;
	for (int i = 0; i < nsems; i++)
		vals[i] = sma->sem_base[i].semval;
	sem_unlock(sma);
	return copy_to_user(array, vals, nsems * sizeof(u16)) ? -EFAULT : 0;
}

/*
 * SETALL: the values are copied in with the set unlocked (a fault must
 * not happen under a spinlock), so the set is looked up twice; if it was
 * removed in between, the caller gets EIDRM, as on Linux.
 */
static long semctl_setall(int semid, const u16 __user *array)
{
	u16 vals[SEMMSL];
	struct sem_array *sma = sem_lock_check(semid);
	int nsems;

	if (!sma)
		return -EINVAL;
	if (ipcperms(&sma->sem_perm, S_IWUGO)) {
		sem_unlock(sma);
		return -EACCES;
	}
	nsems = sma->sem_nsems;
	sem_unlock(sma);
	if (copy_from_user(vals, array, nsems * sizeof(u16)))
		return -EFAULT;
	for (int i = 0; i < nsems; i++)
		if (vals[i] > SEMVMX)
			return -ERANGE;
	sma = sem_lock_check(semid);
	if (!sma)
		return -EIDRM;
	sem_undo_clear(sma, -1);
	for (int i = 0; i < nsems; i++) {
		sma->sem_base[i].semval = vals[i];
		sma->sem_base[i].sempid = ipc_caller_pid();
	}
	sma->sem_ctime = ipc_time();
	update_queue(sma);
	sem_unlock(sma);
	return 0;
}

/* IPC_SET and IPC_RMID: the owner, the creator or root; sem_ids.sem held. */
static long semctl_down(int semid, int cmd, const void __user *buf)
{
	struct qs_semid_ds ds;
	struct sem_array *sma;
	long ret = 0;

	if (cmd == QS_IPC_SET && copy_from_user(&ds, buf, sizeof(ds)))
		return -EFAULT;
	down(&sem_ids.sem);
	sma = sem_lock_check(semid);
	if (!sma) {
		ret = -EINVAL;
	} else if (!ipc_may_change(&sma->sem_perm)) {
		sem_unlock(sma);
		ret = -EPERM;
	} else if (cmd == QS_IPC_RMID) {
		freeary(sma);			/* unlocks */
	} else {
		sma->sem_perm.uid = ds.sem_perm.uid;
		sma->sem_perm.gid = ds.sem_perm.gid;
		sma->sem_perm.mode = ds.sem_perm.mode & S_IRWXUGO;
		sma->sem_ctime = ipc_time();
		sem_unlock(sma);
	}
	up(&sem_ids.sem);
	return ret;
}

/* For in-kernel tests (semop_test.c): a private set, and its removal. */
int sem_create_private(int nsems, int mode)
{
	int id;

	down(&sem_ids.sem);
	id = newary(QS_IPC_PRIVATE, nsems, mode);
	up(&sem_ids.sem);
	return id;
}

int sem_remove(int semid)
{
	return semctl_down(semid, QS_IPC_RMID, NULL);
}

static long sys_semctl(struct pt_regs *r)
{
	int semid = SYSCALL_ARG0(r), semnum = SYSCALL_ARG1(r), cmd = SYSCALL_ARG2(r);
	unsigned long arg = SYSCALL_ARG3(r);

	cmd &= ~QS_IPC_64;
	/* The limits name no set: the id is ignored, as Linux and POSIX systems do. */
	if (cmd == QS_IPC_INFO || cmd == QS_SEM_INFO)
		return semctl_info(cmd, (void __user *)arg);
	if (semid < 0)
		return -EINVAL;
	switch (cmd) {
	case QS_IPC_STAT:
	case QS_SEM_STAT:
	case QS_SEM_STAT_ANY:
		return semctl_stat(semid, cmd, (void __user *)arg);
	case QS_GETVAL:
	case QS_GETPID:
	case QS_GETNCNT:
	case QS_GETZCNT:
		return semctl_get(semid, semnum, cmd);
	case QS_SETVAL:
		return semctl_setval(semid, semnum, (int)arg);
	case QS_GETALL:
		return semctl_getall(semid, (u16 __user *)arg);
	case QS_SETALL:
		return semctl_setall(semid, (const u16 __user *)arg);
	case QS_IPC_SET:
	case QS_IPC_RMID:
		return semctl_down(semid, cmd, (const void __user *)arg);
	}
	return -EINVAL;
}
SYSCALL_DEFINE(SYS_semctl, sys_semctl);
