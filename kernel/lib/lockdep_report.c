/*
 * What the lock validator prints (docs/locking.md explains each report).
 *
 * Every report has the same shape: a "WARNING: <kind>" line between rules,
 * the task and CPU, the locks involved with the file:line of the lock call
 * that took each, the deadlock it foretells, the locks this task holds and
 * a backtrace. The first report turns the validator off: the state it
 * reasons from is suspect afterwards, and one clear report is worth more
 * than its echoes.
 */
#ifdef CONFIG_PROVE_LOCKING
#include <lockdep.h>
#include <sched.h>
#include <printk.h>
#include <string.h>
#include <arch/irq.h>
#include <kmalloc.h>
#include <panic.h>
#include "lockdep_internal.h"

static const char *const usage_name[NR_USAGE] = {
	[USED_IN_HARDIRQ] = "IN-HARDIRQ",
	[ENABLED_HARDIRQ] = "HARDIRQ-ON",
	[USED_IN_SOFTIRQ] = "IN-SOFTIRQ",
	[ENABLED_SOFTIRQ] = "SOFTIRQ-ON",
};

static const char *const usage_how[NR_USAGE] = {
	[USED_IN_HARDIRQ] = "in a hard-IRQ handler",
	[ENABLED_HARDIRQ] = "with interrupts enabled",
	[USED_IN_SOFTIRQ] = "in a softirq",
	[ENABLED_SOFTIRQ] = "with softirqs enabled",
};

static const char *site_file(const struct lock_site *s)
{
	return s ? s->file : "?";
}

static int site_line(const struct lock_site *s)
{
	return s ? s->line : 0;
}

static const char *class_name(unsigned int c)
{
	return lock_classes[c].name;
}

/* "name" or "name/1" for a nested subclass. */
static void print_class(const char *prefix, unsigned int c, const char *what,
			const struct lock_site *s)
{
	if (lock_classes[c].subclass)
		printk("lockdep: %s%s/%u %s %s:%d\n", prefix, class_name(c),
		       lock_classes[c].subclass, what, site_file(s), site_line(s));
	else
		printk("lockdep: %s%s %s %s:%d\n", prefix, class_name(c), what,
		       site_file(s), site_line(s));
}

void lockdep_print_held_locks(struct task *t)
{
	const struct lockdep_task *ld = &t->lockdep;
	int depth = READ_ONCE(ld->depth);
	static const char *const ctx[] = { "", " [softirq]", " [hardirq]" };

	if (depth > LOCKDEP_MAX_DEPTH)
		depth = LOCKDEP_MAX_DEPTH;
	if (!depth) {
		printk("lockdep: no locks held by %s/%d\n", t->name, t->pid);
		return;
	}
	printk("lockdep: %d lock%s held by %s/%d:\n", depth, depth == 1 ? "" : "s",
	       t->name, t->pid);
	for (int i = 0; i < depth; i++) {
		const struct held_lock *h = &ld->held[i];

		printk("lockdep:  #%d: %s%s taken at %s:%d%s%s\n", i, class_name(h->class_idx),
		       lock_classes[h->class_idx].subclass ? "/nested" : "",
		       site_file(h->site), site_line(h->site), ctx[h->irq_ctx],
		       h->trylock ? " (trylock)" : "");
	}
}

void lockdep_report_end(void)
{
	lockdep_print_held_locks(current);
	dump_stack();
	printk("lockdep: turning off the locking correctness validator.\n");
}

void report_circular(const struct held_lock *prev, unsigned int next,
		     const struct lock_site *site, const unsigned short *path, int len)
{
	unsigned int a = prev->class_idx;

	if (!lockdep_report_begin("possible circular locking dependency detected"))
		return;
	print_class("is trying to take ", next, "at", site);
	print_class("while holding ", a, "taken at", prev->site);
	printk("lockdep: the new order, %s -> %s, closes a cycle with one already seen.\n",
	       class_name(a), class_name(next));
	printk("lockdep: chain 1 (now): %s -> %s\n", class_name(a), class_name(next));
	print_class("    ", a, "held, taken at", prev->site);
	print_class("    ", next, "then taken at", site);
	char buf[256];
	int n = 0;

	for (int i = 0; i < len && n < (int)sizeof(buf); i++)
		n += snprintf(buf + n, sizeof(buf) - n, "%s%s", i ? " -> " : "",
			      class_name(path[i]));
	printk("lockdep: chain 2 (seen before): %s\n", buf);
	for (int i = 0; i + 1 < len; i++) {
		const struct lock_edge *e = lockdep_find_edge(path[i], path[i + 1]);

		print_class("    ", path[i], "held, taken at", e ? e->from_site : NULL);
		print_class("    ", path[i + 1], "then taken at", e ? e->to_site : NULL);
	}
	printk("lockdep: possible deadlock:\n");
	printk("lockdep:   CPU0: lock(%s); ... lock(%s);  waits for CPU1\n",
	       class_name(a), class_name(next));
	printk("lockdep:   CPU1: lock(%s); ... lock(%s);  waits for CPU0\n",
	       class_name(next), class_name(a));
	lockdep_report_end();
}

void report_recursive(const struct held_lock *prev, unsigned int next,
		      const struct lock_site *site)
{
	if (!lockdep_report_begin("possible recursive locking detected"))
		return;
	print_class("is trying to take ", next, "at", site);
	print_class("while already holding a lock of the same class, ", prev->class_idx,
		    "taken at", prev->site);
	printk("lockdep: possible deadlock: lock(%s); lock(%s);\n",
	       class_name(next), class_name(next));
	printk("lockdep: (two locks of one class taken in a fixed order: spin_lock_nested())\n");
	lockdep_report_end();
}

void report_usage(unsigned int c, enum lock_usage new, const struct lock_site *site)
{
	enum lock_usage old = new ^ 1;
	const struct lock_usage_at *at = &lock_classes[c].usage_at[old];
	bool hard = new <= ENABLED_HARDIRQ;

	if (!lockdep_report_begin("inconsistent lock state"))
		return;
	printk("lockdep: inconsistent {%s} -> {%s} usage of %s\n", usage_name[old],
	       usage_name[new], class_name(c));
	printk("lockdep: %s is taken %s\n", class_name(c), usage_how[new]);
	printk("lockdep:     at %s:%d\n", site_file(site), site_line(site));
	printk("lockdep: but it was taken %s by %s/%d on CPU %u\n", usage_how[old],
	       at->comm, at->pid, at->cpu);
	printk("lockdep:     at %s:%d\n", site_file(at->site), site_line(at->site));
	printk("lockdep: possible deadlock:\n");
	printk("lockdep:   CPU%u: lock(%s); <%s> lock(%s);  spins on itself\n",
	       smp_processor_id(), class_name(c), hard ? "Interrupt" : "Softirq",
	       class_name(c));
	lockdep_report_end();
}

void report_bad_unlock(struct lockdep_map *m, const struct lock_site *site)
{
	if (!lockdep_report_begin("bad unlock balance detected!"))
		return;
	printk("lockdep: is releasing %s (%p) at %s:%d\n", m->name ? m->name : "?", m,
	       site_file(site), site_line(site));
	printk("lockdep: but there are no more locks to release: this task does not hold it\n");
	lockdep_report_end();
}

void report_limit(const char *what, int limit, const char *option)
{
	if (!lockdep_report_begin("lock validator limit reached"))
		return;
	printk("lockdep: more than %d %s: raise %s\n", limit, what, option);
	lockdep_report_end();
}

/*
 * Not a warning that turns the validator off: the caller is about to
 * write into the lock, and the memory is not a lock any more. A panic
 * here names the site; returning would let spin_lock() corrupt the
 * object (or the allocator's free list) and fail somewhere else.
 */
void report_bad_map(const struct lockdep_map *m, unsigned int idx,
		    unsigned int nr_classes, const struct lock_site *site)
{
	const unsigned int freed = POISON_FREE | POISON_FREE << 8;

	if (idx == freed)
		panic("lockdep: lock at %p taken at %s:%d is in freed memory "
		      "(its class index reads %#x, kmalloc's free poison)",
		      m, site_file(site), site_line(site), idx);
	panic("lockdep: lock at %p taken at %s:%d is in corrupt memory "
	      "(its class index %#x is past the %u classes registered)",
	      m, site_file(site), site_line(site), idx, nr_classes);
}

void lockdep_assert_held_failed(const char *expr, const struct lock_site *site)
{
	if (!lockdep_report_begin("lockdep_assert_held() failed"))
		return;
	printk("lockdep: %s is not held by this task at %s:%d\n", expr,
	       site_file(site), site_line(site));
	lockdep_report_end();
}

void lockdep_assert_context_failed(const char *what, const char *why,
				   const struct lock_site *site)
{
	char title[64];

	snprintf(title, sizeof(title), "%s failed", what);
	if (!lockdep_report_begin(title))
		return;
	printk("lockdep: %s at %s:%d\n", why, site_file(site), site_line(site));
	lockdep_report_end();
}

/* The classes and the orders seen so far, for a student (ktest=lockdep_graph). */
void lockdep_print_graph(void)
{
	unsigned int classes = 0;

	for (unsigned int c = 1; c < CONFIG_LOCKDEP_CLASSES && lock_classes[c].key; c++)
		classes++;
	printk("lockdep: %u classes, %u orders%s\n", classes, nr_lock_edges,
	       debug_locks ? "" : " (validator off)");
	for (unsigned int i = 0; i < nr_lock_edges; i++) {
		const struct lock_edge *e = &lock_edges[i];

		printk("lockdep:   %s%s -> %s%s  (%s:%d, %s:%d)\n", class_name(e->from),
		       lock_classes[e->from].subclass ? "/nested" : "", class_name(e->to),
		       lock_classes[e->to].subclass ? "/nested" : "",
		       site_file(e->from_site), site_line(e->from_site),
		       site_file(e->to_site), site_line(e->to_site));
	}
}

#endif /* CONFIG_PROVE_LOCKING */
