/*
 * Lab 7 (labs/lab7-tree-rcu/README.md): report a quiescent state up Tree
 * RCU's tree of rcu_nodes. This file is yours.
 *
 * Tree RCU (kernel/rcu/rcu_tree.c, docs/rcu/tree.md) calls this with the
 * lab7=on boot option, in place of its own report, whenever a CPU reports
 * its quiescent state to its leaf (rcu_check_quiescent_state()) and when
 * the grace-period kthread reports idle CPUs on their behalf
 * (rcu_force_quiescent_state()); its unit tests
 * (kernel/rcu/rcu_tree_report_test.c) call it on a tree of their own with
 * lab7=test.
 *
 * The contract (kernel/rcu/rcu_tree.h): the caller holds rnp's lock, taken
 * with flags = spin_lock_irqsave(&rnp->lock). Clear the bits of mask in
 * rnp->qsmask, for grace period gpnum. If that empties rnp->qsmask, rnp
 * no longer holds the grace period up: clear rnp's own bit
 * (rnp->grpmask) in its parent's qsmask, and so on up while nodes empty.
 * A node's qsmask is changed only with that node's lock held. Return with
 * every lock dropped and interrupts restored; return true if this report
 * emptied the root (rnp->parent == NULL), which ends the grace period's
 * wait: the caller wakes the grace-period kthread.
 *
 * Nothing changes, and the report stops, at a node whose gpnum is not
 * gpnum (a grace period that has moved on) or whose qsmask no longer has
 * the bits being reported (reported already).
 *
 * Your design, in a few lines (which locks are held when, and why the
 * order cannot deadlock against rcu_gp_init(), which takes them root
 * first):
 *
 */
#include "rcu_tree.h"

bool lab7_report_qs_rnp(unsigned long mask, struct rcu_node *rnp, unsigned long gpnum,
			unsigned long flags)
	__releases(&rnp->lock)
{
	/* TODO: clear mask in rnp->qsmask, and report up while nodes empty. */
	(void)mask;
	(void)gpnum;
	spin_unlock_irqrestore(&rnp->lock, flags);
	return false;
}
