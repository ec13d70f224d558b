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

#endif
