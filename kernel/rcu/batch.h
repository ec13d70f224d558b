/*
 * Batch numbers, the bookkeeping the batching variants share: xrcu,
 * krcud and ltimer (seed 000 Figures 36-39, A.2 and 44-47) keep a global
 * current batch and the highest batch anyone has asked for; each CPU's
 * curlist waits for a batch number, and poll-percpu's for a grace-period
 * number in the same way. A CPU notices a batch by snapshotting its
 * quiescent-state counter.
 */
#ifndef _KERNEL_RCU_BATCH_H
#define _KERNEL_RCU_BATCH_H

typedef long rcu_batch_t;

/* Batch numbers wrap: compare them as a signed difference. */
#define RCU_BATCH_LT(a, b)	((long)((a) - (b)) < 0)
#define RCU_BATCH_GT(a, b)	((long)((a) - (b)) > 0)

/* last_qsctr before the CPU has noticed the batch (qsctr starts at 1). */
#define RCU_QSCTR_INVALID	0

#endif
