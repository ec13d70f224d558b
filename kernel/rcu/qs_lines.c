/*
 * Counting the cache lines each quiescent-state report writes
 * (qs_lines.h says what is marked and why; docs/rcu/qs-lines.md what each
 * design writes). Off by default; bench_qs_lines and the rcu_qs_lines
 * test switch it on with qs_lines_enable() (include/rcu_test.h).
 *
 * Each CPU keeps the distinct lines marked since its last report, and its
 * own totals; only that CPU touches them, with interrupts off (marks come
 * from the tick, softirqs and tasks). Switching on bumps a generation;
 * a CPU that sees a newer one starts its set and totals afresh, so no
 * CPU's data is ever cleared from another.
 */
#include "qs_lines.h"
#include <percpu.h>
#include <smp.h>
#include <arch/cpu.h>
#include <rcu_test.h>
#include <spinlock.h>
#include "rcu_internal.h"

#define QS_LINE_SHIFT	6		/* 64-byte lines */
#define QS_LINES_SET	32		/* distinct lines one report may write */

struct qs_lines_cpu {
	unsigned long gen;
	unsigned int n;			/* lines in the open set */
	unsigned long line[QS_LINES_SET];
	bool shared[QS_LINES_SET];
	struct qs_lines_totals tot;
};

int qs_lines_on;
static unsigned long qs_lines_gen;
static DEFINE_PER_CPU(struct qs_lines_cpu, qs_lines_cpu);

/*
 * Every shared line written while counting, with the CPUs that wrote it
 * in the current grace period: how many CPUs write one line in one grace
 * period is what sets a design's scaling (rcu-ltimer's mask: all of
 * them; a Tree RCU node's: its children's last reporters and the
 * kthread). When a grace period has moved on, the line's count for the
 * last one is kept if it is the largest yet. The lock is the bare
 * arch_spin_lock(): taken innermost, with interrupts off, inside the
 * variants' own locks, so lockdep need not learn an order for it.
 */
#define QS_SHARED_SLOTS	64

static struct qs_shared_line {
	unsigned long line;
	unsigned long gp;		/* the grace period writers is for */
	unsigned long writers;		/* a bit per CPU (NR_CPUS <= 64) */
	unsigned long all_writers;	/* since counting was switched on */
	unsigned long reports;		/* reports that wrote it */
	bool shared;
} qs_shared[QS_SHARED_SLOTS];
static unsigned int qs_shared_n;
static unsigned long qs_shared_max_writers;
static spinlock_t qs_shared_lock = SPINLOCK_INIT("qs_shared_lock");

_Static_assert(CONFIG_NR_CPUS <= 64, "one bit per CPU in an unsigned long");

static unsigned long qs_popcount(unsigned long w)
{
	unsigned long n = 0;

	for (; w; w &= w - 1)
		n++;
	return n;
}

/* qs_shared_lock held. */
static void qs_shared_fold(struct qs_shared_line *l)
{
	unsigned long n = qs_popcount(l->writers);

	if (n > qs_shared_max_writers)
		qs_shared_max_writers = n;
}

/* Interrupts off. Private lines are kept too, for qs_lines_line(). */
static void qs_shared_writer(unsigned long line, unsigned int cpu, unsigned long gp, bool shared)
{
	struct qs_shared_line *l = NULL;

	arch_spin_lock(&qs_shared_lock);
	for (unsigned int i = 0; i < qs_shared_n; i++) {
		if (qs_shared[i].line == line) {
			l = &qs_shared[i];
			break;
		}
	}
	if (!l && qs_shared_n < QS_SHARED_SLOTS) {
		l = &qs_shared[qs_shared_n++];
		*l = (struct qs_shared_line){ .line = line, .gp = gp };
	}
	if (l) {
		l->reports++;
		l->all_writers |= 1UL << cpu;
		l->shared |= shared;
		if (!shared)
			goto unlock;
		if (l->gp != gp) {
			qs_shared_fold(l);
			l->gp = gp;
			l->writers = 0;
		}
		l->writers |= 1UL << cpu;
	}
unlock:
	arch_spin_unlock(&qs_shared_lock);
}

/* This CPU's record, started afresh if counting was switched on since. */
static struct qs_lines_cpu *qs_lines_mine(void)
{
	struct qs_lines_cpu *c = this_cpu_ptr(&qs_lines_cpu);
	unsigned long gen = READ_ONCE(qs_lines_gen);

	if (c->gen != gen) {
		c->gen = gen;
		c->n = 0;
		c->tot = (struct qs_lines_totals){ 0 };
	}
	return c;
}

void qs_lines_note(const volatile void *addr, bool shared)
{
	unsigned long line = (unsigned long)addr >> QS_LINE_SHIFT;
	unsigned long flags = local_irq_save();
	struct qs_lines_cpu *c = qs_lines_mine();
	unsigned int i;

	for (i = 0; i < c->n; i++) {
		if (c->line[i] == line) {
			c->shared[i] |= shared;	/* a line another CPU writes is shared */
			goto out;
		}
	}
	if (c->n < QS_LINES_SET) {
		c->line[c->n] = line;
		c->shared[c->n] = shared;
		c->n++;
	} else {
		c->tot.overflows++;
	}
out:
	local_irq_restore(flags);
}

void qs_lines_report(unsigned int nr_qs)
{
	unsigned long flags = local_irq_save();
	struct qs_lines_cpu *c = qs_lines_mine();
	unsigned long priv = 0, shared = 0;
	unsigned int i;

	for (i = 0; i < c->n; i++) {
		if (c->shared[i])
			shared++;
		else
			priv++;
		qs_shared_writer(c->line[i], smp_processor_id(), rcu_gp_started(), c->shared[i]);
	}
	c->n = 0;
	c->tot.reports++;
	c->tot.qs += nr_qs;
	c->tot.private_lines += priv;
	c->tot.shared_lines += shared;
	if (priv + shared > c->tot.max_lines)
		c->tot.max_lines = priv + shared;
	if (shared > c->tot.max_shared)
		c->tot.max_shared = shared;
	local_irq_restore(flags);
}

void qs_lines_enable(bool on)
{
	if (on) {
		unsigned long flags = local_irq_save();

		arch_spin_lock(&qs_shared_lock);
		qs_shared_n = 0;
		qs_shared_max_writers = 0;
		arch_spin_unlock(&qs_shared_lock);
		local_irq_restore(flags);
		WRITE_ONCE(qs_lines_gen, qs_lines_gen + 1);
		smp_mb();	/* the new generation before any CPU counts under it */
	}
	WRITE_ONCE(qs_lines_on, on);
}

/*
 * The totals of every CPU that counted in the current generation. Read
 * after qs_lines_enable(false) and a grace period (so no CPU is between
 * a mark and its report), they are exact.
 */
void qs_lines_read(struct qs_lines_totals *t)
{
	unsigned long gen = READ_ONCE(qs_lines_gen);
	unsigned long flags;
	unsigned int cpu;

	*t = (struct qs_lines_totals){ 0 };
	for_each_possible_cpu(cpu) {
		struct qs_lines_cpu *c = per_cpu_ptr(&qs_lines_cpu, cpu);

		if (READ_ONCE(c->gen) != gen)
			continue;
		t->reports += c->tot.reports;
		t->qs += c->tot.qs;
		t->private_lines += c->tot.private_lines;
		t->shared_lines += c->tot.shared_lines;
		t->overflows += c->tot.overflows;
		if (c->tot.max_lines > t->max_lines)
			t->max_lines = c->tot.max_lines;
		if (c->tot.max_shared > t->max_shared)
			t->max_shared = c->tot.max_shared;
	}
	flags = local_irq_save();
	arch_spin_lock(&qs_shared_lock);
	t->shared_lines_seen = 0;
	for (unsigned int i = 0; i < qs_shared_n; i++) {
		t->shared_lines_seen += qs_shared[i].shared;
		if (qs_shared[i].shared)
			qs_shared_fold(&qs_shared[i]);
	}
	t->max_writers = qs_shared_max_writers;
	arch_spin_unlock(&qs_shared_lock);
	local_irq_restore(flags);
}

/* The i-th line marked since counting was switched on: false past the last. */
bool qs_lines_line(unsigned int i, struct qs_lines_line *l)
{
	if (i >= READ_ONCE(qs_shared_n))
		return false;
	*l = (struct qs_lines_line){
		.addr = qs_shared[i].line << QS_LINE_SHIFT, .reports = qs_shared[i].reports,
		.writers = qs_shared[i].all_writers, .shared = qs_shared[i].shared,
	};
	return true;
}
