/*
 * rcutorture, the rcu_barrier() tester (docs/rcu/torture.md), and the
 * KTESTs that hold rcu_barrier() to callbacks queued from interrupts.
 *
 * Each round queues torture.barrier callbacks on every CPU, then calls
 * rcu_barrier(): when it returns, every one of them must have run. Each
 * round queues them from one context, drawn from those the variant
 * allows (seed 000 Table 1's "BH/IRQ Safe" column, rcu_call_rcu_irq_safe()):
 *
 *   IPI        on_each_cpu(): hard IRQ on the other CPUs, interrupts off
 *              on the calling one; IRQ-safe variants only;
 *   work       a work item on each CPU: process context;
 *   work, BH   the same with BH disabled, as a softirq user queues.
 *
 * The rcu-poll family is BH-safe only (IRQ-unsafe by choice, seed 000
 * section 3): its call_rcu() warns from an interrupt and defers the
 * callback, so torture never asks it from there, as Linux's rcutorture
 * asks each flavour only for what it supports. Whether the deferred
 * callbacks still keep rcu_barrier()'s promise is torture_barrier_irq_warned's
 * question, below.
 */
#include "torture.h"
#include "../rcu_internal.h"
#include <ktest.h>
#include <softirq.h>
#include <workqueue.h>
#include <completion.h>
#include <sched.h>
#include <smp.h>
#include <cpuhotplug.h>
#include <time.h>
#include <printk.h>
#include <arch/cpu.h>

#define TORTURE_MAX_BARRIER_CBS	64

struct barrier_heads {
	struct rcu_head h[TORTURE_MAX_BARRIER_CBS];
};
static DEFINE_PER_CPU(struct barrier_heads, torture_barrier_heads);
static struct work_struct barrier_work[CONFIG_NR_CPUS];
static atomic_long_t barrier_invoked;
static atomic_long_t barrier_queued;	/* a CPU may go offline mid-round (torture.onoff) */
static unsigned long barrier_n;		/* callbacks per CPU this round */
static bool barrier_bh;			/* this round's work items hold BH off */
static struct task *barrier_task;

enum barrier_ctx { BARRIER_IPI, BARRIER_WORK, BARRIER_WORK_BH };
static const char *const barrier_ctx_name[] = { "IPI", "work item", "work item, BH off" };

static void barrier_cb(void *arg)
{
	atomic_long_inc(&barrier_invoked);
}

static void barrier_queue_cpu(unsigned int cpu)
{
	struct barrier_heads *bh = per_cpu_ptr(&torture_barrier_heads, cpu);

	for (unsigned long i = 0; i < barrier_n; i++)
		call_rcu(&bh->h[i], barrier_cb, NULL);
	atomic_long_add((long)barrier_n, &barrier_queued);
}

/* In the IPI handler (or, on the calling CPU, with interrupts off). */
static void barrier_queue_ipi(void *arg)
{
	barrier_queue_cpu(smp_processor_id());
}

/* A work item bound to its CPU: process context. */
static void barrier_queue_work(struct work_struct *w)
{
	bool bh = READ_ONCE(barrier_bh);

	if (bh)
		local_bh_disable();
	barrier_queue_cpu(w - barrier_work);
	if (bh)
		local_bh_enable();
}

/*
 * Queue barrier_n callbacks on every online CPU from ctx; all queued on
 * return. The hotplug lock keeps the set of online CPUs the same between
 * the queueing loop and the flushing one: without it a CPU that goes
 * offline in between is skipped by the flush, its work item runs later on
 * the heir CPU, and its callbacks are counted after barrier_queued was
 * read, so the tester blames rcu_barrier() for its own race.
 */
static void barrier_queue_all(enum barrier_ctx ctx)
{
	unsigned int cpu;

	cpus_read_lock();
	atomic_long_set(&barrier_invoked, 0);
	atomic_long_set(&barrier_queued, 0);
	if (ctx == BARRIER_IPI) {
		on_each_cpu(barrier_queue_ipi, NULL, true);
	} else {
		WRITE_ONCE(barrier_bh, ctx == BARRIER_WORK_BH);
		for_each_online_cpu(cpu) {
			INIT_WORK(&barrier_work[cpu], barrier_queue_work);
			schedule_work_on(cpu, &barrier_work[cpu]);
		}
		for_each_online_cpu(cpu)
			flush_work(&barrier_work[cpu]);
	}
	cpus_read_unlock();
}

/* One round: queue, rcu_barrier(), count. True if every callback ran. */
static bool barrier_round(enum barrier_ctx ctx, long *got, long *want)
{
	barrier_queue_all(ctx);
	*want = atomic_long_read(&barrier_queued);
	rcu_barrier();
	*got = atomic_long_read(&barrier_invoked);
	return *got == *want;
}

static int rcu_torture_barrier(void *arg)
{
	bool irq_ok = rcu_call_rcu_irq_safe();
	struct torture_rand r;

	torture_rand_init(&r, 7);
	barrier_n = MIN(torture_params.barrier_cbs, (unsigned long)TORTURE_MAX_BARRIER_CBS);
	while (!READ_ONCE(torture_stopping)) {
		unsigned long x = torture_random(&r);
		enum barrier_ctx ctx = irq_ok ? x % 3 : 1 + x % 2;
		long got, want;
		bool ok = barrier_round(ctx, &got, &want);

		atomic_long_inc(&torture_wstats.barrier_rounds);
		if (!ok) {
			atomic_long_inc(&torture_errors.barrier);
			torture_report("rcu_barrier() returned with %ld of %ld callbacks run "
				       "(queued from: %s)", got, want, barrier_ctx_name[ctx]);
			break;		/* the heads may still be queued: no reuse */
		}
		torture_sleep(HZ / 20 + torture_random(&r) % (HZ / 10 + 1));
	}
	return 0;
}

int torture_barrier_start(void)
{
	if (!torture_params.barrier_cbs)
		return 0;
	barrier_task = kthread_run(rcu_torture_barrier, NULL, "rcu_torture_bar");
	return barrier_task ? 0 : -1;
}

struct task **torture_barrier_task(void)
{
	return &barrier_task;
}

/* ---------------------------------------------------------------- KTESTs */

#define ORDER_CBS	8
#define ORDER_ROUNDS	10
#define IRQ_ROUNDS	10

static struct rcu_head order_early[ORDER_CBS], order_late;
static atomic_t order_early_run;
static int order_seen;			/* early callbacks that had run when the late one did */
static struct completion order_done;

static void order_early_cb(void *arg)
{
	atomic_inc(&order_early_run);
}

static void order_late_cb(void *arg)
{
	order_seen = atomic_read(&order_early_run);
	complete(&order_done);
}

/*
 * rcu_barrier() (update.c) queues one callback per CPU from a work item
 * and waits for those: it holds only if no callback queued later on a CPU
 * runs before one queued earlier there, whatever context queued that one.
 * Part 1 checks that premise where a race cannot hide it: with BH off
 * (no softirq, so no RCU tasklet here, until both are queued), callbacks
 * queued with interrupts off and then one queued normally; the normal
 * one must not run first. Part 2 is the torture's round from IPIs.
 */
static void barrier_irq_check(struct ktest_ctx *t)
{
	long got, want;

	rcu_barrier();			/* the callback machinery idle: round 0 cannot race */
	for (int r = 0; r < ORDER_ROUNDS; r++) {
		unsigned long flags;

		atomic_set(&order_early_run, 0);
		order_seen = -1;
		init_completion(&order_done);
		local_bh_disable();
		flags = local_irq_save();
		for (int i = 0; i < ORDER_CBS; i++)
			call_rcu(&order_early[i], order_early_cb, NULL);
		local_irq_restore(flags);
		call_rcu(&order_late, order_late_cb, NULL);
		local_bh_enable();
		KT_ASSERT(t, wait_for_completion_timeout(&order_done, 30 * HZ),
			  "round %d: the callback queued normally never ran", r);
		KT_ASSERT(t, order_seen == ORDER_CBS,
			  "round %d: a callback queued after %d with interrupts off ran when only "
			  "%d of them had: it overtook them, and rcu_barrier() would return early",
			  r, ORDER_CBS, order_seen);
	}
	kt_info("%d rounds: %d callbacks with interrupts off, then one normally, in order",
		ORDER_ROUNDS, ORDER_CBS);

	barrier_n = 16;
	for (int r = 0; r < IRQ_ROUNDS; r++)
		KT_ASSERT(t, barrier_round(BARRIER_IPI, &got, &want),
			  "round %d: rcu_barrier() returned with %ld of %ld callbacks queued from "
			  "IPIs run", r, got, want);
	kt_info("%d rounds: %lu callbacks per CPU from IPIs, all run by rcu_barrier()",
		IRQ_ROUNDS, barrier_n);
}

/* Callbacks queued from hard IRQ or with interrupts off, where that is legal. */
KTEST(torture_barrier_irq)
{
	if (!rcu_call_rcu_irq_safe()) {
		ktest_skip(t, "call_rcu() from IRQ is illegal here (seed 000 Table 1: BH only)");
		return;
	}
	barrier_irq_check(t);
}

/*
 * The same on the rcu-poll family, through the path its call_rcu() warns
 * about (a BUG: line and a WARNING, once) and defers: warned, but never
 * corrupted, so rcu_barrier() must still wait for those callbacks. Manual:
 * it makes the warning on purpose (tests/scenarios/rcu-poll-irq-warned.toml
 * names it).
 */
KTEST_MANUAL(torture_barrier_irq_warned)
{
	barrier_irq_check(t);
}
