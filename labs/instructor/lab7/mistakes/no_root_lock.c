/*
 * A planted mistake for Lab 7's grader (tests/test_grade.py): the report
 * takes each parent's lock on the way up, except the root's: "the root
 * is where the grace period ends, and only the last report gets there".
 * Not so: two CPUs emptying the root's two children at once both get
 * there, and one clear is lost. The unit test that holds each node's
 * lock in turn, the root's included, sees the root change under it.
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
		if (rnp->qsmask || !rnp->parent) {
			bool root_empty = !rnp->qsmask;

			spin_unlock_irqrestore(&rnp->lock, flags);
			return root_empty;
		}
		mask = rnp->grpmask;
		spin_unlock_irqrestore(&rnp->lock, flags);
		rnp = rnp->parent;
		if (!rnp->parent) {
			/* the mistake: the root's bit cleared without its lock */
			if (rnp->gpnum != gpnum || !(rnp->qsmask & mask))
				return false;
			WRITE_ONCE(rnp->qsmask, rnp->qsmask & ~mask);
			return !rnp->qsmask;
		}
		flags = spin_lock_irqsave(&rnp->lock);
	}
}
