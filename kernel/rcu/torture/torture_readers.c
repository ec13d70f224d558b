/*
 * rcutorture, the read side: reader threads (one bound to each CPU, more
 * free-running if asked), one kernel timer per CPU whose handler reads
 * in softirq context, and a thread that sends reads to random CPUs as
 * IPIs, which run in hard-IRQ context (docs/rcu/torture.md).
 *
 * One read: enter 1-3 nested read-side sections (sometimes a _bh one
 * inside, never in hard IRQ), pick up rcu_torture_current, note its mark, version and age,
 * wait a random while, leave the inner sections, wait a little more, and
 * look again before leaving the outermost one. Then:
 *
 *   Reader Pipe[a]   the element's age at the end; a > 1 means a grace
 *                    period that began after the element was retired has
 *                    ended while this reader held it: an RCU failure.
 *   Reader Batch[b]  grace periods completed (rcu_gp_completed()) during
 *                    the section; diagnostic only (a grace period that was
 *                    already running when the reader began may end).
 *   gp               rcu_gp_completed() at the end passed rcu_gp_started()
 *                    at the start: a grace period that began after the
 *                    reader ended before it. Exact for every read, since
 *                    each variant counts a start before it looks at a CPU.
 *   mark             RTORT_MARK, or 0x6b poison: the element was freed
 *                    under the reader (kmalloc poisoning).
 *   version          changed: the element was freed and its memory
 *                    handed out again as a newer element.
 *
 * How long a thread read holds its element is drawn from a spread of
 * distributions (rcu_torture_read_delay()): none, short uniform, log-
 * uniform up to 128 us, rare medium ones, the long ones of
 * torture.long_delay, and reads that wait inside the section until a grace
 * period begins, so that the variant must notice it while the reader runs
 * (a CPU that takes its snapshot, swaps its counters or is marked with a
 * reader in flight is where early-ending bugs live).
 *
 * Between reads the thread passes through quiescent states on purpose:
 * usually cond_resched(), often yield() (a voluntary switch), now and
 * then a short sleep (its CPU goes idle and wakes again), so that
 * rcu-ltimer's grace periods, which wait for exactly these, keep ending.
 * torture_stutter() pauses every thread now and then (torture.c).
 */
#include "torture.h"
#include <kmalloc.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <timer.h>
#include <printk.h>
#include <trace.h>

DEFINE_PER_CPU(struct torture_reader_stats, torture_rstats);

#define TORTURE_MAX_READERS	64

static struct task *reader_tasks[TORTURE_MAX_READERS];
static unsigned int nr_reader_tasks;

struct torture_timer {
	struct timer_list t;
	struct torture_rand r;
};
static struct torture_timer *reader_timers;	/* one per possible CPU */

/* ---------------------------------------------------------------- one read */

enum read_ctx { READ_THREAD, READ_TIMER, READ_IRQ };

static const char *const read_ctx_name[] = { "thread", "timer", "irq" };

/*
 * Spin inside the section until a grace period begins (at most max_us),
 * if none is in progress: one that is may be waiting for this very CPU,
 * and the next could not begin before this reader ends.
 */
static void rcu_torture_wait_gp_start(unsigned long max_us)
{
	unsigned long s0 = rcu_gp_started();
	u64 end = ktime_get_ns() + max_us * 1000;

	if (s0 != rcu_gp_completed())
		return;
	while (rcu_gp_started() == s0 && ktime_get_ns() < end)
		cpu_relax();
}

/*
 * Spin until the next grace period begins (at most max_us), then a few
 * microseconds more: a variant counts the start before it marks the CPUs
 * (gp_sequence.c), and the CPU should find itself marked.
 */
static void rcu_torture_wait_new_gp(unsigned long max_us)
{
	unsigned long s0 = rcu_gp_started();
	u64 end = ktime_get_ns() + max_us * 1000;

	while (rcu_gp_started() == s0 && ktime_get_ns() < end)
		cpu_relax();
	udelay(20);
}

/*
 * How long the reader holds the element: a distribution drawn per read,
 * so that every variant meets short, long and grace-period-straddling
 * sections. Timer and IRQ reads stay short (softirq, interrupts off).
 */
static void rcu_torture_read_delay(struct torture_rand *r, enum read_ctx ctx)
{
	unsigned long x = torture_random(r);
	unsigned long pick = (x >> 4) % 100;

	if (ctx != READ_THREAD) {
		if (!(x % 4))
			udelay(1 + (x >> 8) % 20);
		return;
	}
	if (pick < 35) {
		/* none at all */
	} else if (pick < 60) {
		udelay(1 + (x >> 12) % 20);			/* short, uniform */
	} else if (pick < 85) {
		udelay(1UL << ((x >> 12) % 8));			/* 1..128 us, log-uniform */
	} else if (pick < 87) {
		udelay(200 + (x >> 12) % 800);			/* medium: up to 1 ms */
	} else if (pick < 95) {
		rcu_torture_wait_gp_start(1000);		/* straddle a grace-period start */
		udelay((x >> 12) % 50);
		atomic_long_inc(&this_cpu_ptr(&torture_rstats)->gp_waits);
	}
}

/*
 * A read that finds its CPU out of cpu_online_mask runs on a CPU going
 * down: an interrupt, or the softirqs of one, that it took between
 * leaving the mask and parking. A grace period that begins after the
 * read must still wait for it, so hold on inside the section until one
 * has ended (or at most 100 ms): one that no longer waits for this CPU
 * then ends under the reader, and the grace-period check reports it.
 */
static void rcu_torture_offline_read(unsigned long gp_started)
{
	u64 end = ktime_get_ns() + 100ULL * 1000 * 1000;

	atomic_long_inc(&this_cpu_ptr(&torture_rstats)->offline_reads);
	while ((long)(rcu_gp_completed() - gp_started) <= 0 && ktime_get_ns() < end)
		cpu_relax();
}

unsigned long torture_offline_reads(void)
{
	unsigned long n = 0;
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		n += atomic_long_read(&per_cpu(torture_rstats, cpu).offline_reads);
	return n;
}

struct read_snap {
	unsigned long mark, version;
	int pipe;
	unsigned long gp_started;	/* rcu_gp_started() at the reader's start */
	unsigned long gp_completed;	/* rcu_gp_completed() at its end */
};

static void snap(struct rcu_torture *p, struct read_snap *s)
{
	s->mark = READ_ONCE(p->rtort_mark);
	s->pipe = READ_ONCE(p->rtort_pipe_count);
	s->version = READ_ONCE(p->rtort_version);
}

static void rcu_torture_check(struct rcu_torture *p, const struct read_snap *a,
			      const struct read_snap *b, unsigned long gps, enum read_ctx ctx)
{
	struct torture_reader_stats *rs = this_cpu_ptr(&torture_rstats);
	int pipe = MAX(a->pipe, b->pipe);

	/*
	 * The grace-period check: a grace period that began after this
	 * reader did (rcu_gp_started() had not counted it when the reader
	 * looked) must not end before the reader does. Every variant counts a
	 * grace period's start before it looks at any CPU (gp_sequence.c), so this
	 * holds for every read, whether or not the writer retired the element
	 * meanwhile.
	 */
	if ((long)(b->gp_completed - a->gp_started) > 0) {
		atomic_long_inc(&torture_errors.gp);
		torture_report("%s reader on CPU %u: grace period %lu began after the reader "
			       "and ended before it (started %lu at the reader's start, completed "
			       "%lu at its end); element %p version %lu, pipe %d, current version %lu",
			       read_ctx_name[ctx], smp_processor_id(),
			       a->gp_started + 1, a->gp_started, b->gp_completed, p, a->version,
			       pipe, rcu_torture_current_version);
	}

	/* Poison reads as a huge age: it lands in the last bucket. */
	if (pipe < 0 || pipe > RCU_TORTURE_PIPE_LEN)
		pipe = RCU_TORTURE_PIPE_LEN;
	atomic_long_inc(&rs->pipe[pipe]);
	atomic_long_inc(&rs->batch[MIN(gps, (unsigned long)RCU_TORTURE_PIPE_LEN)]);
	if (pipe > 1) {
		atomic_long_inc(&torture_errors.pipe);
		torture_report("%s reader on CPU %u held element %p (version %lu) "
			       "to age %d; current version %lu",
			       read_ctx_name[ctx], smp_processor_id(), p,
			       a->version, pipe, rcu_torture_current_version);
	}
	if (a->mark != RTORT_MARK || b->mark != RTORT_MARK) {
		atomic_long_inc(&torture_errors.mark);
		torture_report("%s reader on CPU %u: element %p has mark %lx "
			       "(%s) inside its read-side section",
			       read_ctx_name[ctx], smp_processor_id(), p,
			       a->mark != RTORT_MARK ? a->mark : b->mark,
			       (a->mark == RTORT_POISON || b->mark == RTORT_POISON) ?
			       "freed: kmalloc poison" : "corrupt");
	} else if (a->version != b->version) {
		atomic_long_inc(&torture_errors.reuse);
		torture_report("%s reader on CPU %u: element %p went from version "
			       "%lu to %lu inside its read-side section (freed and reused)",
			       read_ctx_name[ctx], smp_processor_id(), p,
			       a->version, b->version);
	}
}

/*
 * Preemptible readers (rcu-preempt, kernel/rcu/read_side.h): now and then
 * get preempted inside the section, and often migrated to another CPU as
 * well: an involuntary switch (preempt_enable() with need_resched set),
 * which the variant must not take for a quiescent state of the reader.
 * Affinity changed with preemption disabled takes effect at that switch
 * (kernel/sched/migrate.c). Returns true if *saved must be restored.
 */
static bool rcu_torture_preempt_reader(struct torture_rand *r, cpumask_t *saved)
{
	struct torture_reader_stats *rs;
	unsigned long x = torture_random(r);
	unsigned int ncpus = num_online_cpus(), cpu, target, from;
	bool moved = false;

	preempt_disable();
	from = smp_processor_id();
	if (ncpus > 1 && x % 2) {
		target = (x >> 8) % ncpus;
		for_each_online_cpu(cpu)
			if (!target--)
				break;
		if (cpu != from && cpu < nr_cpu_ids) {
			cpumask_copy(saved, &current->cpus_allowed);
			set_cpus_allowed_one(current, cpu);
			moved = true;
		}
	}
	set_need_resched();
	preempt_enable();		/* preempted here (and moved) */
	rs = this_cpu_ptr(&torture_rstats);
	atomic_long_inc(&rs->preempted);
	if (moved && smp_processor_id() != from)
		atomic_long_inc(&rs->migrated);
	return moved;
}

/*
 * Now and then a thread reader queues a callback from inside its section
 * and lets this CPU's softirqs run there (local_bh_enable()): the variant's
 * softirq work (a new batch, the CPU noticing it, rcu-preempt's counter
 * swap) then happens with a reader in flight on this CPU, the case where a
 * CPU's own bookkeeping must not take the reader for done.
 */
struct reader_cb {
	struct rcu_head head;
};

static void reader_cb_done(void *arg)
{
	atomic_long_inc(&torture_wstats.cbs_invoked);
	kfree(arg);
}

static void rcu_torture_reader_call_rcu(void)
{
	struct reader_cb *rc = kmalloc(sizeof(*rc));	/* does not sleep */

	if (rc) {
		atomic_long_inc(&torture_wstats.cbs_queued);
		call_rcu(&rc->head, reader_cb_done, rc);
	}
	local_bh_disable();
	local_bh_enable();	/* this CPU's softirqs run here, over the reader */
	atomic_long_inc(&this_cpu_ptr(&torture_rstats)->call_rcu_reads);
}

/*
 * Reader ids for the trace (docs/rcu/timeline.md): one per read, so that
 * tools/timeline.py can pair an enter with its exit even when the reader
 * was preempted and moved, or an IPI read nested inside a thread read.
 * The enter is recorded inside the section and the exit before it ends,
 * so the traced section lies within the real one: a grace period the
 * checker sees overlap it truly did.
 */
static atomic_long_t torture_reader_ids;

static unsigned long rcu_torture_trace_enter(enum read_ctx ctx)
{
	unsigned long id;

	if (!trace_enabled(TRACE_TORTURE))
		return 0;
	id = atomic_long_inc_return(&torture_reader_ids);
	trace_event(TRACE_TORTURE, TR_READER_ENTER, id, ctx);
	return id;
}

static void rcu_torture_one_read(struct torture_rand *r, enum read_ctx ctx)
{
	unsigned long x = torture_random(r);
	int nest = 1 + x % 3;
	/*
	 * No _bh section in hard IRQ: local_bh_enable() there would run
	 * softirqs inside the interrupt, so it warns (kernel/sched/softirq.c),
	 * as Linux's rcutorture keeps BH readers out of its IRQ reads.
	 */
	bool bh = ctx != READ_IRQ && !((x >> 4) % 4);
	struct read_snap a, b;
	struct rcu_torture *p;
	unsigned long gp0, gp1, id;
	cpumask_t saved;
	bool restore = false;
	bool long_read = ctx == READ_THREAD && torture_params.long_delay_us &&
			 !(torture_random(r) % torture_params.long_every);

	for (int i = 0; i < nest; i++)
		rcu_read_lock();
	if (bh)
		rcu_read_lock_bh();
	id = rcu_torture_trace_enter(ctx);
	a.gp_started = rcu_gp_started();
	gp0 = rcu_gp_completed();
	p = rcu_dereference(rcu_torture_current);
	if (!p) {
		if (id)
			trace_event(TRACE_TORTURE, TR_READER_EXIT, id, 0);
		if (bh)
			rcu_read_unlock_bh();
		for (int i = 0; i < nest; i++)
			rcu_read_unlock();
		atomic_long_inc(&this_cpu_ptr(&torture_rstats)->null_reads);
		return;
	}
	snap(p, &a);
	if (!cpu_online(smp_processor_id()))
		rcu_torture_offline_read(a.gp_started);
	if (long_read) {
		/*
		 * The long reads are where a grace period can begin and end
		 * inside one section, so they also try the riskiest things a
		 * reader can do: queue a callback and run this CPU's softirqs
		 * inside, and (where readers may be preempted) be preempted
		 * and moved before holding on.
		 */
		unsigned long longd = torture_params.long_delay_us;

		if ((x >> 20) % 2) {
			/*
			 * Right after a grace period begins this CPU has
			 * likely not noticed it yet: the softirq will, here,
			 * with this reader running. Preemption stays off until
			 * then, so that nothing else on this CPU notices it
			 * first (a preemptible reader that spins holds up no
			 * grace period, so it may wait longer for one).
			 */
			preempt_disable();
			rcu_torture_wait_new_gp(rcu_read_side_preemptible() ? 20000 : 2000);
			rcu_torture_reader_call_rcu();
			preempt_enable();
		}
		if (rcu_read_side_preemptible() && !bh)
			restore = rcu_torture_preempt_reader(r, &saved);
		udelay(longd / 2 + (x >> 8) % (longd / 2 + 1));
		atomic_long_inc(&this_cpu_ptr(&torture_rstats)->long_reads);
	} else {
		if (ctx == READ_THREAD && !((x >> 20) % 64))
			rcu_torture_reader_call_rcu();
		/* Preempted before the delay (held while preempted), or after it. */
		if (ctx == READ_THREAD && rcu_read_side_preemptible() && !bh && !((x >> 16) % 8))
			restore = rcu_torture_preempt_reader(r, &saved);
		rcu_torture_read_delay(r, ctx);
	}
	/* Leaving inner sections must not end the outermost one. */
	if (bh)
		rcu_read_unlock_bh();
	for (int i = 1; i < nest; i++)
		rcu_read_unlock();
	if (ctx == READ_THREAD && !((x >> 8) % 8))
		udelay(1 + (x >> 12) % 10);
	if (ctx == READ_THREAD && rcu_read_side_preemptible() && !restore && !((x >> 24) % 4))
		restore = rcu_torture_preempt_reader(r, &saved);
	snap(p, &b);
	gp1 = b.gp_completed = rcu_gp_completed();
	if (id)
		trace_event(TRACE_TORTURE, TR_READER_EXIT, id, 0);
	rcu_read_unlock();
	rcu_torture_check(p, &a, &b, gp1 - gp0, ctx);
	if (restore)
		set_cpus_allowed(current, &saved);
}

/* ---------------------------------------------------------------- threads */

static int rcu_torture_reader(void *arg)
{
	struct torture_rand r;

	torture_rand_init(&r, 1000 + (unsigned long)arg);
	while (!READ_ONCE(torture_stopping)) {
		unsigned long x;

		rcu_torture_one_read(&r, READ_THREAD);
		atomic_long_inc(&this_cpu_ptr(&torture_rstats)->reads);
		x = torture_random(&r);
		if (!(x % 128))
			torture_sleep(1 + (x >> 8) % 3);	/* the CPU idles, then wakes */
		else if (!(x % 8))
			yield();		/* voluntary switch: a quiescent state */
		else
			cond_resched();
		torture_stutter_wait();
	}
	return 0;
}

/* ---------------------------------------------------------------- timers */

static void rcu_torture_timer(unsigned long data)
{
	struct torture_timer *tt = (struct torture_timer *)data;

	rcu_torture_one_read(&tt->r, READ_TIMER);
	atomic_long_inc(&this_cpu_ptr(&torture_rstats)->timer_reads);
	if (!READ_ONCE(torture_stopping))
		mod_timer(&tt->t, jiffies + 1);
}

/* ---------------------------------------------------------------- IPIs */

static struct torture_rand irq_rand[CONFIG_NR_CPUS];
static struct task *irq_reader_task;

/* In the IPI handler: hard-IRQ context, interrupts off. */
static void rcu_torture_irq_read(void *arg)
{
	rcu_torture_one_read(&irq_rand[smp_processor_id()], READ_IRQ);
	atomic_long_inc(&this_cpu_ptr(&torture_rstats)->irq_reads);
}

/* Sends a read to a random CPU (itself included) every few microseconds. */
static int rcu_torture_irq_reader(void *arg)
{
	struct torture_rand r;

	torture_rand_init(&r, 4242);
	while (!READ_ONCE(torture_stopping)) {
		unsigned long x = torture_random(&r);
		unsigned int n = num_online_cpus(), cpu, target = x % n;

		for_each_online_cpu(cpu)
			if (!target--)
				break;
		smp_call_function_single(cpu, rcu_torture_irq_read, NULL, (x >> 8) % 2);
		if (!((x >> 12) % 16))
			torture_sleep(1);
		else
			udelay(20 + (x >> 16) % 200);
		cond_resched();
		torture_stutter_wait();
	}
	return 0;
}

/* ---------------------------------------------------------------- start, stop */

int torture_readers_start(void)
{
	unsigned int ncpus = num_online_cpus();
	unsigned long n = torture_params.nreaders ? torture_params.nreaders : ncpus;
	unsigned int cpu;

	if (n > TORTURE_MAX_READERS)
		n = TORTURE_MAX_READERS;
	nr_reader_tasks = 0;
	for (unsigned long i = 0; i < n; i++) {
		struct task *p;

		/* The first one per CPU is bound there; the rest roam. */
		if (i < ncpus)
			p = kthread_create_on_cpu(rcu_torture_reader, (void *)i, i,
						  "rcu_torture_rd%lu", i);
		else
			p = kthread_create(rcu_torture_reader, (void *)i, "rcu_torture_rd%lu", i);
		if (!p)
			return -1;
		reader_tasks[nr_reader_tasks++] = p;
		wake_up_process(p);
	}
	if (!torture_params.irqreader)
		return 0;
	for_each_online_cpu(cpu)
		torture_rand_init(&irq_rand[cpu], 6000 + cpu);
	irq_reader_task = kthread_run(rcu_torture_irq_reader, NULL, "rcu_torture_irq");
	if (!irq_reader_task)
		return -1;
	reader_timers = kzalloc(sizeof(*reader_timers) * nr_cpu_ids);
	if (!reader_timers)
		return -1;
	for_each_online_cpu(cpu) {
		struct torture_timer *tt = &reader_timers[cpu];

		torture_rand_init(&tt->r, 5000 + cpu);
		setup_timer(&tt->t, rcu_torture_timer, (unsigned long)tt);
		tt->t.expires = jiffies + 1;
		add_timer_on(&tt->t, cpu);
	}
	return 0;
}

/* torture_stopping is set: threads leave their loops, timers stop re-arming. */
void torture_readers_stop(void)
{
	unsigned int cpu;
	int code;

	for (unsigned int i = 0; i < nr_reader_tasks; i++) {
		if (!kthread_join_timeout(reader_tasks[i], 30 * HZ, &code)) {
			atomic_long_inc(&torture_errors.stall);
			torture_report("reader %u did not stop", i);
		}
		reader_tasks[i] = NULL;
	}
	nr_reader_tasks = 0;
	if (irq_reader_task && !kthread_join_timeout(irq_reader_task, 30 * HZ, &code)) {
		atomic_long_inc(&torture_errors.stall);
		torture_report("the IPI reader did not stop");
	}
	irq_reader_task = NULL;
	if (!reader_timers)
		return;
	for_each_online_cpu(cpu) {
		struct torture_timer *tt = &reader_timers[cpu];

		/* A handler that was running may have re-armed it once more. */
		del_timer_sync(&tt->t);
		del_timer_sync(&tt->t);
	}
	kfree(reader_timers);
	reader_timers = NULL;
}

/* Sum the per-CPU histograms. */
void torture_reader_hist(unsigned long pipe[], unsigned long batch[],
			 unsigned long *reads, unsigned long *timer_reads)
{
	unsigned int cpu;

	for (int i = 0; i <= RCU_TORTURE_PIPE_LEN; i++)
		pipe[i] = batch[i] = 0;
	*reads = *timer_reads = 0;
	for_each_possible_cpu(cpu) {
		struct torture_reader_stats *rs = &per_cpu(torture_rstats, cpu);

		for (int i = 0; i <= RCU_TORTURE_PIPE_LEN; i++) {
			pipe[i] += atomic_long_read(&rs->pipe[i]);
			batch[i] += atomic_long_read(&rs->batch[i]);
		}
		*reads += atomic_long_read(&rs->reads);
		*timer_reads += atomic_long_read(&rs->timer_reads);
	}
}

/* The read mix: hard-IRQ reads, long reads, reads that waited for a grace
 * period, reads that queued a callback. */
void torture_reader_mix(unsigned long *irq, unsigned long *longr, unsigned long *gpw,
			unsigned long *cbr)
{
	unsigned int cpu;

	*irq = *longr = *gpw = *cbr = 0;
	for_each_possible_cpu(cpu) {
		struct torture_reader_stats *rs = &per_cpu(torture_rstats, cpu);

		*irq += atomic_long_read(&rs->irq_reads);
		*longr += atomic_long_read(&rs->long_reads);
		*gpw += atomic_long_read(&rs->gp_waits);
		*cbr += atomic_long_read(&rs->call_rcu_reads);
	}
}

void torture_reader_preemptions(unsigned long *preempted, unsigned long *migrated)
{
	unsigned int cpu;

	*preempted = *migrated = 0;
	for_each_possible_cpu(cpu) {
		*preempted += atomic_long_read(&per_cpu(torture_rstats, cpu).preempted);
		*migrated += atomic_long_read(&per_cpu(torture_rstats, cpu).migrated);
	}
}
