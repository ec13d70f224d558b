/*
 * What rcu_tree.c and rcu_tree_exp.c (Tree RCU's expedited grace periods)
 * share.
 */
#ifndef _KERNEL_RCU_TREE_EXP_H
#define _KERNEL_RCU_TREE_EXP_H

#include <types.h>

/* This CPU passed a quiescent state; can_wake: not under scheduler locks. */
void rcu_exp_qs(bool can_wake);
/* CPU hotplug: this CPU, going down, owes no expedited grace period. */
void rcu_exp_cpu_offline(unsigned int cpu);
/* Wake the expediter if a report could not (RCU_SOFTIRQ, the idle loop). */
void rcu_exp_wake_check(void);
/* Expedited grace periods completed since boot. */
extern unsigned long rcu_exp_count;

#endif
