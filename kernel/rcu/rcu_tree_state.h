/*
 * Tree RCU's own state (kernel/rcu/rcu_tree.c): the per-CPU rcu_data, the
 * global rcu_state and the node array, shared with its stall warning and
 * console dump (rcu_tree_stall.c). Lab 7's report sees only rcu_tree.h.
 */
#ifndef _KERNEL_RCU_TREE_STATE_H
#define _KERNEL_RCU_TREE_STATE_H

#include "rcu_tree.h"
#include "rcu_tree_segcblist.h"
#include <percpu.h>

#define RCU_FANOUT		CONFIG_RCU_TREE_FANOUT
#define RCU_FANOUT_LEAF		CONFIG_RCU_TREE_FANOUT_LEAF
/* Leaves <= CPUs, and each level above at most half the one below. */
#define RCU_MAX_NODES		(2 * CONFIG_NR_CPUS)
#define RCU_MAX_LEVELS		8

STATIC_ASSERT(RCU_FANOUT >= 2 && RCU_FANOUT <= 64);
STATIC_ASSERT(RCU_FANOUT_LEAF >= 1 && RCU_FANOUT_LEAF <= 64);

struct rcu_data {
	struct rcu_node *mynode;	/* this CPU's leaf */
	unsigned long grpmask;		/* this CPU's bit in mynode->qsmask */
	unsigned long gpnum;		/* last grace period this CPU noticed begin */
	unsigned long completed;	/* last grace period this CPU noticed end */
	bool qs_pending;		/* this CPU owes gpnum a quiescent state */
	bool passed_qs;			/* and has passed one since it noticed gpnum */
	bool ready;			/* rcu_variant_init_cpu() done */
	unsigned long dynticks;		/* idle-loop passes (note 3) */
	unsigned long dynticks_snap;	/* its value when gpnum began */
	struct rcu_segcblist cbl;
};

#define RCU_GP_FLAG_INIT	0x1	/* a grace period is needed: start one */

struct rcu_state {
	unsigned long gpnum;		/* last grace period begun (= rcu_gp_started()) */
	unsigned long completed;	/* last grace period ended */
	unsigned long gp_needed;	/* the highest grace period a callback waits for */
	unsigned long gp_flags;
	unsigned long gp_start;		/* jiffies when gpnum began */
	unsigned long fqs_passes;	/* forcing passes, since boot */
	unsigned long fqs_reported;	/* idle CPUs reported on their behalf, since boot */
	unsigned long fqs_kicked;	/* reschedule IPIs sent, since boot */
	struct task *gp_kthread;
	int nr_nodes, nr_levels;
	int level_first[RCU_MAX_LEVELS];	/* index of each level's first node */
	int level_count[RCU_MAX_LEVELS];
};

extern struct rcu_node rcu_node[RCU_MAX_NODES];
extern struct rcu_state rcu_state;
DECLARE_PER_CPU(struct rcu_data, rcu_data);

#endif
