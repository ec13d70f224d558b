/*
 * A planted mistake for Lab 7's grader (tests/test_grade.py): the report
 * clears the bits at the node it was given and stops there. An emptied
 * leaf never tells its parent, so the root empties only where the root is
 * the leaf (-smp 1 and 2 with the lab's fanout): at -smp 4 grace periods
 * never end. The unit tests say which node kept its bit.
 */
#include "rcu_tree.h"

bool lab7_report_qs_rnp(unsigned long mask, struct rcu_node *rnp, unsigned long gpnum,
			unsigned long flags)
	__releases(&rnp->lock)
{
	bool root_empty;

	if (rnp->gpnum != gpnum || !(rnp->qsmask & mask)) {
		spin_unlock_irqrestore(&rnp->lock, flags);
		return false;
	}
	WRITE_ONCE(rnp->qsmask, rnp->qsmask & ~mask);
	root_empty = !rnp->qsmask && !rnp->parent;
	spin_unlock_irqrestore(&rnp->lock, flags);
	return root_empty;
}
