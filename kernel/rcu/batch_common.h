/*
 * What X-rcu (kernel/rcu/rcu_xrcu.c, seed 000 section 5.1) and rcu
 * (rcu_krcud.c, section 5.2, with rcu-preempt on top of it) share, word
 * for word: Appendix A.2 says krcud's callback processing is X-rcu's
 * (Figures 35-39) but for three differences, and those stay in each
 * variant's file, as do the figures each draws its own way (12-14 against
 * 15-17). kernel/rcu/batch_common.c, built with either (variants.mk).
 */
#ifndef _KERNEL_RCU_BATCH_COMMON_H
#define _KERNEL_RCU_BATCH_COMMON_H

#include "batch.h"
#include <spinlock.h>
#include <cpumask.h>
#include <list.h>

/* The global batch state (both variants' header comments say what each is). */
extern spinlock_t rcu_lock;
extern rcu_batch_t rcu_currbatch;	/* rcu_lock */
extern rcu_batch_t rcu_maxbatch;	/* rcu_lock */
extern cpumask_t rcu_cpumask;		/* rcu_lock */

/* Figure 39: ask for batch newbatch, starting it if none runs. rcu_lock held. */
void rcu_reg_batch(rcu_batch_t newbatch);

/*
 * Figure 37's second half: cpu has passed a quiescent state since it
 * noticed the current batch; takes rcu_lock. all: rcu_break=1's every
 * CPU at once (krcud's planted breakage).
 */
void rcu_batch_report_qs(unsigned int cpu, long *last_qsctr, bool all);

/*
 * CPU hotplug (docs/hotplug.md), as Linux 2.6's rcupdate.c did it for
 * this design (rcu_offline_cpu()). On the dying CPU, interrupts off: it
 * leaves rcu_cpumask and its three lists, oldest first, become orphans.
 * A live CPU adopts them onto the tail of its next list (interrupts
 * masked here: call_rcu() edits it from interrupts).
 */
void rcu_batch_cpu_offline(unsigned int cpu, long *last_qsctr, struct list_head *donelist,
			   struct list_head *curlist, struct list_head *nextlist,
			   unsigned long len);
bool rcu_batch_have_orphans(void);
void rcu_batch_adopt_orphans(struct list_head *nextlist, unsigned long *nextlen);

/*
 * rcu-preempt (rcu_krcud.c plus rcu_preempt.c) adds to this machinery the
 * orphan counters of CPU hotplug (rcu_preempt_hotplug.c): the tasks a
 * dying CPU had counted, which every batch waits for. For X-rcu and krcud
 * they are nothing.
 */
#ifdef CONFIG_RCU_PREEMPT
#include "rcu_preempt.h"
#else
static inline void rcu_preempt_cpu_orphan(unsigned int cpu, bool gp) { }
static inline void rcu_preempt_orphans_swap(void) { }
static inline bool rcu_preempt_orphans_quiet(void) { return true; }
#endif

#endif
