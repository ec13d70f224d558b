/*
 * The engine of seed 001's hash-lookup benchmarklet (Figures 1, 4, 5):
 * the table, each discipline's lookup and update, and the reader threads.
 * What the disciplines are, and why a miss is an error: hashlookup.h.
 *
 * Each discipline has its own copy of the reader loop (hl_loop() is
 * inlined with the discipline as a constant), so the measured loop holds
 * only that discipline's code, as the paper's per-primitive runs did.
 * Every 256 operations a reader reads the TSC and calls cond_resched():
 * a quiescent state for every RCU variant (as a NIC's softirq loop lets
 * its CPU pass one), without which no grace period could end while the
 * readers run and RCU's updates could never free anything. Every
 * discipline pays it alike.
 */
#include <ktest.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <panic.h>
#include <kmalloc.h>
#include <string.h>
#include <cmdline.h>
#include <brlock.h>
#include <rculist.h>
#include <arch/cpu.h>
#include <c2c_mark.h>
#include "hashlookup.h"

const char *const hl_name[HL_NR] = {
	[HL_IDEAL] = "ideal", [HL_RCU] = "rcu", [HL_BRLOCK] = "brlock",
	[HL_SPINLOCK] = "spinlock", [HL_REFCNT] = "refcnt", [HL_RWLOCK] = "rwlock",
};

#define OPS_PER_CHECK	256		/* operations between TSC reads and cond_resched() */
/*
 * A stretch of OPS_PER_CHECK operations that took more than GAP_FACTOR
 * times the fastest one was interrupted: by the host, which ran something
 * else on the virtual CPU's core (or on a lock holder's), or by the guest
 * itself (an interrupt, a switch at cond_resched()). The time beyond the
 * fastest stretch is counted as a gap and reported beside the rate, so a
 * reader can see how much of a cell the machine took away; it is not
 * subtracted from anything.
 */
#define GAP_FACTOR	8

unsigned long hl_quick;
CMDLINE_ULONG("hashlookup.quick", hl_quick, 0, 1,
	      "hashlookup.quick=1: short runs of bench_hashlookup and hashlookup_stress (default 0)");

static struct {
	struct hl_bucket *b;
	unsigned long nbuckets, nkeys;
} hl;
static struct brlock hl_br;		/* the brlock discipline's one lock */

/*
 * Under the coherence plugin (c2c=1) a cell is hashlookup.c2c_rounds
 * rounds of OPS_PER_CHECK operations per reader, the readers in step
 * between rounds (c2c_step_wait(), include/c2c_mark.h says why).
 */
static unsigned long hl_c2c_rounds = 100;
CMDLINE_ULONG("hashlookup.c2c_rounds", hl_c2c_rounds, 1, 100000,
	      "hashlookup.c2c_rounds=N: rounds of 256 operations a reader runs with c2c=1 (default 100)");
static struct c2c_step hl_step;

/* Per CPU: the reader's parameters and counts, and allocation counts
 * (allocs and frees by the reader thread; rcu_frees by RCU callbacks,
 * which may interrupt it, hence a counter of their own). */
struct hl_cpu {
	struct task *task;
	int disc;
	unsigned int update_permille, hold, c2c_id;
	u64 start, end, t0, cycles, gaps, seed;
	unsigned long ops, updates, nomem;
	long sum;			/* the data read: keeps the ideal loop honest */
	long allocs, frees;
	atomic_long_t rcu_frees;
} __cacheline_aligned;

static struct hl_cpu hl_cpu[CONFIG_NR_CPUS];

static inline u64 hl_rnd(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

long hl_live_elements(void)
{
	long n = 0;

	for (int i = 0; i < CONFIG_NR_CPUS; i++)
		n += hl_cpu[i].allocs - hl_cpu[i].frees - atomic_long_read(&hl_cpu[i].rcu_frees);
	return n;
}

static struct el *hl_el_alloc(long key, long data)
{
	struct el *e = kmalloc(sizeof(*e));

	if (!e)
		return NULL;
	e->key = key;
	e->data = data;
	e->check = ~key;
	atomic_set(&e->refcnt, 1);
	hl_cpu[smp_processor_id()].allocs++;
	return e;
}

static void hl_el_free(struct el *e)
{
	hl_cpu[smp_processor_id()].frees++;
	kfree(e);
}

static void hl_el_free_rcu(void *arg)
{
	atomic_long_inc(&hl_cpu[smp_processor_id()].rcu_frees);
	kfree(arg);
}

static void hl_el_put(struct el *e)
{
	if (atomic_dec_and_test(&e->refcnt))
		hl_el_free(e);
}

static __noinline __noreturn void hl_bad(int d, long key, const struct el *e)
{
	if (!e)
		panic("hashlookup: a %s reader on CPU %u missed key %ld, which is always in the "
		      "table: its chain led through a freed element", hl_name[d], smp_processor_id(),
		      key);
	panic("hashlookup: a %s reader on CPU %u found a freed element %p for key %ld "
	      "(it holds key %ld, check %lx: poisoned, or freed and reused)", hl_name[d],
	      smp_processor_id(), e, key, e->key, (unsigned long)e->check);
}

/* ---- the read side */

static __always_inline struct el *hl_find(struct hl_bucket *b, long key)
{
	struct el *e;

	list_for_each_entry(e, &b->chain, list)
		if (e->key == key)
			return e;
	return NULL;
}

static __always_inline struct el *hl_find_rcu(struct hl_bucket *b, long key)
{
	struct el *e;

	list_for_each_entry_rcu(e, &b->chain, list)
		if (e->key == key)
			return e;
	return NULL;
}

/* Use the element: its data, and (stress) linger on it checking it. */
static __always_inline long hl_use(int d, long key, struct el *e, unsigned int hold)
{
	if (unlikely(!e || e->check != ~key))
		hl_bad(d, key, e);
	for (unsigned int i = 0; i < hold; i++) {
		cpu_relax();
		if (READ_ONCE(e->check) != ~key)
			hl_bad(d, key, e);
	}
	return e->data;
}

static __always_inline long hl_lookup(struct hl_bucket *b, long key, const int d,
				      unsigned int hold)
{
	struct el *e;
	unsigned int c;
	long v;

	switch (d) {
	case HL_IDEAL:
		return hl_use(d, key, hl_find(b, key), hold);
	case HL_RCU:
		rcu_read_lock();
		v = hl_use(d, key, hl_find_rcu(b, key), hold);
		rcu_read_unlock();
		return v;
	case HL_BRLOCK:
		c = br_read_lock(&hl_br);
		v = hl_use(d, key, hl_find(b, key), hold);
		br_read_unlock(&hl_br, c);
		return v;
	case HL_SPINLOCK:
		spin_lock(&b->lock);
		v = hl_use(d, key, hl_find(b, key), hold);
		spin_unlock(&b->lock);
		return v;
	case HL_REFCNT:
		spin_lock(&b->lock);
		e = hl_find(b, key);
		if (e)
			atomic_inc(&e->refcnt);
		spin_unlock(&b->lock);
		v = hl_use(d, key, e, hold);	/* the reference alone keeps it */
		hl_el_put(e);
		return v;
	case HL_RWLOCK:
		read_lock(&b->rwlock);
		v = hl_use(d, key, hl_find(b, key), hold);
		read_unlock(&b->rwlock);
		return v;
	}
	return 0;
}

/* ---- the update side: replace key's element by a copy with data + 1 */

static __always_inline struct el *hl_replace(struct hl_bucket *b, long key, struct el *n, int d)
{
	struct el *old = hl_find(b, key);

	if (!old)
		hl_bad(d, key, NULL);
	n->data = old->data + 1;
	list_replace_rcu(&old->list, &n->list);	/* one store publishes it to RCU readers */
	return old;
}

static __always_inline void hl_update(struct hl_cpu *c, struct hl_bucket *b, long key, const int d)
{
	struct el *n = hl_el_alloc(key, 0), *old;

	if (!n) {
		c->nomem++;
		return;
	}
	switch (d) {
	case HL_RCU:
		spin_lock(&b->lock);
		old = hl_replace(b, key, n, d);
		spin_unlock(&b->lock);
		call_rcu(&old->my_rcu_head, hl_el_free_rcu, old);	/* readers may be on it */
		break;
	case HL_BRLOCK:
		br_write_lock(&hl_br);
		hl_el_free(hl_replace(b, key, n, d));
		br_write_unlock(&hl_br);
		break;
	case HL_SPINLOCK:
		spin_lock(&b->lock);
		hl_el_free(hl_replace(b, key, n, d));
		spin_unlock(&b->lock);
		break;
	case HL_REFCNT:
		spin_lock(&b->lock);
		old = hl_replace(b, key, n, d);
		spin_unlock(&b->lock);
		hl_el_put(old);		/* the table's reference; a reader's may outlive it */
		break;
	case HL_RWLOCK:
		write_lock(&b->rwlock);
		hl_el_free(hl_replace(b, key, n, d));
		write_unlock(&b->rwlock);
		break;
	default:			/* ideal: no updates (hl_run_cell refuses them) */
		hl_el_free(n);
	}
}

/* ---- the reader threads */

static __always_inline void hl_loop(struct hl_cpu *c, const int d)
{
	const u64 nkeys = hl.nkeys, mask = hl.nbuckets - 1;
	const unsigned int upd = c->update_permille, hold = c->hold;
	struct hl_bucket *tab = hl.b;
	unsigned long ops = 0, updates = 0, rounds = 0;
	u64 seed = c->seed, x, t;
	long sum = 0;

	u64 prev, fastest = ~0ULL, gaps = 0;

	/*
	 * Under the coherence plugin (c2c=1), one lookup of every key first,
	 * outside the marks: a line another CPU wrote in an earlier cell (the
	 * elements' counts after refcnt's) moves here once, which is that
	 * cell's history, not this discipline's cost per lookup.
	 */
	if (c2c_enabled)
		for (long k = 0; k < (long)nkeys; k++)
			sum += hl_lookup(&tab[k & mask], k, d, 0);
	while ((t = rdtsc()) < c->start)
		cpu_relax();
	c->t0 = prev = t;
	/* the plugin counts this CPU's accesses from here to the end mark */
	c2c_cell_begin(c->c2c_id, hl_name[d]);
	do {
		for (int i = 0; i < OPS_PER_CHECK; i++) {
			long key;

			x = hl_rnd(&seed);
			key = ((x & 0xffffffffULL) * nkeys) >> 32;
			if (upd && (((x >> 32) * 1000) >> 32) < upd) {
				hl_update(c, &tab[key & mask], key, d);
				updates++;
			} else {
				sum += hl_lookup(&tab[key & mask], key, d, hold);
			}
		}
		ops += OPS_PER_CHECK;
		cond_resched();
		if (c2c_enabled)
			c2c_step_wait(&hl_step, c->c2c_id);
		t = rdtsc();
		if (t - prev < fastest)
			fastest = t - prev;
		else if (t - prev > GAP_FACTOR * fastest)
			gaps += t - prev - fastest;
		prev = t;
	} while (c2c_enabled ? ++rounds < hl_c2c_rounds : t < c->end);
	c2c_cell_end(c->c2c_id);
	c->cycles = t - c->t0;
	c->gaps = gaps;
	c->ops = ops;
	c->updates = updates;
	c->sum = sum;
}

static __noinline void hl_loop_ideal(struct hl_cpu *c) { hl_loop(c, HL_IDEAL); }
static __noinline void hl_loop_rcu(struct hl_cpu *c) { hl_loop(c, HL_RCU); }
static __noinline void hl_loop_brlock(struct hl_cpu *c) { hl_loop(c, HL_BRLOCK); }
static __noinline void hl_loop_spinlock(struct hl_cpu *c) { hl_loop(c, HL_SPINLOCK); }
static __noinline void hl_loop_refcnt(struct hl_cpu *c) { hl_loop(c, HL_REFCNT); }
static __noinline void hl_loop_rwlock(struct hl_cpu *c) { hl_loop(c, HL_RWLOCK); }

static void (*const hl_loops[HL_NR])(struct hl_cpu *) = {
	[HL_IDEAL] = hl_loop_ideal, [HL_RCU] = hl_loop_rcu, [HL_BRLOCK] = hl_loop_brlock,
	[HL_SPINLOCK] = hl_loop_spinlock, [HL_REFCNT] = hl_loop_refcnt,
	[HL_RWLOCK] = hl_loop_rwlock,
};

static int hl_reader(void *arg)
{
	struct hl_cpu *c = arg;

	hl_loops[c->disc](c);
	return 0;
}

void hl_run_cell(struct hl_cell *cell)
{
	u64 start = rdtsc() + 5 * tsc_khz, span = cell->ms * tsc_khz, latest = start;
	u64 cycles = 0, gaps = 0;
	unsigned int cpu;

	cell->ops = cell->updates = cell->nomem = 0;
	cell->ops_per_s = cell->ps_per_op = 0;
	cell->threads = 0;
	cell->c2c_id = c2c_enabled ? c2c_cell_id() : 0;
	c2c_step_init(&hl_step, cell->ncpu);
	if (cell->disc == HL_IDEAL)
		cell->update_permille = 0;	/* unsynchronized updates would be a bug, not a figure */
	for (cpu = 0; cpu < cell->ncpu; cpu++) {
		struct hl_cpu *c = &hl_cpu[cpu];

		c->disc = cell->disc;
		c->update_permille = cell->update_permille;
		c->hold = cell->hold;
		c->c2c_id = cell->c2c_id;
		c->start = start;
		c->end = start + span;
		c->ops = c->updates = c->nomem = 0;
		c->cycles = c->gaps = 0;
		c->seed = (cpu + 1) * 0x9e3779b97f4a7c15ULL ^ start;
		c->task = kthread_create_on_cpu(hl_reader, c, cpu, "hashlookup/%u", cpu);
		if (c->task)
			wake_up_process(c->task);
	}
	for (cpu = 0; cpu < cell->ncpu; cpu++) {
		struct hl_cpu *c = &hl_cpu[cpu];

		if (!c->task)
			continue;
		kthread_join(c->task);
		c->task = NULL;
		if (!c->cycles)
			continue;
		cell->threads++;
		cell->ops += c->ops;
		cell->updates += c->updates;
		cell->nomem += c->nomem;
		/* each CPU's own rate, over its own interval: a late starter counts fairly */
		cell->ops_per_s += c->ops * tsc_khz * 1000 / c->cycles;
		cycles += c->cycles;
		gaps += c->gaps;
		if (c->t0 > latest)
			latest = c->t0;
	}
	if (cell->ops_per_s)
		cell->ps_per_op = 1000000000000ULL * cell->threads / cell->ops_per_s;
	cell->late_us = (latest - start) * 1000 / tsc_khz;
	cell->gaps_pct = cycles ? gaps * 100 / cycles : 0;
	if (cell->disc == HL_RCU && cell->updates)
		rcu_barrier();			/* this cell's frees are not the next one's */
}

int hl_table_init(unsigned long nbuckets, unsigned long chain)
{
	hl.b = kmalloc(sizeof(*hl.b) * nbuckets);
	if (!hl.b)
		return -1;
	hl.nbuckets = nbuckets;
	hl.nkeys = nbuckets * chain;
	brlock_init(&hl_br);
	for (unsigned long i = 0; i < nbuckets; i++) {
		spin_lock_init(&hl.b[i].lock, "hashlookup_bucket");
		rwlock_init(&hl.b[i].rwlock);
		INIT_LIST_HEAD(&hl.b[i].chain);
	}
	for (long k = 0; k < (long)hl.nkeys; k++) {
		struct el *e = hl_el_alloc(k, 0);

		if (!e) {
			hl_table_free();
			return -1;
		}
		list_add_tail(&e->list, &hl.b[k & (nbuckets - 1)].chain);
	}
	return 0;
}

void hl_table_free(void)
{
	rcu_barrier();
	for (unsigned long i = 0; hl.b && i < hl.nbuckets; i++) {
		struct el *e, *n;

		list_for_each_entry_safe(e, n, &hl.b[i].chain, list)
			hl_el_put(e);
	}
	kfree(hl.b);
	hl.b = NULL;
}
