/*
 * The hash table of seed 001's benchmarklet (Figures 1, 4 and 5), shared
 * by the benchmark (bench_hashlookup.c) and its stress test
 * (test_hashlookup.c); the engine is hashlookup.c.
 *
 * A table of buckets, each a chain (a list_head) with its own locks; an
 * element is seed 001 Listing 3's struct el (list, key, data,
 * my_rcu_head). One reader thread pinned per CPU looks random integer
 * keys up for a fixed time under one discipline at a time:
 *
 *   ideal     no synchronization at all (only safe because nothing changes)
 *   rcu       rcu_read_lock(); list_for_each_entry_rcu(); rcu_read_unlock()
 *   brlock    the big-reader lock of Linux 2.4: one for the table, each
 *             reader takes its own CPU's rwlock
 *   spinlock  the bucket's spinlock
 *   refcnt    the bucket's spinlock, held only to take a reference on the
 *             element (an atomic count), dropped with another atomic
 *             after the element is used
 *   rwlock    the bucket's rwlock, read side
 *
 * An update (Figure 5) replaces an element by a copy with data + 1: the
 * bucket's spinlock (rcu, spinlock, refcnt), its rwlock's write side
 * (rwlock) or the brlock's write side (brlock, every CPU's lock). RCU
 * frees the old element after a grace period with call_rcu(); spinlock,
 * rwlock and brlock free it at once under the write lock (no reader can
 * be on it); refcnt drops the table's reference and the last holder frees.
 *
 * Every key is always in the table (an update replaces, never removes),
 * so a lookup that misses, or finds an element whose check word is not
 * ~key, met a freed element (kmalloc poisoning writes 0x6b over it): the
 * reader panics with "hashlookup:" and says so.
 */
#ifndef _TEST_HASHLOOKUP_H
#define _TEST_HASHLOOKUP_H

#include <types.h>
#include <list.h>
#include <rcupdate.h>
#include <atomic.h>
#include <spinlock.h>
#include <rwlock.h>

enum hl_discipline { HL_IDEAL, HL_RCU, HL_BRLOCK, HL_SPINLOCK, HL_REFCNT, HL_RWLOCK, HL_NR };
extern const char *const hl_name[HL_NR];

/* seed 001 Listing 3, with what the refcnt discipline and the checks need. */
struct el {
	struct list_head list;
	long key;
	long data;
	struct rcu_head my_rcu_head;
	atomic_t refcnt;		/* refcnt: the table's reference and readers' */
	long check;			/* ~key while the element is alive */
};

/* One chain and its locks. The rwlock (cache-line aligned) has a line of
 * its own; the spinlock shares the chain head's. */
struct hl_bucket {
	spinlock_t lock;
	struct list_head chain;
	rwlock_t rwlock;
} __cacheline_aligned;

/* One measurement: a discipline on CPUs 0 .. ncpu-1 for ms milliseconds. */
struct hl_cell {
	int disc;
	unsigned int ncpu;
	unsigned int update_permille;	/* operations that are updates, in 1/1000 */
	unsigned long ms;
	unsigned int hold;		/* stress: spins a reader holds each element */
	/* results */
	u64 ops_per_s;			/* lookups and updates, all CPUs */
	u64 ps_per_op;			/* per CPU, picoseconds */
	unsigned long ops, updates, nomem;
	unsigned int late_us;		/* the latest thread's start after the planned one */
	unsigned int gaps_pct;		/* of the threads' time, in interrupted stretches */
	unsigned int threads;		/* reader threads that ran */
	unsigned int c2c_id;		/* its number in the coherence plugin's marks (c2c=1) */
};

/* hashlookup.quick=1: short cells for the tests (make test, make figures QUICK=1). */
extern unsigned long hl_quick;

/* A table of nbuckets (a power of two) chains of chain elements: keys
 * 0 .. nbuckets * chain - 1, key k in bucket k & (nbuckets - 1). */
int hl_table_init(unsigned long nbuckets, unsigned long chain);
/* Wait for RCU's frees (rcu_barrier), then free every element. */
void hl_table_free(void);
/* Run one cell; fills in its results. */
void hl_run_cell(struct hl_cell *c);
/* Elements allocated and not yet freed (all CPUs). */
long hl_live_elements(void);

#endif
