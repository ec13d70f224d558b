/*
 * sched (rcu-sched): Rusty Russell's RCU as seed 000 describes it in
 * section 5.6 (Figures 28-32): a ring of per-CPU counters advanced by the
 * scheduler, like a token passed once around the CPUs per round, and
 * per-CPU, per-context callback queues in two halves, one accumulating
 * new callbacks and one waiting for the round in progress. Its call_rcu()
 * takes no lock and masks no interrupt; its one atomic is the pending
 * count (rcu_pending).
 *
 * The doc is docs/rcu/sched.md: the data in the paper's names, the ring,
 * why call_rcu() is safe from every context without masking interrupts,
 * one callback's walk, why the paper's grace periods lasted up to a
 * minute and what bounds ours, where we differ from the figures and why,
 * CPU hotplug, and the broken mode (rcu_break=1).
 */
#include "rcu_internal.h"
#include <rcu_hooks.h>
#include <softirq.h>
#include <preempt.h>
#include <atomic.h>
#include <percpu.h>
#include <sched.h>
#include <smp.h>
#include <printk.h>
#include <string.h>
#include <arch/cpu.h>

#define RCU_NR_CONTEXTS	3	/* 0 process, 1 softirq, 2 hard IRQ */

struct rcu_batch {
	struct rcu_head *head[2][RCU_NR_CONTEXTS];	/* singly linked, via list.next */
	unsigned long len[2][RCU_NR_CONTEXTS];		/* statistics, gdb */
	int queueing;			/* the half accumulating new callbacks */
	long ring_count;		/* ring_count(cpu), Figure 30 */
	long finished_count;		/* finished_count(cpu): next rcu_batch_done() */
	long due_count;			/* the count to publish after rcu_batch_done() */
	int batch_due;			/* rcu_batch_done() owed (softirq raised) */
	unsigned int ring_prev_cpu;	/* whose count we read (Figure 30: the previous CPU's) */
	unsigned int ring_next_cpu;	/* who reads ours */
	unsigned long need_gp;		/* the leader's round the waiting half also needs */
	unsigned long batches;		/* rcu_batch_done() calls */
	long poked_at;			/* our count when we last woke an idle ring_prev_cpu */
	unsigned long kicks;		/* resched_cpu() kicks of an idle ring neighbour */
	unsigned long token_ticks;	/* ticks that found this CPU busy holding the token */
	int gone;			/* offline: stepped over (CPU hotplug, below) */
};

DEFINE_PER_CPU(struct rcu_batch, rcu_batch);
#define RCU_batch(cpu)		(per_cpu(rcu_batch, cpu))
#define ring_count(cpu)		(RCU_batch(cpu).ring_count)
#define finished_count(cpu)	(RCU_batch(cpu).finished_count)

/*
 * CPU hotplug (docs/rcu/sched.md). An offline CPU stays in the ring, N
 * unchanged, and is stepped over: its count reads as its predecessor's
 * plus one, as if it took every token the instant it came, which it may,
 * since it runs no reader. So the count a CPU reads "from the previous
 * CPU" is that of the nearest online predecessor plus one per offline CPU
 * between. The boot CPU, the leader, never goes down, so the walk ends.
 */
static unsigned int rcu_ring_live_prev(unsigned int cpu, long *skipped)
{
	unsigned int p = RCU_batch(cpu).ring_prev_cpu;

	*skipped = 0;
	while (READ_ONCE(RCU_batch(p).gone) && p != cpu) {
		p = RCU_batch(p).ring_prev_cpu;
		(*skipped)++;
	}
	return p;
}

static long rcu_ring_prev_count(unsigned int cpu)
{
	long skipped;
	unsigned int p = rcu_ring_live_prev(cpu, &skipped);

	return READ_ONCE(ring_count(p)) + skipped;
}

/* The nearest online successor, to wake when we publish. */
static unsigned int rcu_ring_live_next(unsigned int cpu)
{
	unsigned int n = RCU_batch(cpu).ring_next_cpu;

	while (READ_ONCE(RCU_batch(n).gone) && n != cpu)
		n = RCU_batch(n).ring_next_cpu;
	return n;
}

atomic_long_t rcu_pending = { 0 };	/* Figure 28 line 20 */
int rcu_ring_ready;			/* the ring is set up (late init) */
unsigned int rcu_ring_cpus;		/* smp_num_cpus of Figure 30 */
unsigned int rcu_ring_leader;		/* the CPU that times grace periods */
unsigned long rcu_sched_gpnum;		/* rounds of the ring, as grace periods */
long rcu_sched_gp_start;		/* leader's count when the round began */
int rcu_sched_gp_open;

/* Its name (docs/rcu/README.md), a string that gdb and the test runner
 * read from the ELF, and where the papers describe it (the boot line). */
const char rcu_variant_id[] = "sched";
const char rcu_variant_paper[] = "rcu-sched, seed 000 section 5.6";

/* Figure 28. No lock, no interrupt masking: the context picks the queue. */
void call_rcu(struct rcu_head *head, void (*func)(void *arg), void *arg)
{
	struct rcu_batch *rb;
	struct rcu_head **headp;
	unsigned int state, q;

	if (!rcu_prove_queue(head, func))
		return;	/* reported: queued already */

	head->func = func;
	head->arg = arg;
	preempt_disable();		/* stay on this CPU, no swap meanwhile */
	if (in_irq())
		state = 2;
	else if (in_softirq())
		state = 1;
	else
		state = 0;
	rb = this_cpu_ptr(&rcu_batch);
	q = READ_ONCE(rb->queueing);
	headp = &rb->head[q][state];
	atomic_long_inc(&rcu_pending);
	rcu_stats_queued(head);
	head->list.prev = NULL;
	head->list.next = (struct list_head *)*headp;
	barrier();
	WRITE_ONCE(*headp, head);	/* one store publishes it to this CPU's interrupts */
	rb->len[q][state]++;
	preempt_enable();
}

static bool rcu_batch_empty(struct rcu_batch *rb)
{
	for (int h = 0; h < 2; h++)
		for (int q = 0; q < RCU_NR_CONTEXTS; q++)
			if (READ_ONCE(rb->head[h][q]))
				return false;
	return true;
}

static bool rcu_waiting_empty(struct rcu_batch *rb)
{
	int w = !rb->queueing;

	return !rb->head[w][0] && !rb->head[w][1] && !rb->head[w][2];
}

/*
 * The leader times rounds of the ring as the grace periods of
 * kernel/rcu/gp_sequence.c (the polled API, the statistics, stall
 * warnings).
 * A round opens as soon as the leader sees callbacks pending, at its
 * current count L, whether or not it holds the token (a round that waited
 * for the leader's next publication could not be seen stalling while
 * another CPU holds the token). It ends when the leader publishes L+N+1:
 * the leader's L+1 was published after the round opened, the next CPU in
 * the ring read that to publish L+2, and so on round: each CPU's step
 * came after the opening. (L+N alone is not enough: the CPU before the
 * leader may have read L and published L+1 before the round opened.)
 */
static void rcu_gp_open_round(struct rcu_batch *rb)
{
	if (rcu_sched_gp_open || !atomic_long_read(&rcu_pending))
		return;
	rcu_sched_gp_start = rb->ring_count;
	WRITE_ONCE(rcu_sched_gp_open, 1);
	rcu_gp_count_start();	/* before the leader publishes its next count */
	rcu_gp_begin(++rcu_sched_gpnum);
}

/*
 * Publish this CPU's new ring count (Figure 30 line 25); the leader also
 * times the rounds as grace periods (gp_sequence.c). Preemption off,
 * and never concurrently with itself on one CPU (see the callers).
 */
static void rcu_ring_publish(struct rcu_batch *rb, unsigned int cpu, long c)
{
	unsigned int next;

	smp_mb();		/* the swap and the previous CPU's count before ours */
	WRITE_ONCE(rb->ring_count, c);
	if (cpu == rcu_ring_leader &&
	    rcu_sched_gp_open && c - rcu_sched_gp_start > (long)rcu_ring_cpus) {
		WRITE_ONCE(rcu_sched_gp_open, 0);
		rcu_gp_end(rcu_sched_gpnum);
		rcu_gp_open_round(rb);
	}
	rcu_stats_qs();
	rcu_trace_qs(cpu);
	/* Wake the next CPU's idle loop if it sleeps: it can advance now. */
	next = rcu_ring_live_next(cpu);
	if (next != cpu && idle_cpu(next)) {
		rb->kicks++;
		resched_cpu(next);
	}
}

/*
 * Figure 32, run in softirq context (RCU_SOFTIRQ, or BH disabled): the
 * waiting half is done; take it, swap the halves, set finished_count,
 * publish the count the hook kept back, then invoke.
 */
static void rcu_batch_done(void)
{
	lockdep_assert_bh_disabled();	/* excludes this CPU's softirq call_rcu() */
	struct rcu_batch *rb = this_cpu_ptr(&rcu_batch);
	unsigned int cpu = smp_processor_id();
	struct rcu_head *chain[RCU_NR_CONTEXTS];
	unsigned long n = 0;
	LIST_HEAD(done);
	int w;
	long c;

	if (!READ_ONCE(rb->batch_due))
		return;
	c = rb->due_count;
	w = !rb->queueing;
	for (int q = 0; q < RCU_NR_CONTEXTS; q++) {
		chain[q] = rb->head[w][q];
		WRITE_ONCE(rb->head[w][q], NULL);
		n += rb->len[w][q];
		rb->len[w][q] = 0;
	}
	barrier();		/* emptied before call_rcu() can pick this half */
	WRITE_ONCE(rb->queueing, w);	/* Figure 32 line 25 */
	rb->need_gp = rcu_gp_started() + 1;	/* the polled API's cookie, now */
	barrier();
	rb->finished_count = c + rcu_ring_cpus;
	rb->batches++;
	WRITE_ONCE(rb->batch_due, 0);
	rcu_ring_publish(rb, cpu, c);
	if (!n)
		return;
	smp_mb();		/* the ring counts read before the callbacks run */
	for (int q = 0; q < RCU_NR_CONTEXTS; q++) {
		struct rcu_head *i, *next;

		for (i = chain[q]; i; i = next) {
			next = (struct rcu_head *)i->list.next;
			list_add(&i->list, &done);	/* LIFO chain -> oldest first */
		}
	}
	rcu_stats_list_len(n);
	rcu_invoke_callbacks(&done);
	atomic_long_sub(n, &rcu_pending);
}

static void rcu_sched_softirq(void)
{
	rcu_batch_done();
}

/*
 * Figure 30: one step of the ring, at a quiescent state of this CPU.
 * Returns true if rcu_batch_done() is owed (the count is kept back).
 * Preemption disabled by the caller.
 */
static bool rcu_ring_step(void)
{
	struct rcu_batch *rb;
	unsigned int cpu, prev;
	long c, skipped;

	/* The ring moves while callbacks are pending, and until the round
	 * the leader times as a grace period is over (the polled API counts
	 * rounds: one that ended early would not be a grace period). */
	if (!READ_ONCE(rcu_ring_ready) ||
	    (!atomic_long_read(&rcu_pending) && !READ_ONCE(rcu_sched_gp_open)))
		return false;
	cpu = smp_processor_id();
	rb = this_cpu_ptr(&rcu_batch);
	if (cpu == rcu_ring_leader)
		rcu_gp_open_round(rb);
	if (rb->batch_due)
		return true;		/* keep the token until rcu_batch_done() */
	smp_mb();		/* this CPU's past reads before the previous CPU's count */
	prev = rcu_ring_live_prev(cpu, &skipped);	/* offline CPUs stepped over */
	c = READ_ONCE(ring_count(prev)) + skipped + 1;
	/*
	 * Not moved; or behind us, which only a CPU back from offline can
	 * be, while its real count catches up with the one we read through
	 * it: a count never goes backwards.
	 */
	if ((long)(c - rb->ring_count) <= 0) {
		/* The previous CPU has not moved. If it sleeps in hlt, nothing
		 * would move it before its next tick: end its hlt once per
		 * count we wait at. */
		if (prev != cpu && rb->poked_at != c && idle_cpu(prev)) {
			rb->poked_at = c;
			rb->kicks++;
			resched_cpu(prev);
		}
		return false;
	}
	if (c - rb->finished_count >= 0 && !rcu_batch_empty(rb) &&
	    (rcu_waiting_empty(rb) || (long)(rcu_gp_completed() - rb->need_gp) >= 0)) {
		rb->due_count = c;
		barrier();
		WRITE_ONCE(rb->batch_due, 1);
		return true;
	}
	if (c - rb->finished_count >= 0 && rcu_batch_empty(rb))
		rb->finished_count = c + rcu_ring_cpus;	/* an empty swap */
	rcu_ring_publish(rb, cpu, c);
	return false;
}

/* Run a due rcu_batch_done() now: interrupts on, not in __schedule(). */
static void rcu_batch_done_now(void)
{
	local_bh_disable();
	rcu_batch_done();
	local_bh_enable();
}

/* Figures 29-30: every pass through the scheduler (and cond_resched()). */
void rcu_hook_context_switch(bool voluntary)
{
	bool due;

	if (likely(!atomic_long_read(&rcu_pending)) && !READ_ONCE(rcu_sched_gp_open))
		return;			/* Table 2: one global read */
	preempt_disable();
	due = rcu_ring_step();
	preempt_enable_no_resched();
	if (!due)
		return;
	if (irqs_disabled()) {
		/* In __schedule(), run-queue lock held: no wake-ups. The
		 * self-IPI runs the softirq as soon as interrupts are on. */
		__raise_softirq_irqoff(RCU_SOFTIRQ);
		smp_send_reschedule(smp_processor_id());
	} else if (!in_interrupt()) {
		rcu_batch_done_now();
	}
}

/* Figure 31: each pass of the idle loop is a quiescent state. */
void rcu_hook_idle(void)
{
	bool due;

	if (likely(!atomic_long_read(&rcu_pending)) && !READ_ONCE(rcu_sched_gp_open))
		return;
	preempt_disable();
	due = rcu_ring_step();
	preempt_enable_no_resched();
	if (due)
		rcu_batch_done_now();
}

/* Does this CPU hold the token: could it advance its count now? */
static bool rcu_holds_token(unsigned int cpu)
{
	struct rcu_batch *rb = &RCU_batch(cpu);

	return rb->batch_due || (long)(rcu_ring_prev_count(cpu) + 1 - rb->ring_count) > 0;
}

void rcu_hook_tick(enum tick_context ctx)
{
	struct rcu_batch *rb = this_cpu_ptr(&rcu_batch);

	if ((atomic_long_read(&rcu_pending) || READ_ONCE(rcu_sched_gp_open)) &&
	    READ_ONCE(rcu_ring_ready)) {
		if (rcu_break) {
			/* Broken on purpose: a tick is no quiescent state, yet
			 * it advances the ring, even over a reader. */
			rcu_ring_step();
		} else if (ctx != TICK_IDLE && rcu_holds_token(smp_processor_id())) {
			/* Busy and holding everyone up: go through __schedule()
			 * at the first chance (a hop costs about a tick). */
			rb->token_ticks++;
			set_need_resched();
		}
		if (rb->batch_due)
			__raise_softirq_irqoff(RCU_SOFTIRQ);
	}
	rcu_check_stall();
}

/*
 * CPU hotplug (docs/rcu/sched.md; the paper's smp_num_cpus is fixed). On
 * the dying CPU, interrupts off, out of cpu_online_mask: it runs no
 * reader (the stopper switched out whatever ran), so from here on its
 * successor steps over it (rcu_ring_live_prev()). A batch it had due
 * ran in the stopper's softirq pass, before it left the mask; one that
 * came due since waits with its callbacks, which rcu_variant_cpu_dead()
 * adopts (late, never early). The fence: its readers' accesses
 * before anyone may read through it.
 */
bool rcu_variant_hotplug = true;

void rcu_variant_cpu_offline(unsigned int cpu)
{
	smp_mb();
	WRITE_ONCE(RCU_batch(cpu).gone, 1);
	smp_mb();
}

/*
 * Push the chain (newest first) onto this CPU's queueing half of the same
 * context, oldest first, so that the result stays newest first: the dead
 * CPU's callbacks keep their order, after this CPU's own.
 */
static void rcu_ring_adopt_chain(struct rcu_batch *to, int q, struct rcu_head *chain,
				 unsigned long n)
{
	struct rcu_head *rev = NULL, *i, *next;
	int h = to->queueing;

	for (i = chain; i; i = next) {		/* reverse: oldest first */
		next = (struct rcu_head *)i->list.next;
		i->list.next = (struct list_head *)rev;
		rev = i;
	}
	for (i = rev; i; i = next) {
		next = (struct rcu_head *)i->list.next;
		i->list.next = (struct list_head *)to->head[h][q];
		to->head[h][q] = i;
	}
	to->len[h][q] += n;
}

/*
 * On the CPU that ran cpu_down() (a task): the dead CPU's two halves, the
 * waiting one (older) first, join this CPU's queueing half, context by
 * context: they wait for this CPU's next swap and a whole round after it,
 * late but never early, and each context's order is kept (rcu_barrier()
 * queues from one context). Interrupts off: this CPU's call_rcu() from an
 * interrupt or softirq writes the same chains, and no swap may come
 * between. rcu_pending counts them still.
 */
void rcu_variant_cpu_dead(unsigned int cpu)
{
	struct rcu_batch *dead = &RCU_batch(cpu), *rb;
	unsigned long flags = local_irq_save();
	int w = !dead->queueing;

	rb = this_cpu_ptr(&rcu_batch);
	for (int q = 0; q < RCU_NR_CONTEXTS; q++) {
		rcu_ring_adopt_chain(rb, q, dead->head[w][q], dead->len[w][q]);
		rcu_ring_adopt_chain(rb, q, dead->head[!w][q], dead->len[!w][q]);
		dead->head[0][q] = dead->head[1][q] = NULL;
		dead->len[0][q] = dead->len[1][q] = 0;
	}
	dead->batch_due = 0;
	local_irq_restore(flags);
}

/*
 * Back (on it, interrupts off, before its tick and before it rejoins
 * cpu_online_mask): take up the count its successor has been reading
 * through it, then stop being stepped over. A successor that read
 * through it a count newer than this one waits (a count never goes
 * backwards, rcu_ring_step()) until this CPU's next step catches up.
 */
void rcu_variant_cpu_reonline(unsigned int cpu)
{
	struct rcu_batch *rb = &RCU_batch(cpu);

	WRITE_ONCE(rb->ring_count, rcu_ring_prev_count(cpu) + 1);
	rb->poked_at = 0;
	smp_mb();		/* the count before we are read directly */
	WRITE_ONCE(rb->gone, 0);
	smp_mb();		/* no reader here before the others see us back */
}

void rcu_variant_init_cpu(unsigned int cpu)
{
}

void rcu_variant_init(void)
{
	open_softirq(RCU_SOFTIRQ, rcu_sched_softirq);
}

/* Every CPU is up: build the ring over the online CPUs. */
void rcu_variant_late_init(void)
{
	unsigned int cpu, first = ~0U, prev = ~0U;

	/* Each CPU reads the previous online CPU's count (Figure 30 line 8,
	 * "cpu - 1"); the first reads the last's. */
	for_each_online_cpu(cpu) {
		if (first == ~0U)
			first = cpu;
		if (prev != ~0U) {
			RCU_batch(cpu).ring_prev_cpu = prev;
			RCU_batch(prev).ring_next_cpu = cpu;
		}
		prev = cpu;
		rcu_ring_cpus++;
	}
	RCU_batch(first).ring_prev_cpu = prev;
	RCU_batch(prev).ring_next_cpu = first;
	rcu_ring_leader = first;
	smp_mb();
	WRITE_ONCE(rcu_ring_ready, 1);
	printk("rcu-sched: ring of %u CPUs, leader cpu%u\n", rcu_ring_cpus, first);
}

bool rcu_variant_stall_info(struct rcu_stall_info *si)
{
	unsigned int cpu;

	si->gpnum = READ_ONCE(rcu_sched_gpnum);
	cpumask_clear(&si->owing);
	if (!READ_ONCE(rcu_ring_ready) ||
	    (!atomic_long_read(&rcu_pending) && !READ_ONCE(rcu_sched_gp_open)))
		return false;
	for_each_online_cpu(cpu)
		if (rcu_holds_token(cpu))
			cpumask_set(cpu, &si->owing);
	return !cpumask_empty(&si->owing);
}

void rcu_variant_show_state(void)
{
	unsigned int cpu;

	printk("rcu-sched: pending %ld ring_cpus %u gpnum %lu gp_open %d (round began at %ld)\n",
	       atomic_long_read(&rcu_pending), rcu_ring_cpus, rcu_sched_gpnum,
	       rcu_sched_gp_open, rcu_sched_gp_start);
	for_each_online_cpu(cpu) {
		struct rcu_batch *rb = &RCU_batch(cpu);
		int qh = rb->queueing;

		printk("rcu-sched: cpu%u: ring_count %ld (prev cpu%u: %ld) finished_count %ld%s "
		       "queueing %d [%lu %lu %lu] waiting [%lu %lu %lu] batches %lu kicks %lu\n",
		       cpu, rb->ring_count, rb->ring_prev_cpu, ring_count(rb->ring_prev_cpu), rb->finished_count,
		       rb->batch_due ? " (batch due)" : "", qh,
		       rb->len[qh][0], rb->len[qh][1], rb->len[qh][2],
		       rb->len[!qh][0], rb->len[!qh][1], rb->len[!qh][2], rb->batches, rb->kicks);
	}
}
