/*
 * xrcu (X-rcu): the read-copy update of seed 000 section 5.1 and Appendix
 * A.1 (Figures 12-14 and 34-39), "loosely based on the ptx
 * read-copy-update implementation": per-CPU callback lists, a per-CPU
 * context-switch counter, and a per-CPU kernel timer that also counts the
 * idle loop as a quiescent state and moves this CPU's callbacks along.
 * What it shares word for word with krcud is in batch_common.c.
 *
 * The doc is docs/rcu/xrcu.md: the data in the paper's names, what drives
 * it, one callback's walk (and why it waits for two batches), its rows of
 * seed 000 Tables 1 and 2, how the timer knows the CPU is idle (the
 * paper's task_idle(current), which rcu_idle_now() replaces), and the
 * departures from the printed figures.
 */
#include "rcu_internal.h"
#include "batch_common.h"
#include <rcu_hooks.h>
#include <timer.h>
#include <time.h>
#include <sched.h>
#include <preempt.h>
#include <spinlock.h>
#include <percpu.h>
#include <smp.h>
#include <printk.h>
#include <cmdline.h>
#include <string.h>
#include <arch/cpu.h>

/*
 * The paper's "every 5 jiffies". CONFIG_RCU_XRCU_PERIOD is the default;
 * rcu_xrcu.period= sets it at boot (a torture run asks for 1).
 */
static unsigned long rcu_xrcu_period = CONFIG_RCU_XRCU_PERIOD;
CMDLINE_ULONG("rcu_xrcu.period", rcu_xrcu_period, 1, 100,
	      "rcu_xrcu.period=N: each CPU's X-rcu timer period in jiffies "
	      "(default CONFIG_RCU_XRCU_PERIOD, 1..100)");
#define RCU_XRCU_PERIOD		READ_ONCE(rcu_xrcu_period)	/* jiffies */

/* rcu_lock, rcu_currbatch, rcu_maxbatch, rcu_cpumask: batch_common.c. */

struct rcu_data {
	long qsctr;			/* rcu_qsctr: quiescent states so far */
	long last_qsctr;		/* rcu_last_qsctr: snapshot, or INVALID */
	rcu_batch_t batch;		/* rcu_batch: the batch currlist waits for */
	struct list_head nextlist;	/* rcu_nextlist: not yet in a batch */
	struct list_head currlist;	/* rcu_currlist: waiting for batch */
	struct list_head donelist;	/* rcu_donelist: grace period over */
	unsigned long nextlen, currlen;	/* list lengths (statistics, gdb) */
	unsigned long idle_qs;		/* quiescent states the timer counted */
	unsigned long timer_runs;	/* rcu_percpu_tick() calls */
	struct timer_list timer;	/* the per-CPU timer of Figure 14 */
};
DEFINE_PER_CPU(struct rcu_data, rcu_data);

/* Its name (docs/rcu/README.md), a string that gdb and the test runner
 * read from the ELF, and where the papers describe it (the boot line). */
const char rcu_variant_id[] = "xrcu";
const char rcu_variant_paper[] = "X-rcu, seed 000 section 5.1";

/* Figure 12. Interrupts off: this CPU's timer also edits nextlist. */
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
	list_add_tail(&head->list, &rd->nextlist);
	rd->nextlen++;
	rcu_stats_queued(head);
	local_irq_restore(flags);
}

/* Figure 39, rcu_reg_batch(): batch_common.c. */

/*
 * Figure 36: if currlist is empty and nextlist is not, nextlist becomes
 * currlist, to wait for batch rcu_currbatch + 1, which is registered
 * (batch_common.h, krcud's too).
 */
static void rcu_move_next_batch(void)
{
	struct rcu_data *rd = this_cpu_ptr(&rcu_data);

	rcu_batch_move_next(&rd->nextlist, &rd->nextlen, &rd->currlist, &rd->currlen, &rd->batch);
}

/*
 * Figure 37: has this CPU passed a quiescent state since it noticed the
 * current batch? The first call after the batch starts only snapshots
 * qsctr; a later one that sees qsctr moved clears this CPU's bit in
 * rcu_cpumask, and the CPU that clears the last bit ends the batch and
 * starts the next one if anyone asked for it.
 */
static void rcu_check_quiescent_state(void)
{
	int cpu = smp_processor_id();
	struct rcu_data *rd = this_cpu_ptr(&rcu_data);

	if (!cpumask_test(cpu, &rcu_cpumask))
		return;
	/*
	 * May race with the context-switch counter; in the worst case we
	 * miss one quiescent state of this CPU, which is tolerable (the
	 * paper's comment, lines 10-16). So no need to disable interrupts.
	 */
	if (rcu_break)			/* broken on purpose: no snapshot, no wait */
		goto report;
	if (rd->last_qsctr == RCU_QSCTR_INVALID) {
		rd->last_qsctr = READ_ONCE(rd->qsctr);
		return;
	}
	if (READ_ONCE(rd->qsctr) == rd->last_qsctr)
		return;
report:
	rcu_batch_report_qs(cpu, &rd->last_qsctr, false);	/* batch_common.c */
}

/*
 * Figure 35: currlist's batch over -> donelist; nextlist -> currlist;
 * report a quiescent state; invoke donelist. From this CPU's timer
 * (softirq), interrupts on.
 */
static void rcu_process_callbacks(void)
{
	lockdep_assert_bh_disabled();	/* this CPU's timer, a softirq */
	struct rcu_data *rd = this_cpu_ptr(&rcu_data);

	rcu_batch_adopt_orphans(&rd->nextlist, &rd->nextlen);	/* CPU hotplug */
	rcu_batch_take_done(&rd->currlist, &rd->currlen, rd->batch, &rd->donelist);

	rcu_move_next_batch();

	rcu_check_quiescent_state();

	if (!list_empty(&rd->donelist))
		rcu_invoke_callbacks(&rd->donelist);
}

/*
 * Is this CPU in its idle loop right now, with nothing else in progress
 * under us (the paper's task_idle(current); see the header comment)?
 */
static bool rcu_idle_now(void)
{
	return current->is_idle && READ_ONCE(cpu_local()->in_idle) &&
	       (preempt_count() & (HARDIRQ_MASK | SOFTIRQ_MASK)) == SOFTIRQ_OFFSET;
}

/* Figure 14: the per-CPU timer, every RCU_XRCU_PERIOD jiffies. */
static void rcu_percpu_tick(unsigned long data)
{
	struct rcu_data *rd = this_cpu_ptr(&rcu_data);

	rd->timer_runs++;
	/* Check for idle loop. (rcu_break=1 instead skips the snapshot in
	 * rcu_check_quiescent_state(): a CPU reports at once, reader or not.) */
	if (rcu_idle_now()) {
		rd->qsctr++;
		rd->idle_qs++;
	}
	rcu_process_callbacks();
	mod_timer(&rd->timer, jiffies + RCU_XRCU_PERIOD);
	(void)data;
}

/* Figure 13: every context switch is a quiescent state (see read_side.h:
 * in a preemptive kernel no switch can happen inside a reader). */
void rcu_hook_context_switch(bool voluntary)
{
	struct rcu_data *rd = this_cpu_ptr(&rcu_data);

	rd->qsctr++;
	(void)voluntary;
}

/* The timer does X-rcu's work; the tick and idle hooks are batch_common.c's. */

void rcu_variant_init_cpu(unsigned int cpu)
{
	struct rcu_data *rd = per_cpu_ptr(&rcu_data, cpu);

	rd->qsctr = 1;
	rd->last_qsctr = RCU_QSCTR_INVALID;
	INIT_LIST_HEAD(&rd->nextlist);
	INIT_LIST_HEAD(&rd->currlist);
	INIT_LIST_HEAD(&rd->donelist);
	setup_timer(&rd->timer, rcu_percpu_tick, cpu);
}

/*
 * CPU hotplug (docs/hotplug.md). The paper's X-rcu predates hotplug; we
 * do what Linux 2.6's rcupdate.c did for its descendant (batch_common.c):
 * the dying CPU leaves rcu_cpumask and its three lists become orphans,
 * adopted onto the nextlist of the next CPU whose timer runs (or of the
 * CPU that ran cpu_down()). Its per-CPU timer is stopped here (else
 * timers_migrate() would move it to a CPU whose own lists it does not
 * serve) and rearmed on the CPU when it returns. Interrupts off,
 * cpu_online_mask without it already.
 */
bool rcu_variant_hotplug = true;

void rcu_variant_cpu_offline(unsigned int cpu)
{
	struct rcu_data *rd = per_cpu_ptr(&rcu_data, cpu);

	del_timer(&rd->timer);
	rcu_batch_cpu_offline(cpu, &rd->last_qsctr, &rd->donelist, &rd->currlist,
			      &rd->nextlist, rd->currlen + rd->nextlen);
	rd->currlen = rd->nextlen = 0;
}

/* On the CPU that ran cpu_down(): adopt the orphans now (rcu_hooks.h). */
void rcu_variant_cpu_dead(unsigned int cpu)
{
	struct rcu_data *rd;

	preempt_disable();
	rd = this_cpu_ptr(&rcu_data);
	rcu_batch_adopt_orphans(&rd->nextlist, &rd->nextlen);
	preempt_enable();
	(void)cpu;
}

void rcu_variant_cpu_reonline(unsigned int cpu)
{
	struct rcu_data *rd = per_cpu_ptr(&rcu_data, cpu);

	rd->last_qsctr = RCU_QSCTR_INVALID;
	rd->timer.expires = jiffies + RCU_XRCU_PERIOD;
	add_timer_on(&rd->timer, cpu);
}

void rcu_variant_init(void)
{
}

/* Timers exist now (timers_init() ran after the other CPUs came up). */
void rcu_variant_late_init(void)
{
	unsigned int cpu;

	for_each_online_cpu(cpu) {
		struct rcu_data *rd = per_cpu_ptr(&rcu_data, cpu);

		rd->timer.expires = jiffies + RCU_XRCU_PERIOD;
		add_timer_on(&rd->timer, cpu);
	}
}

/* rcu_variant_stall_info(): batch_common.c. */

void rcu_variant_show_state(void)
{
	unsigned int cpu;

	printk("x-rcu: rcu_currbatch %ld rcu_maxbatch %ld rcu_cpumask %#lx period %lu jiffies\n",
	       rcu_currbatch, rcu_maxbatch, rcu_cpumask.bits[0], RCU_XRCU_PERIOD);
	for_each_online_cpu(cpu) {
		struct rcu_data *rd = per_cpu_ptr(&rcu_data, cpu);
		printk("x-rcu: cpu%u: qsctr %ld last_qsctr %ld batch %ld nextlist %lu currlist %lu "
		       "timer %s expires %lu (jiffies %lu) runs %lu idle_qs %lu\n",
		       cpu, rd->qsctr, rd->last_qsctr, rd->batch, rd->nextlen, rd->currlen,
		       timer_pending(&rd->timer) ? "armed" : "NOT armed", rd->timer.expires,
		       jiffies, rd->timer_runs, rd->idle_qs);
	}
}
