/*
 * Tasks RCU (kernel/rcu/rcu_tasks.c, docs/rcu/tasks.md): a grace period
 * that ends once every task that was runnable when it began has made a
 * voluntary context switch (cond_resched() included), run in user mode,
 * or stopped being runnable. Its readers are implicit: any code between
 * two voluntary switches, such as a trampoline or a probe's handler that
 * a preempted task may be stopped inside. The user: code freed on unload
 * (a trampoline's memory) after synchronize_rcu_tasks().
 *
 * Process context (the first call starts the grace-period kthread).
 */
#ifndef _RCUPDATE_TASKS_H
#define _RCUPDATE_TASKS_H

#include <rcupdate.h>

void call_rcu_tasks(struct rcu_head *head, void (*func)(void *arg), void *arg);
void synchronize_rcu_tasks(void);
/* Wait until every call_rcu_tasks() queued before the call has run. */
void rcu_barrier_tasks(void);
/* Tasks RCU grace periods completed since boot. */
unsigned long rcu_tasks_gp_count(void);

#endif
