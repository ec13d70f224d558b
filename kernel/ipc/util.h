/*
 * kernel/ipc internals: the ID table that maps a SysV IPC identifier to
 * its object, as seed 004 section 4 (Figures 8-13) gives it. util.c has
 * the table, ipc_rcu.c the deferred frees, sem*.c the semaphores that
 * use it. The paper's names throughout; docs/ipc.md walks one semop()
 * through them.
 */
#ifndef _KERNEL_IPC_UTIL_H
#define _KERNEL_IPC_UTIL_H

#include <types.h>
#include <list.h>
#include <spinlock.h>
#include <semaphore.h>
#include <rcupdate.h>
#include <errno.h>
#include <uapi/sem.h>

/*
 * An id is seq * SEQ_MULTIPLIER + index: the index picks the slot in
 * `entries`, the sequence number (ipc_ids.seq at creation) tells a live
 * object from an earlier one that had the same slot, so a stale id fails
 * (ipc_checkid) once its slot is reused. Linux's values.
 */
#define IPCMNI			32768		/* most slots any table may have */
#define SEQ_MULTIPLIER		IPCMNI
#define IPC_SEQ_MAX		(0x7fffffff / SEQ_MULTIPLIER)
#define IPC_INITIAL_SIZE	4		/* slots before the first grow_ary() */

/* Permission requests for ipcperms(): read, and write ("alter"). */
#define S_IRUGO			0444
#define S_IWUGO			0222
#define S_IRWXUGO		0777

/* ipc=rcu (seed 004 Figure 9) or ipc=global (Figure 8, Linux 2.5.42). */
enum ipc_mode { IPC_MODE_RCU, IPC_MODE_GLOBAL };
extern enum ipc_mode ipc_mode;
const char *ipc_mode_name(void);

/*
 * What every IPC object starts with (Figure 9): the lock that guards the
 * operations on this one object, and the deleted flag that ipc_rmid()
 * sets under that lock, so that an ipc_lock() that raced with the removal
 * and still found the object sees it as gone (Figure 11 lines 23-28).
 */
struct kern_ipc_perm {
	spinlock_t lock;
	int deleted;
	int key;
	u32 uid, gid;			/* owner (IPC_SET changes them) */
	u32 cuid, cgid;			/* creator */
	u32 mode;			/* permission bits (0777) */
	unsigned short seq;		/* the sequence number in this object's id */
};

/* One slot of the array `entries` points at (Figure 8's ipc_id). */
struct ipc_id {
	struct kern_ipc_perm __rcu *p;	/* readers: rcu_dereference() */
};

/*
 * One ID table (Figure 8's ipc_ids). `sem` serialises the updaters
 * (ipc_addid, ipc_rmid, grow_ary, ipc_findkey: semget and semctl's
 * IPC_RMID/IPC_SET), as in 2.5. In ipc=rcu mode readers (ipc_lock) take
 * no table-wide lock at all: they read `size` and `entries` under
 * rcu_read_lock() (Figure 11), and grow_ary() orders its stores for them
 * (Figure 13). In ipc=global mode `ary` is Figure 8's one spinlock, held
 * by ipc_lock() across the lookup and the whole operation.
 */
struct ipc_ids {
	int in_use;			/* objects in the table */
	int max_id;			/* highest index in use, -1 if none */
	unsigned short seq;		/* the next object's sequence number */
	unsigned short seq_max;
	struct semaphore sem;		/* the updaters */
	spinlock_t ary;			/* ipc=global: the table and every object */
	int size;			/* slots in entries */
	struct ipc_id *entries;		/* from ipc_rcu_alloc() */
	int limit;			/* most slots this table may grow to */
};

void ipc_init_ids(struct ipc_ids *ids, int limit, int initial_size, const char *name);
/* Free the (empty) table's array; for tables made by tests. */
void ipc_destroy_ids(struct ipc_ids *ids);

/* Updaters: with ids->sem held (down()). */
int ipc_findkey(struct ipc_ids *ids, int key);
int ipc_addid(struct ipc_ids *ids, struct kern_ipc_perm *new, int size);
struct kern_ipc_perm *ipc_rmid(struct ipc_ids *ids, int id);

/* Readers (Figure 11): the object locked, or NULL. */
struct kern_ipc_perm *ipc_lock(struct ipc_ids *ids, int id);
void ipc_unlock(struct ipc_ids *ids, struct kern_ipc_perm *perm);

/*
 * Figure 11 lines 9-16, shared by ipc_lock() and the RCU stress test
 * (which widens the window between these steps): inside rcu_read_lock(),
 * the array that slot lid may be read from, or NULL if lid is out of range.
 */
static __always_inline struct ipc_id *ipc_entries(struct ipc_ids *ids, int lid)
{
	struct ipc_id *entries;

	if (lid >= READ_ONCE(ids->size))
		return NULL;
	/* barrier syncs with grow_ary(): the size before the array it sizes */
	smp_rmb();
	entries = READ_ONCE(ids->entries);
	read_barrier_depends();
	return entries;
}

/*
 * The object in slot lid, for the update side: ids->sem held (an updater)
 * or, in ipc=global mode, ids->ary. A semaphore has no owner, so "held"
 * is "taken by someone", which is as much as the check can know.
 */
static inline bool ipc_ids_update_held(struct ipc_ids *ids)
{
	return READ_ONCE(ids->sem.count) == 0 || spin_is_locked(&ids->ary);
}

static inline struct kern_ipc_perm *ipc_slot(struct ipc_ids *ids, int lid)
{
	return rcu_dereference_protected(ids->entries[lid].p, ipc_ids_update_held(ids));
}

static inline int ipc_buildid(struct ipc_ids *ids, int id, int seq)
{
	return SEQ_MULTIPLIER * seq + id;
}

/* Non-zero if id names an earlier object than the one in its slot. */
static inline int ipc_checkid(struct ipc_ids *ids, struct kern_ipc_perm *ipcp, int id)
{
	return id / SEQ_MULTIPLIER != ipcp->seq;
}

/* The caller's ids (root for a kernel thread), and what its mode grants. */
void ipc_cred(u32 *uid, u32 *gid);
int ipc_caller_pid(void);
bool ipc_is_root(void);
/* 0 if flag's requested permissions (S_IRUGO, S_IWUGO, or mode bits) are granted. */
int ipcperms(struct kern_ipc_perm *ipcp, short flag);
/* Owner, creator or root: may IPC_SET and IPC_RMID. */
bool ipc_may_change(struct kern_ipc_perm *ipcp);
/* Seconds for sem_otime and sem_ctime (CLOCK_REALTIME: since boot here). */
long ipc_time(void);

/*
 * Figure 9's ipc_rcu_kmalloc: the header in front of every object and
 * array the table hands to a reader, holding what call_rcu() needs to
 * free it after a grace period (ipc_rcu.c, Figure 12). `pending` links it
 * on the list of frees waiting for their grace period (gdb's qs-ipc).
 */
struct ipc_rcu_kmalloc {
	struct rcu_head rcu;
	struct list_head pending;
	unsigned long size;		/* of the data that follows */
	const char *freed_by;		/* the function that called ipc_rcu_free() */
};

void *ipc_rcu_alloc(int size);
/* Figure 12's ipc_rcu_free(ptr, size); the caller's name is kept for gdb. */
#define ipc_rcu_free(ptr, size)	__ipc_rcu_free(ptr, size, __func__)
void __ipc_rcu_free(void *ptr, int size, const char *caller);
/* Objects and arrays handed to call_rcu() and not yet freed. */
long ipc_rcu_pending_count(void);

#endif
