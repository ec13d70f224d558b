/*
 * rcu-preempt (kernel/rcu/rcu_preempt.c, seed 000 section 5.7 and Figure
 * 33) is krcud's algorithm (kernel/rcu/rcu_krcud.c, the paper's rcu) plus
 * per-CPU pairs of preempted-task counters. rcu_krcud.c includes this
 * header when CONFIG_RCU_PREEMPT is set and calls these at a few points;
 * without it, rcu_krcud.c's own inline stand-ins make them nothing.
 */
#ifndef _KERNEL_RCU_RCU_PREEMPT_H
#define _KERNEL_RCU_RCU_PREEMPT_H

#include <compiler.h>
#include <atomic.h>
#include <percpu.h>

struct task;

/* Per CPU (rcu_preempt.c's header comment names each field after Figure 33). */
struct rcu_preempt_data {
	atomic_t rcu_preempt_cntr[2];	/* Figure 33 */
	atomic_t *curr_preempt_cntr;
	atomic_t *next_preempt_cntr;
	struct task *holdover;		/* running here at the last swap (note 1) */
	bool offline;			/* CPU hotplug: count nothing here */
	unsigned long gets, puts, swaps, holdover_gets;	/* statistics, gdb */
	unsigned long orphaned;		/* tasks moved off at offline (gdb) */
};
DECLARE_PER_CPU(struct rcu_preempt_data, rcu_preempt_data);

/* The CPU's counters, before its first context switch. */
void rcu_preempt_init_cpu(unsigned int cpu);
/* The context-switch hook: is this switch a quiescent state of this CPU?
 * (Only voluntary ones are; an involuntary one counts the task.) */
bool rcu_preempt_switch_is_qs(bool voluntary);
/* This CPU noticed a new batch: swap its next and curr counters. */
void rcu_preempt_swap(void);
/* Have all tasks affiliated with this CPU and preempted before it noticed
 * the batch voluntarily switched since (its curr counter is zero)? */
bool rcu_preempt_cpu_quiet(void);
/* rcu_variant_show_state()'s and the stall warning's per-CPU line. */
void rcu_preempt_show_cpu(unsigned int cpu);
/* Drop t's count, from whichever counter holds it (a voluntary switch). */
void rcu_preempt_put(struct task *t);

/*
 * CPU hotplug (rcu_preempt_hotplug.c, docs/rcu/preempt.md): the tasks
 * counted on a dying CPU move to the global orphan counters, which every
 * batch waits for as it waits for a CPU; batch_common.c calls these with
 * rcu_lock held.
 */
/* On the dying CPU, interrupts off: move its counted tasks; gp: a batch runs. */
void rcu_preempt_cpu_orphan(unsigned int cpu, bool gp);
/* A batch starts: the orphans counted for the next batch are its. */
void rcu_preempt_orphans_swap(void);
/* May the batch in progress end (no orphan it waits for remains)? */
bool rcu_preempt_orphans_quiet(void);
/* From rcu_variant_cpu_dead() and rcu_variant_cpu_reonline(). */
void rcu_preempt_cpu_dead(unsigned int cpu);
void rcu_preempt_cpu_reonline(unsigned int cpu);
void rcu_preempt_show_orphans(void);

#endif
