/*
 * krcud callback offload: seed 003 section 4.1, Figures 2-8
 * (CONFIG_RCU_KRCUD_OFFLOAD; docs/rcu/realtime.md).
 *
 * The problem (section 3): a variant's rcu_do_batch() runs every callback
 * whose grace period has ended from its tasklet, in softirq context, where
 * nothing can preempt it. A real-time task woken by the same timer tick
 * waits for the whole batch (seed 003 section 3 measures it).
 *
 * The fix: when rcu_do_batch() runs from softirq and a real-time task is
 * runnable on this CPU (rq_has_rt_task(), Figure 2), it invokes at most
 * bhlimit callbacks (Figure 5) and puts the rest on this CPU's rcudlist
 * for this CPU's krcud, a kernel thread at normal priority that invokes
 * them preemptibly (Figure 8), so the real-time task runs first.
 *
 * Data (the paper's names): per CPU, RCU_rcudlist (callbacks waiting for
 * krcud) and RCU_krcud (the thread; NULL until it has started, which is
 * what Figure 5 tests); bhlimit, the command-line option (default 256;
 * 0 starts no thread, as Figure 7 does).
 *
 * Where we depart from the paper:
 * 1. Order. Figure 4 line 15 puts the rest at the head of rcudlist, so a
 *    later batch's callbacks can run before an earlier one's ("we do not
 *    know any situation where such reordering is harmful"). rcu_barrier()
 *    is one: it relies on each CPU's callbacks running in the order they
 *    were queued. So we append to the tail, and while krcud still has a
 *    backlog on this CPU the softirq hands it every new batch
 *    (rcu_offload_pending()), keeping per-CPU order.
 * 2. krcud runs each callback with bottom halves off (Figure 8 runs them
 *    with bottom halves on): callbacks are written for softirq context and
 *    may take a lock that a softirq on this CPU also takes. Preemption is
 *    then possible between any two callbacks, which is what matters.
 * 3. No CPU hotplug in Quiescent: krcud threads start once, for the
 *    online CPUs, at late init (Figure 6's CPU_ONLINE case is not built).
 * 4. The thread runs at normal priority (Figure 8 line 5: nice -19, the
 *    highest non-realtime priority; Quiescent has one normal priority).
 */
#include "rcu_internal.h"
#include "rt.h"
#include <sched.h>
#include <smp.h>
#include <percpu.h>
#include <cmdline.h>
#include <printk.h>
#include <panic.h>

#define BHLIMIT_DEFAULT	256
#define BHLIMIT_MAX	1000000

struct rcu_offload_data {
	struct list_head rcudlist;	/* RCU_rcudlist: krcud's callbacks */
	unsigned long rcudlen;		/* its length (gdb) */
	struct task *krcud;		/* RCU_krcud: NULL until it runs */
	unsigned long offloaded, offloads, invoked;
};

static DEFINE_PER_CPU(struct rcu_offload_data, rcu_offload_data);
static unsigned long bhlimit = BHLIMIT_DEFAULT;
bool rcu_offload_on = true;		/* run-time switch (rcu_rt_set_mode()) */

#define RCU_rcudlist(cpu)	(per_cpu(rcu_offload_data, cpu).rcudlist)
#define RCU_krcud(cpu)		(per_cpu(rcu_offload_data, cpu).krcud)

CMDLINE_ULONG("bhlimit", bhlimit, 0, BHLIMIT_MAX,
	      "bhlimit=N: most RCU callbacks run from softirq while a real-time task is "
	      "runnable; the rest go to krcud; 0 = no krcud (default 256, 0..1000000)");

/* Figure 5: the batch limit for rcu_do_batch() on this CPU now. */
unsigned long rcu_bh_callback_limit(unsigned int cpu)
{
	if (READ_ONCE(rcu_offload_on) && in_softirq() && READ_ONCE(RCU_krcud(cpu)))
		return bhlimit;
	return RCU_RT_NO_LIMIT;
}

/* Softirq, this CPU: is krcud still working through earlier callbacks? */
bool rcu_offload_pending(unsigned int cpu)
{
	return READ_ONCE(RCU_krcud(cpu)) && !list_empty(&RCU_rcudlist(cpu));
}

/*
 * Figure 4 lines 15-16, from softirq on cpu: list's n callbacks go to the
 * tail of rcudlist (departure 1) and krcud is woken. krcud takes them off
 * with bottom halves disabled, so the two never edit rcudlist at once.
 */
void rcu_offload(unsigned int cpu, struct list_head *list, unsigned long n)
{
	struct rcu_offload_data *o = per_cpu_ptr(&rcu_offload_data, cpu);

	list_splice_tail_init(list, &o->rcudlist);
	o->rcudlen += n;
	o->offloaded += n;
	o->offloads++;
	wake_up_process(o->krcud);
}

/* Figure 8: krcud, bound to its CPU, invokes rcudlist preemptibly. */
static int krcud(void *arg)
{
	unsigned int cpu = (unsigned long)arg;
	struct rcu_offload_data *o = per_cpu_ptr(&rcu_offload_data, cpu);
	LIST_HEAD(list);

	BUG_ON(smp_processor_id() != cpu);
	WRITE_ONCE(current->state, TASK_INTERRUPTIBLE);
	smp_mb();			/* our state before RCU_krcud is seen */
	WRITE_ONCE(o->krcud, current);
	for (;;) {
		/* State first, then the check: a wake-up in between is kept. */
		if (list_empty(&o->rcudlist))
			schedule();
		WRITE_ONCE(current->state, TASK_RUNNING);
		local_bh_disable();
		while (!list_empty(&o->rcudlist)) {
			list_splice_init(&o->rcudlist, &list);
			o->rcudlen = 0;
			local_bh_enable();
			while (!list_empty(&list)) {
				local_bh_disable();	/* departure 2 */
				rcu_invoke_one(&list);
				o->invoked++;
				local_bh_enable();
				cond_resched();		/* non-preemptive kernel */
			}
			local_bh_disable();
		}
		WRITE_ONCE(current->state, TASK_INTERRUPTIBLE);
		local_bh_enable();
		smp_mb();
	}
	return 0;
}

/* Figure 7: start cpu's krcud and wait until it can take callbacks. */
static int start_krcud(unsigned int cpu)
{
	struct task *t;

	if (!bhlimit)
		return 0;
	INIT_LIST_HEAD(&RCU_rcudlist(cpu));
	t = kthread_create_on_cpu(krcud, (void *)(unsigned long)cpu, cpu, "krcud/%u", cpu);
	if (!t) {
		printk("rcu: krcud for cpu%u failed\n", cpu);
		return -1;
	}
	wake_up_process(t);
	put_task(t);
	while (!READ_ONCE(RCU_krcud(cpu)))
		yield();
	return 0;
}

void rcu_offload_cpu_online(unsigned int cpu)
{
	INIT_LIST_HEAD(&RCU_rcudlist(cpu));
}

/* Figure 6's boot-time half: rcu_late_init() starts every online CPU's krcud. */
void rcu_offload_late_init(void)
{
	unsigned int cpu, n = 0;

	for_each_online_cpu(cpu)
		if (!start_krcud(cpu) && bhlimit)
			n++;
	if (bhlimit)
		printk("rcu: krcud offload: bhlimit=%lu, %u krcud threads\n", bhlimit, n);
	else
		printk("rcu: krcud offload: off (bhlimit=0)\n");
}

void rcu_offload_get_stats(struct rcu_rt_stats *s)
{
	unsigned int cpu;

	for_each_online_cpu(cpu) {
		struct rcu_offload_data *o = per_cpu_ptr(&rcu_offload_data, cpu);

		s->offloaded += READ_ONCE(o->offloaded);
		s->offloads += READ_ONCE(o->offloads);
		s->krcud_invoked += READ_ONCE(o->invoked);
	}
}

bool rcu_offload_available(void)
{
	return bhlimit && READ_ONCE(RCU_krcud(0));
}
