/*
 * Throttling RCU callbacks: seed 003 section 4.3, Figures 13-15
 * (CONFIG_RCU_THROTTLE; docs/rcu/realtime.md).
 *
 * rcu_do_batch() invokes at most rcumaxbatch callbacks from one softirq
 * run while a real-time task is runnable on the CPU (Figure 2; section 4
 * names throttling among the solutions that need that test, though
 * Figure 14 leaves it out); when it stops there, it plugs this CPU's RCU_donelist for
 * rcuplugticks ticks (RCU_plugticks, counted down by every tick of this
 * CPU; the paper did it in scheduler_tick(), we in the RCU tick hook that
 * scheduler_tick's caller already calls). With rcuplugticks=0 the tasklet
 * is rescheduled at once instead (Figure 14 lines 15-16): __do_softirq()
 * then runs it again, at most MAX_SOFTIRQ_RESTART times, and leaves the
 * rest to ksoftirqd, which can be preempted between passes. Either way a
 * real-time task waits for at most a few short bursts (Figure 13).
 *
 * Done callbacks wait on RCU_donelist (the variant's, Figure 15) in the
 * order their batches ended, so rcu_barrier() keeps its meaning.
 *
 * The price: while plugged, a CPU invokes nothing, so with a real-time
 * task present its callback throughput is at most rcumaxbatch per rcuplugticks ticks (256 per tick,
 * 64,000 a second at HZ=250, with the defaults). A flood faster than that
 * builds a backlog that drains when the flood ends; grace periods go on
 * at their own rate meanwhile (the batch lists do not wait for donelist).
 */
#include "rcu_internal.h"
#include "rt.h"
#include <percpu.h>
#include <smp.h>
#include <cmdline.h>
#include <printk.h>
#include <arch/cpu.h>

#define RCUMAXBATCH_DEFAULT	256
#define RCUMAXBATCH_MAX		1000000
#define RCUPLUGTICKS_DEFAULT	1
#define RCUPLUGTICKS_MAX	1000

static unsigned long rcumaxbatch = RCUMAXBATCH_DEFAULT;
static unsigned long rcuplugticks = RCUPLUGTICKS_DEFAULT;
bool rcu_throttle_on = true;		/* run-time switch (rcu_rt_set_mode()) */

static DEFINE_PER_CPU(unsigned long, rcu_plugticks);	/* RCU_plugticks */
static DEFINE_PER_CPU(unsigned long, rcu_plugs);
#define RCU_plugticks(cpu)	(per_cpu(rcu_plugticks, cpu))

CMDLINE_ULONG("rcumaxbatch", rcumaxbatch, 0, RCUMAXBATCH_MAX,
	      "rcumaxbatch=N: most RCU callbacks run in one softirq; 0 = no throttling "
	      "(default 256, 0..1000000)");

CMDLINE_ULONG("rcuplugticks", rcuplugticks, 0, RCUPLUGTICKS_MAX,
	      "rcuplugticks=N: ticks to wait after rcumaxbatch callbacks before running "
	      "more; 0 = reschedule at once (default 1, 0..1000)");

unsigned long rcu_throttle_maxbatch(void)
{
	if (READ_ONCE(rcu_throttle_on) && rcumaxbatch)
		return rcumaxbatch;
	return RCU_RT_NO_LIMIT;
}

/* Figure 14 lines 14-16, from the softirq on cpu. */
void rcu_throttle_plug(unsigned int cpu, struct tasklet_struct *t)
{
	/* The tick counts RCU_plugticks down from hard IRQ on this CPU. */
	unsigned long flags = local_irq_save();

	RCU_plugticks(cpu) = rcuplugticks;
	local_irq_restore(flags);
	per_cpu(rcu_plugs, cpu)++;
	if (!rcuplugticks)
		tasklet_hi_schedule(t);
}

/* Figure 15: "!RCU_plugticks(cpu)" before rcu_do_batch(). */
bool rcu_throttle_plugged(unsigned int cpu)
{
	return READ_ONCE(rcu_throttle_on) && READ_ONCE(RCU_plugticks(cpu));
}

/* From cpu's tick (hard IRQ): true when the plug has just come out. */
bool rcu_throttle_tick(unsigned int cpu)
{
	if (!RCU_plugticks(cpu))
		return false;
	return --RCU_plugticks(cpu) == 0;
}

void rcu_throttle_get_stats(struct rcu_rt_stats *s)
{
	unsigned int cpu;

	for_each_online_cpu(cpu)
		s->plugs += READ_ONCE(per_cpu(rcu_plugs, cpu));
}

void rcu_throttle_show(void)
{
	if (rcumaxbatch)
		printk("rcu: throttle: rcumaxbatch=%lu rcuplugticks=%lu\n", rcumaxbatch, rcuplugticks);
	else
		printk("rcu: throttle: off (rcumaxbatch=0)\n");
}

bool rcu_throttle_available(void)
{
	return rcumaxbatch != 0;
}
