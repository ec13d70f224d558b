/*
 * A planted mistake for Lab 3's grader (tests/test_grade.py), the
 * reference with one line changed: the insert links a new entry with
 * list_add(), a plain store of ->next, while readers load it with
 * list_for_each_entry_rcu(): nothing orders the entry's fields before
 * its publication; every stress passes on x86, KCSAN reports the plain
 * store against the marked load.
 */
/*
 * Lab 3's reference conversion (labs/instructor/lab3/; the grader's
 * --reference puts it in place of kernel/labs/lab3_table.c in a scratch
 * copy of the tree). The handed-out rwlock table, converted to RCU after
 * seed 001's analogy (Table 2, the transformations of Table 3):
 *   read_lock/read_unlock       -> rcu_read_lock/rcu_read_unlock
 *   write_lock/write_unlock     -> spin_lock/spin_unlock (updaters only)
 *   list_add, list_for_each     -> list_add_rcu, list_for_each_entry_rcu
 *   list_add + list_del (swap)  -> list_replace_rcu
 *   kfree after unlinking       -> kfree_rcu: after a grace period
 * Readers on every CPU now write no shared cache line.
 */
#include "lab3_table.h"
#include <spinlock.h>
#include <rculist.h>
#include <kmalloc.h>
#include <errno.h>

static LIST_HEAD(lab3_table);
static DEFINE_SPINLOCK(lab3_lock);	/* updaters only */

/* Call under rcu_read_lock() or with lab3_lock held. */
static struct lab3_entry *lab3_find(unsigned long key)
{
	struct lab3_entry *e;

	list_for_each_entry_rcu(e, &lab3_table, list, lockdep_is_held(&lab3_lock))
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

	rcu_read_lock();
	e = lab3_find(key);
	if (e)
		visit(e, arg);
	rcu_read_unlock();
	return e != NULL;
}

int lab3_insert(unsigned long key, unsigned long value)
{
	struct lab3_entry *e = lab3_alloc(key, value);

	if (!e)
		return -ENOMEM;
	spin_lock(&lab3_lock);
	if (lab3_find(key)) {
		spin_unlock(&lab3_lock);
		kfree(e);
		return -EEXIST;
	}
	list_add(&e->list, &lab3_table);
	spin_unlock(&lab3_lock);
	return 0;
}

/* Replace, never modify in place: a reader sees the old entry or the new. */
int lab3_update(unsigned long key, unsigned long value)
{
	struct lab3_entry *e = lab3_alloc(key, value), *old;

	if (!e)
		return -ENOMEM;
	spin_lock(&lab3_lock);
	old = lab3_find(key);
	if (!old) {
		spin_unlock(&lab3_lock);
		kfree(e);
		return -ENOENT;
	}
	list_replace_rcu(&old->list, &e->list);
	spin_unlock(&lab3_lock);
	kfree_rcu(old, rcu);		/* readers may still hold it */
	return 0;
}

int lab3_delete(unsigned long key)
{
	struct lab3_entry *e;

	spin_lock(&lab3_lock);
	e = lab3_find(key);
	if (e)
		list_del_rcu(&e->list);
	spin_unlock(&lab3_lock);
	if (!e)
		return -ENOENT;
	kfree_rcu(e, rcu);
	return 0;
}

void lab3_clear(void)
{
	struct lab3_entry *e, *n;

	spin_lock(&lab3_lock);
	list_for_each_entry_safe(e, n, &lab3_table, list) {
		list_del_rcu(&e->list);
		kfree_rcu(e, rcu);
	}
	spin_unlock(&lab3_lock);
}
