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

#include "rcu_internal.h"
#include "batch.h"
#include <spinlock.h>
#include <cpumask.h>
#include <list.h>
#include <arch/cpu.h>

/* The global batch state (both variants' header comments say what each is). */
extern spinlock_t rcu_lock;
extern rcu_batch_t rcu_currbatch;	/* rcu_lock */
extern rcu_batch_t rcu_maxbatch;	/* rcu_lock */
extern cpumask_t rcu_cpumask;		/* rcu_lock */

/* Figure 39: ask for batch newbatch, starting it if none runs. rcu_lock held. */
void rcu_reg_batch(rcu_batch_t newbatch);

/*
 * The list steps of Figures 35 and 36, on one CPU's lists, which each
 * variant passes under its paper's names (X-rcu's nextlist and currlist,
 * krcud's nxtlist and curlist). Inline: they are the callback path's,
 * as they were when each variant wrote them out.
 *
 * Figure 35's first step: if the batch currlist waits for is over,
 * currlist joins the tail of donelist.
 */
static inline void rcu_batch_take_done(struct list_head *currlist, unsigned long *currlen,
				       rcu_batch_t batch, struct list_head *donelist)
{
	if (!list_empty(currlist) && RCU_BATCH_GT(READ_ONCE(rcu_currbatch), batch)) {
		list_splice_tail_init(currlist, donelist);
		*currlen = 0;
	}
}

/*
 * Figure 36: if currlist is empty and nextlist is not, nextlist becomes
 * currlist (interrupts off: call_rcu() adds to nextlist from interrupts),
 * to wait for batch rcu_currbatch + 1, which is registered (*batch).
 * True when it moved: krcud then marks this CPU active (A.2 difference 3).
 */
static inline bool rcu_batch_move_next(struct list_head *nextlist, unsigned long *nextlen,
				       struct list_head *currlist, unsigned long *currlen,
				       rcu_batch_t *batch)
{
	local_irq_disable();
	if (!list_empty(nextlist) && list_empty(currlist)) {
		list_splice_init(nextlist, currlist);
		*currlen = *nextlen;
		*nextlen = 0;
		local_irq_enable();
		rcu_stats_list_len(*currlen);

		/* start the next batch of callbacks */
		spin_lock(&rcu_lock);
		*batch = rcu_currbatch + 1;
		rcu_reg_batch(*batch);
		spin_unlock(&rcu_lock);
		return true;
	}
	local_irq_enable();
	return false;
}

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
