/*
 * A planted mistake for Lab 7's grader (tests/test_grade.py): the report
 * goes straight to the parent ("the leaf is the caller's business") and
 * never clears the reported bits at the node they were reported at. The
 * leaf keeps waiting for CPUs that have passed a quiescent state, and no
 * grace period ends. The hint must speak of the leaf, not of a parent
 * cleared too early.
 */
#include "rcu_tree.h"

bool lab7_report_qs_rnp(unsigned long mask, struct rcu_node *rnp, unsigned long gpnum,
			unsigned long flags)
	__releases(&rnp->lock)
{
	struct rcu_node *parent = rnp->parent;
	unsigned long bit = rnp->grpmask;
	bool root_empty;

	if (rnp->gpnum != gpnum || !(rnp->qsmask & mask) || !parent) {
		spin_unlock_irqrestore(&rnp->lock, flags);
		return false;
	}
	spin_unlock_irqrestore(&rnp->lock, flags);
	flags = spin_lock_irqsave(&parent->lock);
	WRITE_ONCE(parent->qsmask, parent->qsmask & ~bit);	/* the mistake: the leaf's bits stay */
	root_empty = !parent->qsmask && !parent->parent;
	spin_unlock_irqrestore(&parent->lock, flags);
	return root_empty;
}
