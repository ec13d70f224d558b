/*
 * Lab 3's table (labs/lab3-rwlock-to-rcu/README.md): a small keyed table
 * that readers on every CPU search while one updater inserts, replaces and
 * deletes entries. kernel/labs/lab3_table.c implements it (first with a
 * reader-writer lock; the lab converts it to RCU after seed 001's
 * rwlock/RCU analogy, Tables 2 and 3); kernel/labs/lab3_table_test.c is the
 * stress test and the benchmark, which use only this interface.
 */
#ifndef _LAB3_TABLE_H
#define _LAB3_TABLE_H

#include <types.h>
#include <list.h>
#include <rcupdate.h>

#define LAB3_KEYS	32		/* keys are 0..LAB3_KEYS-1 */

/* One entry, as seed 001 Listing 3's struct el: never changed once it is
 * in the table (an update replaces it with a new one). */
struct lab3_entry {
	struct list_head list;
	struct rcu_head rcu;		/* for call_rcu()/kfree_rcu() once converted */
	unsigned long key;
	unsigned long value;
	unsigned long check;		/* lab3_check(key, value): the stress test verifies it */
};

static inline unsigned long lab3_check(unsigned long key, unsigned long value)
{
	return (key * 0x9e3779b97f4a7c15UL) ^ value ^ 0x5a5a5a5a5a5a5a5aUL;
}

/*
 * Find key and call visit(e, arg) on its entry while it is guaranteed to
 * stay valid (inside the read-side critical section); visit must not
 * sleep. Returns whether key was found. Called on every CPU at once.
 */
bool lab3_lookup(unsigned long key, void (*visit)(const struct lab3_entry *e, void *arg),
		 void *arg);
/* The updater's side (one updater at a time is not assumed: lock). */
int lab3_insert(unsigned long key, unsigned long value);	/* -EEXIST, -ENOMEM */
int lab3_update(unsigned long key, unsigned long value);	/* replace; -ENOENT, -ENOMEM */
int lab3_delete(unsigned long key);				/* -ENOENT */
/* Empty the table (the test's end; its rcu_barrier() then waits for deferred frees). */
void lab3_clear(void);

#endif
