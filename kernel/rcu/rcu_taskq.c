/*
 * taskq (rcu-taskq): Dipankar Sarma's minimal read-copy update, as seed 000
 * describes it in section 5.5 (Figures 24-27): one global list of waiting
 * callbacks, one task on the keventd work queue that waits for a grace
 * period and invokes them, and a SCHED_FIFO daemon per CPU, krcud, whose
 * running proves that its CPU has passed through the scheduler. It makes
 * its quiescent states instead of observing them, so with no callback in
 * flight it costs nothing: the context-switch, tick and idle hooks are
 * empty.
 *
 * The doc is docs/rcu/taskq.md: the data in the paper's names, one
 * callback's walk, its row of seed 000 Table 1, and the broken mode
 * (rcu_break=1). The notes the code cites by number ("note 6", CPU
 * hotplug among them) are its "Where we differ from the figures".
 */
#include "rcu_internal.h"
#include <rcu_hooks.h>
#include <workqueue.h>
#include <semaphore.h>
#include <mutex.h>
#include <spinlock.h>
#include <percpu.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <printk.h>
#include <panic.h>
#include <arch/cpu.h>

spinlock_t rcu_lock = SPINLOCK_INIT("rcu_lock");
LIST_HEAD(rcu_wait_list);			/* rcu_lock */
unsigned long rcu_wait_len;			/* rcu_lock (statistics, gdb) */
unsigned long rcu_current_len;			/* the snapshot being waited for (gdb) */
struct list_head *rcu_current;			/* &rcu_current_list while waited for (gdb) */
bool rcu_taskq_ready;				/* rcu_lock: keventd and krcud exist */
unsigned long rcu_gpnum;			/* grace periods started */
int rcu_gp_waiter_cpu = -1;			/* the CPU running wait_for_rcu(), or -1 */
cpumask_t rcu_gp_woken;				/* daemons woken for grace period rcu_gpnum */
cpumask_t rcu_gp_owing;				/* of those, not yet answered (note 6) */
unsigned long rcu_task_runs;			/* process_pending_rcus() calls */
unsigned long rcu_task_starts;			/* schedule_task() calls from call_rcu() */
unsigned long rcu_krcud_skipped;		/* daemons not woken (rcu_break) */

static void process_pending_rcus(struct work_struct *w);
DECLARE_WORK(rcu_task, process_pending_rcus);
static DEFINE_MUTEX(rcu_gp_mutex);		/* note 1 */

/* Figure 27's per-CPU data. */
struct krcud_data {
	struct semaphore sema;			/* krcud_sema(cpu) */
	struct task *task;			/* krcud_task(cpu) */
	unsigned long gp;			/* krcud_gp: the last grace period it answered */
	unsigned long runs;			/* wake-ups answered */
};
DEFINE_PER_CPU(struct krcud_data, krcud_data);
#define krcud_sema(cpu)		(per_cpu(krcud_data, cpu).sema)
#define krcud_task(cpu)		(per_cpu(krcud_data, cpu).task)
cpumask_t rcu_krcud_mask;			/* CPUs that have a daemon */

DEFINE_SEMAPHORE(rcu_sema, 0);

/* Its name (docs/rcu/README.md), a string that gdb and the test runner
 * read from the ELF, and where the papers describe it (the boot line). */
const char rcu_variant_id[] = "taskq";
const char rcu_variant_paper[] = "rcu-taskq, seed 000 section 5.5";

/* Figure 24. Interrupts off: call_rcu() is IRQ-safe (Table 1). */
void call_rcu(struct rcu_head *head, void (*func)(void *arg), void *arg)
{
	unsigned long flags;
	int start = 0;

	if (!rcu_prove_queue(head, func))
		return;	/* reported: queued already */

	head->func = func;
	head->arg = arg;
	rcu_stats_queued(head);

	flags = spin_lock_irqsave(&rcu_lock);
	if (list_empty(&rcu_wait_list) && rcu_taskq_ready)	/* note 2 */
		start = 1;
	list_add_tail(&head->list, &rcu_wait_list);	/* the paper: list_add(); note 4 */
	rcu_wait_len++;
	if (start)
		rcu_task_starts++;
	spin_unlock_irqrestore(&rcu_lock, flags);

	if (start)
		schedule_work_on(0, &rcu_task);	/* note 6: schedule_task(), on the boot CPU */
}

/* How long wait_for_rcu() sleeps before it looks for a stall (note 3). */
static long stall_check_jiffies(void)
{
	long j = (long)msecs_to_jiffies(rcu_stall_timeout_ms() / 4);

	return j > 0 ? j : 1;
}

/*
 * Figure 26: wake the krcud daemon of every other CPU and wait until each
 * has run. Returns when every CPU has passed a quiescent state since the
 * call. rcu_gp_mutex held, on a keventd worker (bound to its CPU).
 */
static void wait_for_rcu(void)
{
	unsigned int self = smp_processor_id();
	unsigned int cpu, skip = ~0U;
	int count = 0;

	rcu_gpnum++;
	rcu_gp_count_start();		/* before any daemon is asked */
	WRITE_ONCE(rcu_gp_waiter_cpu, (int)self);
	cpumask_clear(&rcu_gp_woken);
	if (rcu_break) {
		/* Broken on purpose: one other CPU is never asked. */
		for_each_cpu(cpu, &rcu_krcud_mask)
			if (cpu != self && cpu_online(cpu))
				skip = cpu;
	}
	for_each_cpu(cpu, &rcu_krcud_mask)
		if (cpu != self && cpu != skip && cpu_online(cpu))	/* note 6 */
			cpumask_set(cpu, &rcu_gp_woken);
	cpumask_copy(&rcu_gp_owing, &rcu_gp_woken);
	rcu_gp_begin(rcu_gpnum);
	smp_mb();		/* the updaters' removals and the snapshot before the wake-ups */

	for_each_cpu(cpu, &rcu_krcud_mask) {
		if (cpu == self)
			continue;
		if (cpu == skip) {
			rcu_krcud_skipped++;
			continue;
		}
		if (!cpumask_test(cpu, &rcu_gp_woken))
			continue;
		up(&krcud_sema(cpu));
		count++;
	}
	/*
	 * Woken, but offline since (note 6): answer for it, unless it did so
	 * itself on the way down. Our store of rcu_gp_owing and read of
	 * cpu_online_mask, against its clearing of the mask and test of
	 * rcu_gp_owing, a full barrier between each pair: one of us sees
	 * the other.
	 */
	for_each_cpu(cpu, &rcu_gp_woken)
		if (!cpu_online(cpu) && cpumask_test_and_clear(cpu, &rcu_gp_owing))
			count--;
	while (count > 0) {
		if (down_timeout(&rcu_sema, stall_check_jiffies()) == 0)
			count--;
		else
			rcu_check_stall();		/* note 3 */
	}
	smp_mb();		/* the daemons' answers before the callbacks run */
	rcu_stats_qs();		/* this CPU's own: keventd is running on it */
	rcu_trace_qs(smp_processor_id());
	rcu_gp_end(rcu_gpnum);
	WRITE_ONCE(rcu_gp_waiter_cpu, -1);
}

/* Figure 25: the keventd task. */
static void process_pending_rcus(struct work_struct *w)
{
	LIST_HEAD(rcu_current_list);
	unsigned long flags;

	mutex_lock(&rcu_gp_mutex);		/* note 1 */
	rcu_task_runs++;
	flags = spin_lock_irqsave(&rcu_lock);
	list_splice_init(&rcu_wait_list, &rcu_current_list);
	rcu_current_len = rcu_wait_len;
	rcu_wait_len = 0;
	spin_unlock_irqrestore(&rcu_lock, flags);

	if (!list_empty(&rcu_current_list)) {
		rcu_stats_list_len(rcu_current_len);
		WRITE_ONCE(rcu_current, &rcu_current_list);
		wait_for_rcu();
		WRITE_ONCE(rcu_current, NULL);
		rcu_current_len = 0;
	}
	mutex_unlock(&rcu_gp_mutex);

	if (!list_empty(&rcu_current_list))
		rcu_invoke_callbacks(&rcu_current_list);
	(void)w;
}

/* Figure 27: the per-CPU daemon. Running here is the quiescent state. */
static int krcud(void *arg)
{
	unsigned int cpu = (unsigned int)(unsigned long)arg;
	struct krcud_data *kd = per_cpu_ptr(&krcud_data, cpu);

	BUG_ON(smp_processor_id() != cpu);
	for (;;) {
		down(&kd->sema);
		kd->runs++;
		if (!cpumask_test_and_clear(cpu, &rcu_gp_owing))
			continue;	/* answered as it went offline (note 6) */
		WRITE_ONCE(kd->gp, READ_ONCE(rcu_gpnum));
		rcu_stats_qs();
		rcu_trace_qs(cpu);
		up(&rcu_sema);
	}
	return 0;
}

/*
 * The hooks: nothing at all. rcu-taskq forces its quiescent states with
 * the daemons instead of counting them, and looks for stalls from
 * wait_for_rcu() (note 3): zero cycles in the context switch, the tick
 * and the idle loop, with or without callbacks in flight.
 */
void rcu_hook_context_switch(bool voluntary)
{
	(void)voluntary;
}

void rcu_hook_tick(enum tick_context ctx)
{
	(void)ctx;
}

void rcu_hook_idle(void)
{
}

/*
 * CPU hotplug (note 6): on the dying CPU, interrupts off, out of
 * cpu_online_mask (a full barrier after): if the grace period in flight
 * woke its daemon and has no answer yet, the CPU's going away is it.
 */
bool rcu_variant_hotplug = true;

void rcu_variant_cpu_offline(unsigned int cpu)
{
	if (cpumask_test_and_clear(cpu, &rcu_gp_owing)) {
		WRITE_ONCE(per_cpu(krcud_data, cpu).gp, READ_ONCE(rcu_gpnum));
		rcu_stats_qs();
		rcu_trace_qs(cpu);
		up(&rcu_sema);
	}
}

void rcu_variant_init_cpu(unsigned int cpu)
{
	/* Daemons are started in rcu_variant_late_init(), for the CPUs
	 * online then; a CPU without one is simply not waited for, which is
	 * safe only because every CPU is up before late init. */
	(void)cpu;
}

/* Nothing: rcu_wait_list is static, and call_rcu() only queues until
 * late init (note 2). The per-CPU semaphores are set up there, once every
 * CPU's per-CPU area exists. */
void rcu_variant_init(void)
{
}

/* spawn_krcud(), then start what call_rcu() queued before now (note 2). */
/* Figure 26: every grace period wakes a SCHED_FIFO daemon on every other
 * CPU, a forced switch, so an expedited one is a normal one (update.c). */
bool rcu_variant_gp_forced(void)
{
	return true;
}

void rcu_variant_late_init(void)
{
	unsigned long flags;
	unsigned int cpu;
	bool start;

	for_each_online_cpu(cpu)
		sema_init(&krcud_sema(cpu), 0);
	for_each_online_cpu(cpu) {
		struct task *p = kthread_create_on_cpu(krcud, (void *)(unsigned long)cpu, cpu,
						       "krcud_CPU%u", cpu);

		BUG_ON(!p);
		sched_setscheduler(p, SCHED_FIFO, MAX_RT_PRIO - 1);
		krcud_task(cpu) = p;
		cpumask_set(cpu, &rcu_krcud_mask);
		wake_up_process(p);
	}
	smp_mb();
	flags = spin_lock_irqsave(&rcu_lock);
	rcu_taskq_ready = true;
	start = !list_empty(&rcu_wait_list);
	if (start)
		rcu_task_starts++;
	spin_unlock_irqrestore(&rcu_lock, flags);
	if (start)
		schedule_work_on(0, &rcu_task);	/* note 6 */
}

/*
 * From rcu_check_stall() in wait_for_rcu() (note 3), so never from the
 * tick: no lock is needed, the data are the waiter's own and the
 * daemons' answers.
 */
bool rcu_variant_stall_info(struct rcu_stall_info *si)
{
	unsigned int cpu;

	si->gpnum = READ_ONCE(rcu_gpnum);
	cpumask_clear(&si->owing);
	if (READ_ONCE(rcu_gp_waiter_cpu) < 0)
		return false;
	for_each_cpu(cpu, &rcu_gp_owing)
		cpumask_set(cpu, &si->owing);
	return !cpumask_empty(&si->owing);
}

void rcu_variant_show_state(void)
{
	unsigned int cpu;

	printk("rcu-taskq: gpnum %lu waiter cpu %d woken %#lx wait_list %lu current %lu "
	       "task runs %lu starts %lu skipped %lu rcu_sema %u\n",
	       rcu_gpnum, rcu_gp_waiter_cpu, rcu_gp_woken.bits[0], rcu_wait_len, rcu_current_len,
	       rcu_task_runs, rcu_task_starts, rcu_krcud_skipped, rcu_sema.count);
	for_each_cpu(cpu, &rcu_krcud_mask) {
		struct krcud_data *kd = per_cpu_ptr(&krcud_data, cpu);

		printk("rcu-taskq: cpu%u: krcud answered gp %lu runs %lu sema %u%s\n",
		       cpu, kd->gp, kd->runs, kd->sema.count,
		       (rcu_gp_waiter_cpu >= 0 && cpumask_test(cpu, &rcu_gp_woken) &&
			cpumask_test(cpu, &rcu_gp_owing)) ? " (owes a quiescent state)" : "");
	}
}
