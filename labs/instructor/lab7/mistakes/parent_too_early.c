/*
 * A planted mistake for Lab 7's grader: the report clears the node's bit
 * in its parent as soon as any of its children reports, not once its
 * qsmask is empty, so the grace period can end while a CPU below still
 * owes it a quiescent state (Tree RCU's mutant tree-parent-ends-early, at
 * every level). The unit tests see the parent cleared too early.
 */
#include "rcu_tree.h"

bool lab7_report_qs_rnp(unsigned long mask, struct rcu_node *rnp, unsigned long gpnum,
			unsigned long flags)
	__releases(&rnp->lock)
{
	for (;;) {
		if (rnp->gpnum != gpnum || !(rnp->qsmask & mask)) {
			spin_unlock_irqrestore(&rnp->lock, flags);
			return false;
		}
		WRITE_ONCE(rnp->qsmask, rnp->qsmask & ~mask);
		if (!rnp->parent) {
			bool root_empty = !rnp->qsmask;

			spin_unlock_irqrestore(&rnp->lock, flags);
			return root_empty;
		}
		mask = rnp->grpmask;		/* the mistake: whether or not rnp emptied */
		spin_unlock_irqrestore(&rnp->lock, flags);
		rnp = rnp->parent;
		flags = spin_lock_irqsave(&rnp->lock);
	}
}
