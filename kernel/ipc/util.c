/*
 * The SysV IPC ID table, after seed 004 section 4 ("RCU Implementation of
 * System V IPC", Figures 8-16): how semop() turns a semid into its
 * semaphore set without a table-wide lock.
 *
 * Data (the paper's names, util.h):
 *   ipc_ids            one table: in_use, max_id, seq, size and `entries`,
 *                      the array of ipc_id slots (Figure 8);
 *   kern_ipc_perm      the head of every object: its own lock and the
 *                      deleted flag (Figure 9);
 *   ipc_rcu_kmalloc    the header that lets an object or an array be freed
 *                      by call_rcu() (Figure 9, ipc_rcu.c).
 *
 * The functions: ipc_addid() puts an object in a free slot (growing the
 * array with grow_ary(), Figure 13); ipc_lock()/ipc_unlock() look an id up
 * and lock its object (Figure 11); ipc_rmid() takes it out of the table
 * and marks it deleted (Figure 10); the caller then frees it with
 * ipc_rcu_free() (Figure 12), after a grace period.
 *
 * Two modes, chosen at boot with ipc=rcu|global (one boot each compares
 * them fairly, semopbench, docs/ipc.md):
 *   rcu     the paper's: ipc_lock() is rcu_read_lock() and the object's
 *           own lock; updaters serialise on ids->sem and publish with
 *           write barriers; frees wait for a grace period.
 *   global  what the paper replaced (Linux 2.5.42, Figure 8): ipc_lock()
 *           takes ids->ary, one spinlock for the table, and holds it
 *           across the operation; frees are immediate.
 * Everything above ipc_lock() is the same code in both.
 *
 * Where we differ from the figures, and why:
 *
 * 1. 2.5 sized `entries` for the whole limit (SEMMNI) at boot, so
 *    grow_ary() ran only when the limit was raised at run time. Here a
 *    table starts with IPC_INITIAL_SIZE slots and ipc_addid() doubles it
 *    when it is full, so grow_ary() and its barriers run in ordinary use
 *    and under the stress test (kernel/ipc/stress.c).
 * 2. ipc_lock() refuses a negative id before computing the slot (2.5's
 *    callers did; here the check travels with the function), and returns
 *    the object for any id whose slot holds one: callers that were given
 *    an id by a user check its sequence number with ipc_checkid() under
 *    the lock, as 2.5's sem_checkid() did.
 * 3. In global mode grow_ary() swaps the array under ids->ary and frees
 *    the old one at once, as 2.5.42 did; in rcu mode it is Figure 13.
 */
#include "util.h"
#include <cred.h>
#include <kmalloc.h>
#include <cmdline.h>
#include <string.h>
#include <printk.h>
#include <panic.h>
#include <time.h>

enum ipc_mode ipc_mode = IPC_MODE_RCU;

static int set_ipc_mode(const char *val)
{
	if (val && !strcmp(val, "rcu"))
		ipc_mode = IPC_MODE_RCU;
	else if (val && !strcmp(val, "global"))
		ipc_mode = IPC_MODE_GLOBAL;
	else
		return -1;
	return 0;
}
CMDLINE_PARAM("ipc", set_ipc_mode,
	      "ipc=rcu|global: SysV IPC ids looked up under RCU with a lock per object "
	      "(seed 004, the default), or under one global lock (Linux 2.5.42)");

const char *ipc_mode_name(void)
{
	return ipc_mode == IPC_MODE_RCU ? "rcu" : "global";
}

void ipc_init_ids(struct ipc_ids *ids, int limit, int initial_size, const char *name)
{
	memset(ids, 0, sizeof(*ids));
	sema_init(&ids->sem, 1);
	spin_lock_init(&ids->ary, name);
	ids->max_id = -1;
	ids->seq_max = IPC_SEQ_MAX;
	ids->limit = limit < IPCMNI ? limit : IPCMNI;
	if (initial_size > ids->limit)
		initial_size = ids->limit;
	ids->entries = ipc_rcu_alloc(sizeof(struct ipc_id) * initial_size);
	if (ids->entries) {
		memset(ids->entries, 0, sizeof(struct ipc_id) * initial_size);
		ids->size = initial_size;
	}
}

void ipc_destroy_ids(struct ipc_ids *ids)
{
	if (ids->in_use)
		panic("ipc_destroy_ids: %d objects still in the table", ids->in_use);
	ipc_rcu_free(ids->entries, sizeof(struct ipc_id) * ids->size);
	ids->entries = NULL;
	ids->size = 0;
}

/* ---------------------------------------------------------------- updaters */

/* The slot holding key, or -1. ids->sem held. */
int ipc_findkey(struct ipc_ids *ids, int key)
{
	for (int id = 0; id <= ids->max_id; id++) {
		struct kern_ipc_perm *p = ipc_slot(ids, id);

		if (p && p->key == key)
			return id;
	}
	return -1;
}

/*
 * Figure 13: a larger array, published so that a concurrent ipc_lock()
 * sees either the old array with the old size or the new array with
 * either size, never the new size with the old array. ids->sem held.
 */
static int grow_ary(struct ipc_ids *ids, int newsize)
{
	struct ipc_id *new, *old;
	int i;

	if (newsize > IPCMNI)
		newsize = IPCMNI;
	if (newsize <= ids->size)
		return newsize;

	new = ipc_rcu_alloc(sizeof(struct ipc_id) * newsize);
	if (new == NULL)
		return ids->size;
	memcpy(new, ids->entries, sizeof(struct ipc_id) * ids->size);
	for (i = ids->size; i < newsize; i++)
		RCU_INIT_POINTER(new[i].p, NULL);
	old = ids->entries;
	i = ids->size;

	if (ipc_mode == IPC_MODE_GLOBAL) {
		/* 2.5.42: readers hold ary, so swap under it. */
		spin_lock(&ids->ary);
		ids->entries = new;
		ids->size = newsize;
		spin_unlock(&ids->ary);
	} else {
		smp_wmb();	/* the new array's slots before the pointer to it */
		WRITE_ONCE(ids->entries, new);
		smp_wmb();	/* the pointer before the size that admits its new slots */
		WRITE_ONCE(ids->size, newsize);
	}

	ipc_rcu_free(old, sizeof(struct ipc_id) * i);
	return ids->size;
}

/*
 * Lock a new object before anyone can find it (ipc_addid()'s return).
 * Like ipc_lock(), it returns holding one of two locks, which sparse's
 * context counting cannot follow: the count goes to the caller with
 * __lock_handoff() and ipc_unlock() takes it back (docs/rcu/checking.md).
 */
static void ipc_lock_new(struct ipc_ids *ids, struct kern_ipc_perm *new)
{
	if (ipc_mode == IPC_MODE_GLOBAL) {
		spin_lock(&ids->ary);
		__lock_handoff(&ids->ary);
	} else {
		rcu_read_lock();
		spin_lock(&new->lock);
		__lock_handoff(&new->lock);
	}
}

/*
 * Put new in a free slot of ids, whose objects number at most size.
 * Returns the slot (the index in its id) with new locked, as ipc_lock()
 * leaves it, or -1 if the table is full. ids->sem held.
 */
int ipc_addid(struct ipc_ids *ids, struct kern_ipc_perm *new, int size)
{
	int id, want;

	if (size > ids->limit)
		size = ids->limit;
	/* Departure 1: grow on demand, doubling, instead of once at boot. */
	if (ids->in_use >= ids->size && ids->size < size) {
		want = ids->size ? ids->size * 2 : 1;
		grow_ary(ids, want < size ? want : size);
	}
	for (id = 0; id < ids->size && id < size; id++)
		if (rcu_access_pointer(ids->entries[id].p) == NULL)
			goto found;
	return -1;
found:
	ids->in_use++;
	if (id > ids->max_id)
		ids->max_id = id;
	spin_lock_init(&new->lock, "kern_ipc_perm");
	new->deleted = 0;
	new->seq = ids->seq++;
	if (ids->seq > ids->seq_max)
		ids->seq = 0;
	ipc_lock_new(ids, new);
	/* The object's fields before the pointer that lets readers reach it. */
	rcu_assign_pointer(ids->entries[id].p, new);
	return id;
}

/*
 * Figure 10: take the object out of its slot and mark it deleted. Called
 * with the object locked (ipc_lock()) and ids->sem held; returns with the
 * lock still held. The caller frees it with ipc_rcu_free() once unlocked.
 */
struct kern_ipc_perm *ipc_rmid(struct ipc_ids *ids, int id)
{
	struct kern_ipc_perm *p;
	int lid = id % SEQ_MULTIPLIER;

	if (lid >= ids->size)
		panic("ipc_rmid: index %d outside the table (%d slots)", lid, ids->size);

	p = ipc_slot(ids, lid);
	RCU_INIT_POINTER(ids->entries[lid].p, NULL);
	if (p == NULL)
		panic("ipc_rmid: slot %d is empty", lid);
	ids->in_use--;

	if (lid == ids->max_id) {
		do {
			lid--;
			if (lid == -1)
				break;
		} while (rcu_access_pointer(ids->entries[lid].p) == NULL);
		ids->max_id = lid;
	}
	p->deleted = 1;	/* under p->lock: the next ipc_lock() of p fails */
	return p;
}

/* ---------------------------------------------------------------- readers */

static struct kern_ipc_perm *ipc_lock_global(struct ipc_ids *ids, int lid)
{
	struct kern_ipc_perm *out;

	spin_lock(&ids->ary);
	if (lid >= ids->size || (out = ipc_slot(ids, lid)) == NULL) {
		spin_unlock(&ids->ary);
		return NULL;
	}
	__lock_handoff(&ids->ary);	/* to the caller's ipc_unlock() */
	return out;
}

/*
 * Figure 11: look id up and lock its object, or NULL. On success the
 * caller holds the object's lock inside an RCU read-side critical section
 * (ipc=rcu) or ids->ary (ipc=global), and releases it with ipc_unlock().
 */
struct kern_ipc_perm *ipc_lock(struct ipc_ids *ids, int id)
{
	struct kern_ipc_perm *out;
	int lid = id % SEQ_MULTIPLIER;
	struct ipc_id *entries;

	if (id < 0)
		return NULL;			/* departure 2 */
	if (ipc_mode == IPC_MODE_GLOBAL)
		return ipc_lock_global(ids, lid);

	rcu_read_lock();
	entries = ipc_entries(ids, lid);	/* lines 9-16: bounds, smp_rmb() */
	if (entries == NULL) {
		rcu_read_unlock();
		return NULL;
	}
	out = rcu_dereference(entries[lid].p);
	if (out == NULL) {
		rcu_read_unlock();
		return NULL;
	}
	spin_lock(&out->lock);
	/* in case ipc_rmid() just freed ID */
	if (out->deleted) {
		spin_unlock(&out->lock);
		rcu_read_unlock();
		return NULL;
	}
	__lock_handoff(&out->lock);	/* to the caller's ipc_unlock() */
	return out;
}

void ipc_unlock(struct ipc_ids *ids, struct kern_ipc_perm *perm)
{
	if (ipc_mode == IPC_MODE_GLOBAL) {
		__lock_takeback(&ids->ary);
		spin_unlock(&ids->ary);
		return;
	}
	__lock_takeback(&perm->lock);
	spin_unlock(&perm->lock);
	rcu_read_unlock();
}

/* ---------------------------------------------------------------- permissions */

void ipc_cred(u32 *uid, u32 *gid)
{
	*uid = current_uid();
	*gid = current_gid();
}

int ipc_caller_pid(void)
{
	return current_tgid();
}

bool ipc_is_root(void)
{
	return capable(CAP_IPC_OWNER);
}

/*
 * Linux's ipcperms(): the owner's or creator's bits for them, the group's
 * for their group, the others' for everyone else; root is granted all.
 */
int ipcperms(struct kern_ipc_perm *ipcp, short flag)
{
	int requested = (flag >> 6) | (flag >> 3) | flag;
	int granted = ipcp->mode;
	u32 uid, gid;

	ipc_cred(&uid, &gid);
	if (uid == ipcp->cuid || uid == ipcp->uid)
		granted >>= 6;
	else if (gid == ipcp->cgid || gid == ipcp->gid)
		granted >>= 3;
	if ((requested & ~granted & 0007) && !capable(CAP_IPC_OWNER))
		return -1;
	return 0;
}

bool ipc_may_change(struct kern_ipc_perm *ipcp)
{
	u32 uid, gid;

	ipc_cred(&uid, &gid);
	return capable(CAP_SYS_ADMIN) || uid == ipcp->uid || uid == ipcp->cuid;
}

/*
 * From the TSC, not from jiffies as 2.5's CURRENT_TIME was: every semop()
 * stamps sem_otime, and jiffies' line is written by the tick, so each
 * CPU doing semop()s would fetch it again after every tick, the one line
 * ipc=rcu's semop() would otherwise share (make c2c CASE=semop). The TSC
 * costs a read of the cycle counter and a division, on no shared line.
 */
long ipc_time(void)
{
	long s = (long)(ktime_get_ns() / NSEC_PER_SEC);

	return s > 0 ? s : 1;	/* 0 means "never" in sem_otime */
}
