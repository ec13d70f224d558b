/*
 * The lock validator (include/lockdep.h, docs/locking.md): classes, the
 * held-lock stack, the order graph and the interrupt-safety rules. What it
 * prints lives in lockdep_report.c.
 *
 * Linux's kernel/locking/lockdep.c is the model; this one keeps its core
 * and drops what a kernel of a few hundred lock classes does not need:
 *
 *  - The graph is a bit matrix of classes (dep[a] has bit b when a was held
 *    while b was taken) beside a list of the first sites of each order. A
 *    lock call whose order is already known tests one bit without any lock;
 *    only a new order takes graph_lock and searches for a cycle. That bit
 *    plays the part of Linux's chain cache.
 *  - Only the nearest held lock of the same interrupt context that was
 *    taken blocking gives an order, with every trylocked lock above it
 *    (A, B held, C taken: B -> C; A -> C follows through A -> B. A,
 *    trylock B, C: B -> C and A -> C, as in Linux's check_prevs_add()).
 *  - Read locks are checked as write locks (rwlock.h says why).
 *  - Interrupt state is read at each lock call, not traced at every
 *    local_irq_enable(): a lock taken with interrupts off and kept while
 *    they are turned back on is not seen as "taken with interrupts on".
 *
 * Memory is static and sized by CONFIG_LOCKDEP_CLASSES and
 * CONFIG_LOCKDEP_EDGES: the validator runs inside kmalloc's own locks, so
 * it may never allocate.
 */
#ifdef CONFIG_PROVE_LOCKING
#include <lockdep.h>
#include <spinlock.h>
#include <sched.h>
#include <string.h>
#include <printk.h>
#include "lockdep_internal.h"

int debug_locks = 1;

struct lock_class lock_classes[MAX_CLASSES];	/* [0] unused: 0 means "none" */
static unsigned int nr_classes = 1;
struct lock_edge lock_edges[MAX_EDGES];
unsigned int nr_lock_edges;

#define ROW_WORDS	((MAX_CLASSES + 63) / 64)
static u64 dep[MAX_CLASSES][ROW_WORDS];

/* Lookup of a class by (key, subclass): open addressing, twice as big. */
#define HASH_SIZE	(2 * MAX_CLASSES)
static unsigned short class_hash[HASH_SIZE];

/*
 * Protects the classes, the graph and the usage bits. A raw lock, taken
 * with interrupts off and never itself validated; lockdep_recursion keeps
 * the validator out of the locks its own reports take.
 */
static spinlock_t graph_lock = SPINLOCK_INIT("lockdep_graph_lock");
static int lockdep_recursion[CONFIG_NR_CPUS];

extern char _kernel_start[], _kernel_end[];

static bool dep_test(unsigned int a, unsigned int b)
{
	return READ_ONCE(dep[a][b / 64]) & (1ULL << (b % 64));
}

static void dep_set(unsigned int a, unsigned int b)
{
	WRITE_ONCE(dep[a][b / 64], dep[a][b / 64] | (1ULL << (b % 64)));
}

const struct lock_edge *lockdep_find_edge(unsigned int from, unsigned int to)
{
	for (unsigned int i = 0; i < nr_lock_edges; i++)
		if (lock_edges[i].from == from && lock_edges[i].to == to)
			return &lock_edges[i];
	return NULL;
}

void lockdep_init_map(struct lockdep_map *m, const char *name,
		      const struct lock_class_key *key)
{
	m->key = key;
	m->name = name;
	memset(m->class_idx, 0, sizeof(m->class_idx));
}

/*
 * A statically initialised lock is its own class, keyed by its address.
 * A lock outside the kernel image (in a module, or copied into allocated
 * memory from an initialiser) is keyed by its name instead, a string that
 * lives as long as the code that named it.
 */
static const void *map_key(const struct lockdep_map *m)
{
	if (m->key)
		return m->key;
	if ((char *)m >= _kernel_start && (char *)m < _kernel_end)
		return m;
	return m->name;
}

static unsigned int hash_slot(const void *key, unsigned int sub)
{
	u64 h = ((unsigned long)key >> 3) * 0x9E3779B97F4A7C15ULL + sub;
	return (h >> 32) % HASH_SIZE;
}

/* graph_lock held. 0 when the table is full (reported). */
static unsigned int register_class(const struct lockdep_map *m, unsigned int sub)
{
	const void *key = map_key(m);
	unsigned int slot = hash_slot(key, sub);

	for (;; slot = (slot + 1) % HASH_SIZE) {
		unsigned int c = class_hash[slot];

		if (!c)
			break;
		if (lock_classes[c].key == key && lock_classes[c].subclass == sub)
			return c;
	}
	if (nr_classes >= MAX_CLASSES)
		return 0;
	unsigned int c = nr_classes;

	WRITE_ONCE(nr_classes, c + 1);
	lock_classes[c].key = key;
	lock_classes[c].name = m->name ? m->name : "(unnamed)";
	lock_classes[c].subclass = sub;
	class_hash[slot] = c;
	return c;
}

static unsigned int class_of(struct lockdep_map *m, unsigned int sub,
			     const struct lock_site *site)
{
	unsigned int c = READ_ONCE(m->class_idx[sub]);
	unsigned int nr;

	/*
	 * An index is published (below) only after register_class() counted
	 * it, under graph_lock: seeing the index, the read of the count that
	 * follows it sees that count or a later one.
	 */
	smp_rmb();
	nr = READ_ONCE(nr_classes);
	if (unlikely(c >= nr))
		report_bad_map(m, c, nr, site);
	if (likely(c))
		return c;
	arch_spin_lock(&graph_lock);
	c = register_class(m, sub);
	arch_spin_unlock(&graph_lock);
	if (!c) {
		report_limit("lock classes", MAX_CLASSES, "CONFIG_LOCKDEP_CLASSES");
		return 0;
	}
	WRITE_ONCE(m->class_idx[sub], c);
	return c;
}

/* 2: hard IRQ, 1: softirq, 0: task. Orders are only drawn within one. */
static unsigned int irq_context(void)
{
	if (in_irq())
		return 2;
	return in_serving_softirq() ? 1 : 0;
}

bool lockdep_softirqs_can_run(void)
{
	return !irqs_disabled() && !in_softirq() && !in_irq();
}

/*
 * Breadth-first search for a path from `from` to `to` in the order graph
 * (graph_lock held). On success path[0..len) holds the classes from `from`
 * to `to`.
 */
static unsigned short bfs_parent[MAX_CLASSES];
static unsigned short bfs_queue[MAX_CLASSES];

static int find_path(unsigned int from, unsigned int to, unsigned short *path, int max)
{
	unsigned int head = 0, tail = 0;

	memset(bfs_parent, 0, sizeof(bfs_parent));
	bfs_parent[from] = from;
	bfs_queue[tail++] = from;
	while (head < tail) {
		unsigned int u = bfs_queue[head++];

		for (unsigned int w = 0; w < ROW_WORDS; w++) {
			u64 bits = dep[u][w];

			while (bits) {
				unsigned int v = w * 64 + __builtin_ctzll(bits);

				bits &= bits - 1;
				if (bfs_parent[v])
					continue;
				bfs_parent[v] = u;
				if (v == to)
					goto found;
				bfs_queue[tail++] = v;
			}
		}
	}
	return 0;
found:;
	int len = 0;
	unsigned short rev[MAX_CLASSES < 64 ? MAX_CLASSES : 64];

	for (unsigned int v = to; len < (int)ARRAY_SIZE(rev); v = bfs_parent[v]) {
		rev[len++] = v;
		if (v == from)
			break;
	}
	if (len > max)
		len = max;
	for (int i = 0; i < len; i++)
		path[i] = rev[len - 1 - i];
	return len;
}

/* prev is held, next is being taken at site: record prev -> next. */
static bool add_order(const struct held_lock *prev, unsigned int next,
		      const struct lock_site *site)
{
	unsigned short path[16];
	int len;

	if (likely(dep_test(prev->class_idx, next)))
		return true;
	arch_spin_lock(&graph_lock);
	if (dep_test(prev->class_idx, next)) {
		arch_spin_unlock(&graph_lock);
		return true;
	}
	len = find_path(next, prev->class_idx, path, ARRAY_SIZE(path));
	if (len) {
		arch_spin_unlock(&graph_lock);
		report_circular(prev, next, site, path, len);
		return false;
	}
	dep_set(prev->class_idx, next);
	if (nr_lock_edges < MAX_EDGES) {
		struct lock_edge *e = &lock_edges[nr_lock_edges++];

		e->from = prev->class_idx;
		e->to = next;
		e->from_site = prev->site;
		e->to_site = site;
	}
	arch_spin_unlock(&graph_lock);
	return true;
}

/* Record one usage bit; false after a report. */
static bool mark_usage(unsigned int c, enum lock_usage u, const struct lock_site *site)
{
	struct lock_class *cls = &lock_classes[c];

	if (likely(READ_ONCE(cls->usage) & (1U << u)))
		return true;
	arch_spin_lock(&graph_lock);
	if (cls->usage & (1U << (u ^ 1))) {
		arch_spin_unlock(&graph_lock);
		report_usage(c, u, site);
		return false;
	}
	if (!(cls->usage & (1U << u))) {
		struct lock_usage_at *at = &cls->usage_at[u];

		at->site = site;
		strlcpy(at->comm, current->name, sizeof(at->comm));
		at->pid = current->pid;
		at->cpu = smp_processor_id();
		WRITE_ONCE(cls->usage, cls->usage | (1U << u));
	}
	arch_spin_unlock(&graph_lock);
	return true;
}

static bool check_usage(unsigned int c, unsigned int ctx, bool irqs_on, bool trylock,
			const struct lock_site *site)
{
	/* A failed trylock cannot wait, so only a blocking take counts as "used in". */
	if (ctx == 2 && !trylock && !mark_usage(c, USED_IN_HARDIRQ, site))
		return false;
	if (ctx == 1 && !trylock && !mark_usage(c, USED_IN_SOFTIRQ, site))
		return false;
	if (irqs_on && ctx != 2 && !mark_usage(c, ENABLED_HARDIRQ, site))
		return false;
	if (irqs_on && ctx == 0 && !in_softirq() && !mark_usage(c, ENABLED_SOFTIRQ, site))
		return false;
	return true;
}

static void __lock_acquire(struct lockdep_map *m, unsigned int sub, bool trylock,
			   const struct lock_site *site, bool irqs_on)
{
	struct lockdep_task *ld = &current->lockdep;
	unsigned int ctx = irq_context();
	unsigned int c;

	if (sub >= LOCKDEP_MAX_SUBCLASSES)
		sub = LOCKDEP_MAX_SUBCLASSES - 1;
	c = class_of(m, sub, site);
	if (!c)
		return;
	if (ld->depth >= LOCKDEP_MAX_DEPTH) {
		report_limit("held locks", LOCKDEP_MAX_DEPTH, "LOCKDEP_MAX_DEPTH");
		return;
	}
	for (int i = ld->depth - 1; i >= 0 && !trylock; i--) {
		const struct held_lock *h = &ld->held[i];

		if (h->irq_ctx != ctx)
			break;
		if (h->class_idx == c) {
			report_recursive(h, c, site);
			return;
		}
	}
	if (!check_usage(c, ctx, irqs_on, trylock, site))
		return;
	/*
	 * A blocking take orders every held lock down to the nearest one
	 * that was itself taken blocking: that one recorded its own orders
	 * from the locks below it, so the graph reaches them through it. A
	 * trylocked lock recorded none (it could not wait), so a lock under
	 * it would otherwise never be ordered before this one: A, trylock B,
	 * C must give A -> C as well as B -> C. A trylock records nothing:
	 * it cannot wait, so it cannot close a deadlock.
	 */
	for (int i = ld->depth - 1; i >= 0 && !trylock; i--) {
		const struct held_lock *prev = &ld->held[i];

		if (prev->irq_ctx != ctx)
			break;
		if (!add_order(prev, c, site))
			return;
		if (!prev->trylock)
			break;
	}
	struct held_lock *h = &ld->held[ld->depth];

	h->map = m;
	h->site = site;
	h->class_idx = c;
	h->irq_ctx = ctx;
	h->trylock = trylock;
	ld->depth++;
}

/*
 * Every hook runs with interrupts off (the held-lock stack is the
 * interrupted task's too) and not at all in an NMI, before the scheduler
 * has a current task, or inside the validator itself.
 */
#define LOCKDEP_ENTER(flags)						\
	unsigned long flags;						\
	if (!READ_ONCE(debug_locks) || in_nmi() || !current)		\
		return;							\
	flags = local_irq_save();					\
	if (lockdep_recursion[smp_processor_id()]++)			\
		goto out

#define LOCKDEP_EXIT(flags)						\
out:									\
	lockdep_recursion[smp_processor_id()]--;			\
	local_irq_restore(flags)

void lock_acquire(struct lockdep_map *m, unsigned int subclass, bool trylock,
		  const struct lock_site *site)
{
	bool irqs_on = !irqs_disabled();
	LOCKDEP_ENTER(flags);
	__lock_acquire(m, subclass, trylock, site, irqs_on);
	LOCKDEP_EXIT(flags);
}

static int find_held(const struct lockdep_task *ld, const struct lockdep_map *m)
{
	for (int i = ld->depth - 1; i >= 0; i--)
		if (ld->held[i].map == m)
			return i;
	return -1;
}

static void remove_held(struct lockdep_task *ld, int i)
{
	ld->depth--;
	memmove(&ld->held[i], &ld->held[i + 1], (ld->depth - i) * sizeof(ld->held[0]));
}

void lock_release(struct lockdep_map *m, const struct lock_site *site)
{
	LOCKDEP_ENTER(flags);
	struct lockdep_task *ld = &current->lockdep;
	int i = find_held(ld, m);

	if (i < 0)
		report_bad_unlock(m, site);
	else
		remove_held(ld, i);
	LOCKDEP_EXIT(flags);
}

bool lock_is_held(const struct lockdep_map *m)
{
	unsigned long flags;
	bool held;

	if (!READ_ONCE(debug_locks) || !current)
		return true;	/* no longer tracked: do not cry wolf */
	flags = local_irq_save();
	held = find_held(&current->lockdep, m) >= 0;
	local_irq_restore(flags);
	return held;
}

void lockdep_handoff(struct lockdep_map *m, struct task *from, struct task *to)
{
	LOCKDEP_ENTER(flags);
	struct lockdep_task *src = &from->lockdep, *dst = &to->lockdep;
	int i = find_held(src, m);

	if (i >= 0 && dst->depth < LOCKDEP_MAX_DEPTH) {
		dst->held[dst->depth++] = src->held[i];
		remove_held(src, i);
	}
	LOCKDEP_EXIT(flags);
}

/* ---- reports need the graph lock's protection only briefly ---- */

bool lockdep_report_begin(const char *title)
{
	bool first;

	arch_spin_lock(&graph_lock);
	first = debug_locks;
	WRITE_ONCE(debug_locks, 0);
	arch_spin_unlock(&graph_lock);
	if (!first)
		return false;
	printk("\n");
	printk("======================================================\n");
	printk("WARNING: %s\n", title);
	printk("------------------------------------------------------\n");
	printk("lockdep: task %s/%d on CPU %u, preempt_count %#x\n",
	       current->name, current->pid, smp_processor_id(), preempt_count());
	return true;
}

#endif /* CONFIG_PROVE_LOCKING */
