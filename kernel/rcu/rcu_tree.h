/*
 * What Tree RCU (rcu_tree.c) shares with the report of quiescent states up
 * its tree: the rcu_node, and the two reports, Tree RCU's own and Lab 7's
 * (labs/lab7-tree-rcu, kernel/rcu/lab7_report.c), which lab7= picks
 * between (rcu_tree_lab7.c) and which rcu_tree_report_test.c tests on a
 * tree of its own.
 */
#ifndef _KERNEL_RCU_TREE_H
#define _KERNEL_RCU_TREE_H

#include <types.h>
#include <spinlock.h>

struct rcu_node {
	spinlock_t lock;		/* guards the fields below but grpmask..level */
	unsigned long qsmask;		/* children that still owe gpnum a quiescent state */
	unsigned long qsmaskinit;	/* children with online CPUs: gpnum's first qsmask */
	unsigned long qsmaskinitnext;	/* leaves: CPUs online now, for the next grace period */
	unsigned long gpnum;		/* last grace period begun, as this node knows */
	unsigned long completed;	/* last grace period ended, as this node knows */
	unsigned long grpmask;		/* this node's bit in parent->qsmask */
	struct rcu_node *parent;	/* NULL at the root */
	int level;			/* 0 at the root */
	int grplo, grphi;		/* CPUs below: grplo..grphi */
	bool leaf;
};

/*
 * Report a quiescent state for the children in mask of rnp, for grace
 * period gpnum: clear them in rnp->qsmask; if that empties rnp, clear
 * rnp->grpmask in its parent, and so on up. Called with rnp's lock held,
 * taken with flags = spin_lock_irqsave(&rnp->lock); returns with every
 * lock dropped and interrupts as flags says. True if this report emptied
 * the root (the caller then wakes the grace-period kthread).
 */
bool rcu_node_report_qs(unsigned long mask, struct rcu_node *rnp, unsigned long gpnum,
			unsigned long flags) __releases(&rnp->lock);
/* Lab 7's, the student's (kernel/rcu/lab7_report.c): the same contract. */
bool lab7_report_qs_rnp(unsigned long mask, struct rcu_node *rnp, unsigned long gpnum,
			unsigned long flags) __releases(&rnp->lock);

/* lab7=: whose report the running tree uses, and whose the tests test. */
enum rcu_lab7_mode {
	RCU_LAB7_OFF,		/* Tree RCU's own everywhere */
	RCU_LAB7_TEST,		/* the student's in rcu_tree_report_test.c only */
	RCU_LAB7_ON,		/* the student's in the tests and in the running tree */
};
extern enum rcu_lab7_mode rcu_lab7_mode;

/* The report the running tree uses. */
static inline bool rcu_tree_report_qs(unsigned long mask, struct rcu_node *rnp,
				      unsigned long gpnum, unsigned long flags)
	__releases(&rnp->lock)
{
	if (rcu_lab7_mode == RCU_LAB7_ON)
		return lab7_report_qs_rnp(mask, rnp, gpnum, flags);
	return rcu_node_report_qs(mask, rnp, gpnum, flags);
}

#endif
