/*
 * krcud (seed 000's "rcu"): Dipankar Sarma's read-copy update with per-CPU
 * krcud daemons, as seed 000 describes it in section 5.2 and Appendix A.2
 * (Figures 15-17; its callback processing is X-rcu's, Figures 35-39, with
 * the three differences A.2 lists). Each CPU counts its context switches;
 * a global timer, armed only while some CPU holds callbacks, wakes the
 * daemons, and each daemon moves its own CPU's callbacks along and
 * reports its CPU's quiescent state. Nothing runs from the tick, and
 * nothing at all while there are no callbacks. What it shares word for
 * word with X-rcu is in batch_common.c.
 *
 * The doc is docs/rcu/krcud.md: the data in the paper's names, one
 * callback's walk, its rows of seed 000 Tables 1 and 2, why it is slow,
 * where we depart from the paper and why, and the broken mode
 * (rcu_break=1).
 */
#include "rcu_internal.h"
#include <cmdline.h>
#include "batch_common.h"
#include <rcu_hooks.h>
#include <interrupt.h>
#include <softirq.h>
#include <semaphore.h>
#include <timer.h>
#include <time.h>
#include <sched.h>
#include <preempt.h>
#include <spinlock.h>
#include <percpu.h>
#include <smp.h>
#include <printk.h>
#include <panic.h>
#include <string.h>
#include <arch/cpu.h>

/*
 * rcu-preempt (seed 000 5.7) is this algorithm plus Figure 33's counters:
 * variants.mk builds this file with kernel/rcu/rcu_preempt.c, which provides
 * these (and the variant's name). For krcud they are nothing.
 */
#ifdef CONFIG_RCU_PREEMPT
#include "rcu_preempt.h"
#define rcu_break_base()	false	/* rcu_break breaks rcu_preempt.c's counters */
#else
#define rcu_break_base()	rcu_break
static inline void rcu_preempt_init_cpu(unsigned int cpu) { }
static inline bool rcu_preempt_switch_is_qs(bool voluntary) { return true; }
static inline void rcu_preempt_swap(void) { }
static inline bool rcu_preempt_cpu_quiet(void) { return true; }
static inline void rcu_preempt_show_cpu(unsigned int cpu) { }
static inline void rcu_preempt_cpu_dead(unsigned int cpu) { }
static inline void rcu_preempt_cpu_reonline(unsigned int cpu) { }
static inline void rcu_preempt_show_orphans(void) { }
#endif

/*
 * Table 2: "50ms global" timer. CONFIG_RCU_KRCUD_PERIOD_MS (default 50) is
 * the default; rcu_krcud.period_ms= sets it at boot, so a torture run can
 * ask for hundreds of grace periods a second without a build of its own.
 */
static unsigned long rcu_krcud_period_ms = CONFIG_RCU_KRCUD_PERIOD_MS;
CMDLINE_ULONG("rcu_krcud.period_ms", rcu_krcud_period_ms, 1, 1000,
	      "rcu_krcud.period_ms=N: how often rcu_timer runs while callbacks wait "
	      "(default CONFIG_RCU_KRCUD_PERIOD_MS, 1..1000)");
#define RCU_KRCUD_PERIOD	msecs_to_jiffies(READ_ONCE(rcu_krcud_period_ms))

/* rcu_lock, rcu_currbatch, rcu_maxbatch, rcu_cpumask: batch_common.c. */
cpumask_t rcu_active_cpumask;		/* atomic bit operations */
static void rcu_timeout(unsigned long data);
DEFINE_TIMER(rcu_timer, rcu_timeout, 0);
bool rcu_krcud_running;			/* daemons up, timers usable */

struct rcu_data {
	long qsctr;			/* RCU_qsctr: context switches so far */
	long last_qsctr;		/* RCU_last_qsctr: snapshot, or INVALID */
	rcu_batch_t batch;		/* RCU_batch: the batch curlist waits for */
	struct list_head nxtlist;	/* RCU_nxtlist: not yet in a batch */
	struct list_head curlist;	/* RCU_curlist: waiting for batch */
	struct list_head donelist;	/* RCU_donelist: grace period over */
	unsigned long nxtlen, curlen;	/* list lengths (statistics, gdb) */
	struct tasklet_struct tasklet;	/* RCU_tasklet (Figure 15) */
	struct semaphore krcud_sema;	/* up() by rcu_timeout(), down() by krcud */
	struct task *krcud_task;	/* this CPU's daemon */
	unsigned long krcud_runs;	/* daemon passes (statistics, gdb) */
	unsigned long krcud_wakeups;	/* up()s from rcu_timeout() */
};
DEFINE_PER_CPU(struct rcu_data, rcu_data);

#define krcud_sema(cpu)		(per_cpu(rcu_data, cpu).krcud_sema)
#define krcud_task(cpu)		(per_cpu(rcu_data, cpu).krcud_task)

unsigned long rcu_timeouts;		/* rcu_timeout() runs (statistics, gdb) */

#ifndef CONFIG_RCU_PREEMPT
/* Its name (docs/rcu/README.md), a string that gdb and the test runner
 * read from the ELF, and where the papers describe it (the boot line). */
const char rcu_variant_id[] = "krcud";
const char rcu_variant_paper[] = "rcu, seed 000 section 5.2";
#endif

/*
 * Figure 15: queue on this CPU's nxtlist, interrupts off (the tasklet and
 * the daemon edit it too), then schedule this CPU's tasklet, which starts
 * a batch for it and makes sure the timer runs. Before late init there is
 * no timer to arm: the callback waits on nxtlist for the daemon's first
 * pass (rcu_variant_late_init()).
 */
void call_rcu(struct rcu_head *head, void (*func)(void *arg), void *arg)
{
	unsigned long flags;
	struct rcu_data *rd;

	if (!rcu_prove_queue(head, func))
		return;	/* reported: queued already */

	head->func = func;
	head->arg = arg;
	flags = local_irq_save();
	rd = this_cpu_ptr(&rcu_data);
	list_add_tail(&head->list, &rd->nxtlist);
	rd->nxtlen++;
	rcu_stats_queued(head);
	local_irq_restore(flags);
	if (READ_ONCE(rcu_krcud_running))
		tasklet_schedule(&rd->tasklet);
}

/* Figure 39, rcu_reg_batch(): batch_common.c. */

/*
 * A.2 difference 3: this CPU holds callbacks, so the timeout must run.
 * Two sides decide whether it runs, on different CPUs: here "set my bit;
 * smp_mb(); arm the timer if it is not pending", and in rcu_timeout(),
 * which runs after the timer code took the timer off its wheel (a store),
 * "smp_mb(); re-arm if some bit is set". Each side stores and then loads
 * what the other stored: the store-buffering pattern, so both need the
 * fence. Without the handler's, x86 may run its read of the mask before
 * the dequeue is seen (the timer code's spin_unlock() is a plain store):
 * the handler finds no bit and does not re-arm, this CPU finds the timer
 * still pending and does not arm it, and the timer stops while callbacks
 * wait (docs/rcu/krcud.md).
 */
static void rcu_mark_active(int cpu)
{
	cpumask_set(cpu, &rcu_active_cpumask);
	smp_mb();		/* set the bit, then look at the timer */
	if (!timer_pending(&rcu_timer))
		mod_timer(&rcu_timer, jiffies + RCU_KRCUD_PERIOD);
}

/*
 * Figure 36: if curlist is empty and nxtlist is not, nxtlist becomes
 * curlist, to wait for batch rcu_currbatch + 1, which is registered
 * (batch_common.h, X-rcu's too); and this CPU becomes active.
 */
static void rcu_move_next_batch(void)
{
	int cpu = smp_processor_id();
	struct rcu_data *rd = this_cpu_ptr(&rcu_data);

	if (rcu_batch_move_next(&rd->nxtlist, &rd->nxtlen, &rd->curlist, &rd->curlen, &rd->batch))
		rcu_mark_active(cpu);
}

/*
 * Figure 37: has this CPU passed a quiescent state since it noticed the
 * current batch? The first call after the batch starts only snapshots
 * qsctr; a later one that sees qsctr moved clears this CPU's bit in
 * rcu_cpumask, and the CPU that clears the last bit ends the batch and
 * starts the next one if anyone asked for it.
 *
 * rcu_break=1 breaks it twice over, on purpose: the first look after the
 * batch starts already counts as a quiescent state (no wait for qsctr to
 * move: the tasklet may be running on top of a reader here), and the CPU
 * that reports one reports it for every CPU (clears the whole
 * rcu_cpumask), so the batch ends while readers elsewhere still run.
 */
static void rcu_check_quiescent_state(void)
{
	int cpu = smp_processor_id();
	struct rcu_data *rd = this_cpu_ptr(&rcu_data);

	if (!cpumask_test(cpu, &rcu_cpumask))
		return;
	/*
	 * qsctr moves only at context switches on this CPU, and we run on
	 * it with bottom halves off: no race with the counter but a switch
	 * we miss, which only delays the batch (the paper's comment).
	 */
	if (rcu_break_base())
		goto report;
	if (rd->last_qsctr == RCU_QSCTR_INVALID) {
		rcu_preempt_swap();	/* rcu-preempt: next and curr trade places */
		rd->last_qsctr = READ_ONCE(rd->qsctr);
		return;
	}
	if (READ_ONCE(rd->qsctr) == rd->last_qsctr)
		return;
	if (!rcu_preempt_cpu_quiet())
		return;			/* rcu-preempt: preempted readers remain */
report:
	rcu_batch_report_qs(cpu, &rd->last_qsctr, rcu_break_base());	/* batch_common.c */
}

/*
 * Figure 35 (+ A.2 difference 2): currlist's batch over -> donelist;
 * nxtlist -> currlist; report a quiescent state; invoke donelist; and if
 * this CPU now holds no callbacks, clear its bit in rcu_active_cpumask.
 * The tasklet of Figure 15, and the daemon's body (Figure 17), always on
 * this CPU in softirq or with bottom halves off.
 */
static void rcu_process_callbacks(unsigned long data)
{
	lockdep_assert_bh_disabled();	/* the tasklet, or the daemon with BH off */
	int cpu = smp_processor_id();
	struct rcu_data *rd = this_cpu_ptr(&rcu_data);

	rcu_batch_adopt_orphans(&rd->nxtlist, &rd->nxtlen);	/* CPU hotplug */
	rcu_batch_take_done(&rd->curlist, &rd->curlen, rd->batch, &rd->donelist);

	rcu_move_next_batch();

	rcu_check_quiescent_state();

	if (!list_empty(&rd->donelist))
		rcu_invoke_callbacks(&rd->donelist);

	/*
	 * Interrupts off, so no call_rcu() slips in between the look and the
	 * clear; one that comes after has scheduled this tasklet again, which
	 * sets the bit back (rcu_move_next_batch()).
	 */
	local_irq_disable();
	if (list_empty(&rd->nxtlist) && list_empty(&rd->curlist))
		cpumask_clear_cpu(cpu, &rcu_active_cpumask);
	local_irq_enable();
	(void)data;
}

/*
 * Figure 17, the SMP path: the global timeout wakes the daemons, which do
 * the work on their own CPUs. A CPU that owes the batch a quiescent state
 * is woken even if it holds no callbacks: its daemon must report. Runs in
 * TIMER_SOFTIRQ on the CPU that armed the timer; re-arms itself only while
 * callbacks exist anywhere.
 */
static void rcu_timeout(unsigned long data)
{
	cpumask_t wake;
	unsigned int cpu;

	rcu_timeouts++;
	smp_mb();		/* our dequeue, then the mask: pairs with rcu_mark_active() */
	cpumask_copy(&wake, &rcu_active_cpumask);
	for_each_online_cpu(cpu) {
		if (cpumask_test(cpu, &rcu_cpumask))	/* racy read: a miss waits one period */
			cpumask_set(cpu, &wake);
	}
	for_each_cpu(cpu, &wake) {
		per_cpu(rcu_data, cpu).krcud_wakeups++;
		up(&krcud_sema(cpu));
	}
	if (!cpumask_empty(&rcu_active_cpumask))
		mod_timer(&rcu_timer, jiffies + RCU_KRCUD_PERIOD);
	(void)data;
}

/*
 * The per-CPU daemon (the shape of Figure 27: highest real-time priority,
 * bound to its CPU). Each up() from rcu_timeout() is one pass of
 * rcu_process_callbacks() here; being switched in to make it is this
 * CPU's quiescent state for the pass after.
 */
static int krcud(void *arg)
{
	unsigned int cpu = (unsigned int)(unsigned long)arg;
	struct rcu_data *rd = per_cpu_ptr(&rcu_data, cpu);

	for (;;) {
		down(&rd->krcud_sema);
		local_bh_disable();		/* the tasklet edits the same lists */
		rd->krcud_runs++;
		rcu_process_callbacks(0);
		local_bh_enable();
	}
	return 0;
}

/* Figure 16: every context switch is a quiescent state (see read_side.h:
 * in a preemptive kernel no switch can happen inside a reader), except in
 * rcu-preempt, whose readers can be preempted. */
void rcu_hook_context_switch(bool voluntary)
{
	/* rcu-preempt: only a voluntary switch is a quiescent state. */
	if (rcu_preempt_switch_is_qs(voluntary)) {
		struct rcu_data *rd = this_cpu_ptr(&rcu_data);

		rd->qsctr++;
	}
}

/* The daemons do the work; the tick and idle hooks are batch_common.c's. */

void rcu_variant_init_cpu(unsigned int cpu)
{
	struct rcu_data *rd = per_cpu_ptr(&rcu_data, cpu);

	rd->qsctr = 1;
	rd->last_qsctr = RCU_QSCTR_INVALID;
	rcu_preempt_init_cpu(cpu);
	INIT_LIST_HEAD(&rd->nxtlist);
	INIT_LIST_HEAD(&rd->curlist);
	INIT_LIST_HEAD(&rd->donelist);
	tasklet_init(&rd->tasklet, rcu_process_callbacks, 0);
	sema_init(&rd->krcud_sema, 0);
}

/*
 * CPU hotplug (docs/hotplug.md), as Linux 2.6's rcupdate.c did for this
 * design (batch_common.c): the dying CPU leaves rcu_cpumask and
 * rcu_active_cpumask; its lists become orphans. The boot CPU is marked
 * active, so the timeout wakes its daemon, whose pass (or any CPU's
 * tasklet first) adopts them onto its nxtlist: a whole new batch, late
 * but never early. Its daemon stays bound to it, asleep, until it
 * returns. rcu-preempt (this file plus rcu_preempt.c) also moves the
 * tasks counted on the dying CPU to the orphan counters every batch
 * waits for (rcu_preempt_hotplug.c, from batch_common.c's offline path).
 */
bool rcu_variant_hotplug = true;

void rcu_variant_cpu_offline(unsigned int cpu)
{
	struct rcu_data *rd = per_cpu_ptr(&rcu_data, cpu);

	rcu_batch_cpu_offline(cpu, &rd->last_qsctr, &rd->donelist, &rd->curlist, &rd->nxtlist,
			      rd->curlen + rd->nxtlen);
	rd->curlen = rd->nxtlen = 0;
	cpumask_clear_cpu(cpu, &rcu_active_cpumask);
	if (rcu_batch_have_orphans() && READ_ONCE(rcu_krcud_running))
		rcu_mark_active(0);
}

/* On the CPU that ran cpu_down(): adopt the orphans now (rcu_hooks.h). */
void rcu_variant_cpu_dead(unsigned int cpu)
{
	struct rcu_data *rd;

	preempt_disable();
	rd = this_cpu_ptr(&rcu_data);
	rcu_batch_adopt_orphans(&rd->nxtlist, &rd->nxtlen);
	if (READ_ONCE(rcu_krcud_running))
		rcu_mark_active(smp_processor_id());
	preempt_enable();
	rcu_preempt_cpu_dead(cpu);	/* rcu-preempt: its counters drained */
}

void rcu_variant_cpu_reonline(unsigned int cpu)
{
	per_cpu_ptr(&rcu_data, cpu)->last_qsctr = RCU_QSCTR_INVALID;
	rcu_preempt_cpu_reonline(cpu);
}

void rcu_variant_init(void)
{
}

/*
 * Threads and timers exist now: start one krcud per CPU, then give each
 * one pass, which picks up whatever call_rcu() queued during boot (and
 * arms rcu_timer if there was any).
 */
void rcu_variant_late_init(void)
{
	unsigned int cpu;

	for_each_online_cpu(cpu) {
		struct task *p = kthread_create_on_cpu(krcud, (void *)(unsigned long)cpu, cpu,
						       "krcud_CPU%u", cpu);

		if (!p)
			panic("rcu: cannot create krcud_CPU%u", cpu);
		sched_setscheduler(p, SCHED_FIFO, MAX_RT_PRIO - 1);
		krcud_task(cpu) = p;
		wake_up_process(p);
	}
	smp_mb();
	WRITE_ONCE(rcu_krcud_running, true);
	for_each_online_cpu(cpu)
		up(&krcud_sema(cpu));
}

/* rcu_variant_stall_info(): batch_common.c. */

void rcu_variant_show_state(void)
{
	unsigned int cpu;

	printk("rcu (krcud): rcu_currbatch %ld rcu_maxbatch %ld rcu_cpumask %#lx rcu_active_cpumask %#lx "
	       "rcu_timer %s expires %lu (jiffies %lu) timeouts %lu\n",
	       rcu_currbatch, rcu_maxbatch, rcu_cpumask.bits[0], rcu_active_cpumask.bits[0],
	       timer_pending(&rcu_timer) ? "armed" : "not armed", rcu_timer.expires, jiffies,
	       rcu_timeouts);
	for_each_online_cpu(cpu) {
		struct rcu_data *rd = per_cpu_ptr(&rcu_data, cpu);
		printk("rcu (krcud): cpu%u: qsctr %ld last_qsctr %ld batch %ld nxtlist %lu curlist %lu "
		       "krcud runs %lu wakeups %lu\n",
		       cpu, rd->qsctr, rd->last_qsctr, rd->batch, rd->nxtlen, rd->curlen,
		       rd->krcud_runs, rd->krcud_wakeups);
		rcu_preempt_show_cpu(cpu);
	}
	rcu_preempt_show_orphans();
}
