/*
 * Lab 3's table, as handed out: one list of entries guarded by a
 * reader-writer lock (labs/lab3-rwlock-to-rcu/README.md). Readers on
 * every CPU take the lock for reading, so they all write its cache line:
 * seed 001 Figure 3 shows why that scales badly. Your job: convert it to
 * RCU with seed 001's analogy (Table 2: read_lock -> rcu_read_lock,
 * write_lock -> spin_lock, list_* -> list_*_rcu, kfree -> call_rcu or
 * kfree_rcu; Table 3 shows the transformation of each operation), so that
 * kernel/labs/lab3_table_test.c's stress test still passes on real RCU variants
 * and now fails on the busted one (configs/rcu_busted_defconfig), whose
 * grace periods end at once: proof that your readers rely on RCU.
 * Only this file changes; kernel/labs/lab3_table.h is the interface.
 */
#include "lab3_table.h"
#include <rwlock.h>
#include <rculist.h>
#include <kmalloc.h>
#include <errno.h>

static LIST_HEAD(lab3_table);
static DEFINE_RWLOCK(lab3_lock);

/* Call with lab3_lock held (either way). */
static struct lab3_entry *lab3_find(unsigned long key)
{
	struct lab3_entry *e;

	list_for_each_entry(e, &lab3_table, list)
		if (e->key == key)
			return e;
	return NULL;
}

static struct lab3_entry *lab3_alloc(unsigned long key, unsigned long value)
{
	struct lab3_entry *e = kmalloc(sizeof(*e));

	if (e) {
		e->key = key;
		e->value = value;
		e->check = lab3_check(key, value);
	}
	return e;
}

bool lab3_lookup(unsigned long key, void (*visit)(const struct lab3_entry *e, void *arg),
		 void *arg)
{
	struct lab3_entry *e;

	read_lock(&lab3_lock);
	e = lab3_find(key);
	if (e)
		visit(e, arg);
	read_unlock(&lab3_lock);
	return e != NULL;
}

int lab3_insert(unsigned long key, unsigned long value)
{
	struct lab3_entry *e = lab3_alloc(key, value);

	if (!e)
		return -ENOMEM;
	write_lock(&lab3_lock);
	if (lab3_find(key)) {
		write_unlock(&lab3_lock);
		kfree(e);
		return -EEXIST;
	}
	list_add(&e->list, &lab3_table);
	write_unlock(&lab3_lock);
	return 0;
}

/* Replace, never modify in place: a reader sees the old entry or the new. */
int lab3_update(unsigned long key, unsigned long value)
{
	struct lab3_entry *e = lab3_alloc(key, value), *old;

	if (!e)
		return -ENOMEM;
	write_lock(&lab3_lock);
	old = lab3_find(key);
	if (!old) {
		write_unlock(&lab3_lock);
		kfree(e);
		return -ENOENT;
	}
	list_add(&e->list, &old->list);
	list_del(&old->list);
	write_unlock(&lab3_lock);
	kfree(old);
	return 0;
}

int lab3_delete(unsigned long key)
{
	struct lab3_entry *e;

	write_lock(&lab3_lock);
	e = lab3_find(key);
	if (e)
		list_del(&e->list);
	write_unlock(&lab3_lock);
	if (!e)
		return -ENOENT;
	kfree(e);
	return 0;
}

void lab3_clear(void)
{
	struct lab3_entry *e, *n;
	LIST_HEAD(dead);

	write_lock(&lab3_lock);
	list_splice_init(&lab3_table, &dead);
	write_unlock(&lab3_lock);
	list_for_each_entry_safe(e, n, &dead, list)
		kfree(e);
}
