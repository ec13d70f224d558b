/*
 * A planted mistake for Lab 7's grader (tests/test_grade.py): the report
 * assumes it carries one CPU's bit and clears only the lowest bit of
 * mask. The grace-period kthread reports a leaf's idle CPUs together
 * (mask 0x3), so the other CPU's bit stays and the leaf waits for a CPU
 * that is idle forever. The hint must be about several bits at once, not
 * about the return value.
 */
#include "rcu_tree.h"

bool lab7_report_qs_rnp(unsigned long mask, struct rcu_node *rnp, unsigned long gpnum,
			unsigned long flags)
	__releases(&rnp->lock)
{
	mask &= -mask;		/* the mistake: one CPU's bit only */
	for (;;) {
		if (rnp->gpnum != gpnum || !(rnp->qsmask & mask)) {
			spin_unlock_irqrestore(&rnp->lock, flags);
			return false;
		}
		WRITE_ONCE(rnp->qsmask, rnp->qsmask & ~mask);
		if (rnp->qsmask || !rnp->parent) {
			bool root_empty = !rnp->qsmask;

			spin_unlock_irqrestore(&rnp->lock, flags);
			return root_empty;
		}
		mask = rnp->grpmask;
		spin_unlock_irqrestore(&rnp->lock, flags);
		rnp = rnp->parent;
		flags = spin_lock_irqsave(&rnp->lock);
	}
}
