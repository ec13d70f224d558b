/*
 * A planted mistake for Lab 7's grader (tests/test_grade.py): the report
 * goes up the tree, but clears the parents' bits without their locks
 * (only the leaf's, which the caller took, is held). Two CPUs emptying
 * sibling leaves at once both read the parent's qsmask and write it back
 * with only their own bit cleared: one clear is lost, and the grace period
 * never ends. Torture rarely hits the window; the unit test that holds
 * the parent's lock sees the parent change under it.
 */
#include "rcu_tree.h"

bool lab7_report_qs_rnp(unsigned long mask, struct rcu_node *rnp, unsigned long gpnum,
			unsigned long flags)
	__releases(&rnp->lock)
{
	struct rcu_node *leaf = rnp;

	if (rnp->gpnum != gpnum || !(rnp->qsmask & mask)) {
		spin_unlock_irqrestore(&rnp->lock, flags);
		return false;
	}
	WRITE_ONCE(rnp->qsmask, rnp->qsmask & ~mask);
	while (!rnp->qsmask && rnp->parent) {
		mask = rnp->grpmask;
		rnp = rnp->parent;
		WRITE_ONCE(rnp->qsmask, rnp->qsmask & ~mask);	/* the mistake: no lock */
	}
	spin_unlock_irqrestore(&leaf->lock, flags);
	return !rnp->qsmask && !rnp->parent;
}
