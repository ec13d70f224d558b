/*
 * In-kernel tests of the ID table (util.c), one behaviour each, on tables
 * of their own (ktest=ipc_*; the RCU stress is stress.c):
 *
 *   ipc_ids_grow_keeps_entries   ipc_addid() grows the array (Figure 13)
 *                                and every earlier id still looks up
 *   ipc_ids_full                 a table at its limit refuses a new object
 *   ipc_ids_stale_id             an id whose slot was reused fails its
 *                                sequence-number check
 *   ipc_lock_sees_deleted        Figure 11's race: a reader that found the
 *                                object before ipc_rmid() sees it deleted
 *   ipc_rcu_free_waits           ipc_rcu_free() (Figure 12) frees only after
 *                                a grace period (rcu=rcu mode)
 */
#include "util.h"
#include <ktest.h>
#include <kmalloc.h>
#include <string.h>

struct test_obj {
	struct kern_ipc_perm perm;
	int id;
	unsigned long mark;
};

static struct test_obj *test_add(struct ipc_ids *ids, int key, int limit)
{
	struct test_obj *o = ipc_rcu_alloc(sizeof(*o));
	int lid;

	if (!o)
		return NULL;
	memset(o, 0, sizeof(*o));
	o->perm.key = key;
	down(&ids->sem);
	lid = ipc_addid(ids, &o->perm, limit);
	if (lid < 0) {
		up(&ids->sem);
		ipc_rcu_free(o, sizeof(*o));
		return NULL;
	}
	o->id = ipc_buildid(ids, lid, o->perm.seq);
	ipc_unlock(ids, &o->perm);
	up(&ids->sem);
	return o;
}

static void test_remove(struct ipc_ids *ids, struct test_obj *o)
{
	struct kern_ipc_perm *p;

	down(&ids->sem);
	p = ipc_lock(ids, o->id);
	ipc_rmid(ids, o->id);
	ipc_unlock(ids, p);
	up(&ids->sem);
	ipc_rcu_free(o, sizeof(*o));
}

/* The object id names, if its sequence number matches; unlocked again. */
static struct test_obj *test_lookup(struct ipc_ids *ids, int id)
{
	struct kern_ipc_perm *p = ipc_lock(ids, id);
	bool stale;

	if (!p)
		return NULL;
	stale = ipc_checkid(ids, p, id);
	ipc_unlock(ids, p);
	return stale ? NULL : (struct test_obj *)p;
}

KTEST(ipc_ids_grow_keeps_entries)
{
	struct ipc_ids ids;
	struct test_obj *o[20];
	int sizes = 0, last = 0;

	ipc_init_ids(&ids, 64, 1, "test_ids.ary");
	for (int i = 0; i < 20; i++) {
		o[i] = test_add(&ids, 100 + i, 64);
		KT_ASSERT(t, o[i], "add %d", i);
		if (ids.size != last)
			sizes++;
		last = ids.size;
		for (int j = 0; j <= i; j++)
			KT_EXPECT(t, test_lookup(&ids, o[j]->id) == o[j], "id %d after %d adds",
				  o[j]->id, i + 1);
	}
	KT_EXPECT(t, ids.size == 32 && sizes == 6, "size %d after %d sizes (1, 2, 4, 8, 16, 32)",
		  ids.size, sizes);
	down(&ids.sem);			/* ipc_findkey() is an updater */
	KT_EXPECT(t, ipc_findkey(&ids, 107) == o[7]->id % SEQ_MULTIPLIER, "findkey");
	up(&ids.sem);
	KT_EXPECT(t, ids.in_use == 20 && ids.max_id == 19, "in_use %d max_id %d", ids.in_use,
		  ids.max_id);
	for (int i = 0; i < 20; i++)
		test_remove(&ids, o[i]);
	KT_EXPECT(t, ids.in_use == 0 && ids.max_id == -1, "in_use %d max_id %d", ids.in_use,
		  ids.max_id);
	ipc_destroy_ids(&ids);
	rcu_barrier();
}

KTEST(ipc_ids_full)
{
	struct ipc_ids ids;
	struct test_obj *o[4];

	ipc_init_ids(&ids, 4, 1, "test_ids.ary");
	for (int i = 0; i < 4; i++)
		KT_ASSERT(t, (o[i] = test_add(&ids, i + 1, 4)) != NULL, "add %d", i);
	KT_EXPECT(t, test_add(&ids, 9, 4) == NULL, "a fifth object in a table of four");
	test_remove(&ids, o[2]);
	o[2] = test_add(&ids, 10, 4);
	KT_EXPECT(t, o[2] && o[2]->id % SEQ_MULTIPLIER == 2, "the freed slot is reused");
	for (int i = 0; i < 4; i++)
		if (o[i])
			test_remove(&ids, o[i]);
	ipc_destroy_ids(&ids);
	rcu_barrier();
}

KTEST(ipc_ids_stale_id)
{
	struct ipc_ids ids;
	struct test_obj *a, *b;
	int old;

	ipc_init_ids(&ids, 8, 1, "test_ids.ary");
	a = test_add(&ids, 1, 8);
	KT_ASSERT(t, a, "add");
	old = a->id;
	test_remove(&ids, a);
	KT_EXPECT(t, test_lookup(&ids, old) == NULL, "a removed id");
	b = test_add(&ids, 2, 8);
	KT_ASSERT(t, b, "add again");
	KT_EXPECT(t, b->id % SEQ_MULTIPLIER == old % SEQ_MULTIPLIER && b->id != old,
		  "same slot, new sequence number: %d, %d", old, b->id);
	KT_EXPECT(t, test_lookup(&ids, old) == NULL, "the stale id %d fails", old);
	KT_EXPECT(t, test_lookup(&ids, b->id) == b, "the new id works");
	KT_EXPECT(t, ipc_lock(&ids, -1) == NULL, "a negative id");
	KT_EXPECT(t, ipc_lock(&ids, 7) == NULL, "a slot past the size");
	test_remove(&ids, b);
	ipc_destroy_ids(&ids);
	rcu_barrier();
}

/*
 * The race of Figure 11 lines 23-28, played on one CPU: a reader picks up
 * the object, ipc_rmid() takes it away (and ipc_rcu_free() queues it),
 * then the reader takes the lock and must see it deleted. The grace
 * period keeps the memory valid until the reader leaves its section.
 */
KTEST(ipc_lock_sees_deleted)
{
	struct ipc_ids ids;
	struct test_obj *o;
	struct kern_ipc_perm *p, *q;
	int deleted;

	if (ipc_mode != IPC_MODE_RCU) {
		ktest_skip(t, "ipc=global: no lock-free lookup to race with");
		return;
	}
	ipc_init_ids(&ids, 8, 1, "test_ids.ary");
	o = test_add(&ids, 1, 8);
	KT_ASSERT(t, o, "add");
	o->mark = 0x600d;
	down(&ids.sem);
	rcu_read_lock();
	p = rcu_dereference(ipc_entries(&ids, o->id % SEQ_MULTIPLIER)[o->id % SEQ_MULTIPLIER].p);

	q = ipc_lock(&ids, o->id);		/* the remover */
	ipc_rmid(&ids, o->id);
	ipc_unlock(&ids, q);
	ipc_rcu_free(o, sizeof(*o));

	spin_lock(&p->lock);			/* the reader goes on */
	deleted = p->deleted;
	spin_unlock(&p->lock);
	KT_EXPECT(t, ((struct test_obj *)p)->mark == 0x600d, "the object is still there");
	rcu_read_unlock();
	up(&ids.sem);
	KT_EXPECT(t, deleted == 1, "deleted %d", deleted);
	KT_EXPECT(t, ipc_lock(&ids, o->id) == NULL, "a later ipc_lock() does not find it");
	ipc_destroy_ids(&ids);
	rcu_barrier();
}

KTEST(ipc_rcu_free_waits)
{
	unsigned long *x;
	long before = ipc_rcu_pending_count();

	if (ipc_mode != IPC_MODE_RCU) {
		ktest_skip(t, "ipc=global frees at once");
		return;
	}
	x = ipc_rcu_alloc(64);
	KT_ASSERT(t, x, "ipc_rcu_alloc");
	*x = 42;
	rcu_read_lock();
	ipc_rcu_free(x, 64);
	KT_EXPECT(t, ipc_rcu_pending_count() == before + 1, "pending %ld", ipc_rcu_pending_count());
	KT_EXPECT(t, *x == 42, "still readable inside the read-side section");
	rcu_read_unlock();
	rcu_barrier();
	KT_EXPECT(t, ipc_rcu_pending_count() == before, "pending %ld after rcu_barrier()",
		  ipc_rcu_pending_count());
}
