/*
 * Tree RCU's stall warning and console dump (kernel/rcu/rcu_tree.c holds
 * the rest): which CPUs, or which lost report up the tree, hold the grace
 * period up, and every node's and CPU's state for Ctrl-T.
 */
#include "rcu_internal.h"
#include "rcu_tree_exp.h"
#include "rcu_tree_state.h"
#include <printk.h>
#include <smp.h>
#include <string.h>

/* From the tick: the leaves' masks, read without their locks. */
bool rcu_variant_stall_info(struct rcu_stall_info *si)
{
	int i;

	si->gpnum = READ_ONCE(rcu_state.gpnum);
	cpumask_clear(&si->owing);
	if (READ_ONCE(rcu_state.completed) == si->gpnum)
		return false;
	for (i = rcu_state.level_first[rcu_state.nr_levels - 1]; i < rcu_state.nr_nodes; i++) {
		unsigned long m = READ_ONCE(rcu_node[i].qsmask);
		int cpu;

		for (cpu = rcu_node[i].grplo; cpu <= rcu_node[i].grphi; cpu++)
			if (m & (1UL << (cpu - rcu_node[i].grplo)))
				cpumask_set(cpu, &si->owing);
	}
	if (!cpumask_empty(&si->owing))
		return true;
	/*
	 * Every leaf is empty, yet the grace period goes on: a node still
	 * waits for a child that has emptied, so that child's report never
	 * reached it (a lost report up the tree, Lab 7's classic mistake).
	 * No CPU owes anything; name the node instead of staying silent.
	 */
	for (i = 0; i < rcu_state.level_first[rcu_state.nr_levels - 1]; i++) {
		unsigned long m = READ_ONCE(rcu_node[i].qsmask);
		int c;

		for (c = i + 1; c < rcu_state.nr_nodes; c++) {
			struct rcu_node *child = &rcu_node[c];

			if (child->parent != &rcu_node[i] || !(m & child->grpmask) ||
			    READ_ONCE(child->qsmask))
				continue;
			snprintf(si->why, sizeof(si->why), "rcu_node %d (level %d) still waits for "
				 "rcu_node %d (cpus %d-%d), which has emptied: its report was lost",
				 i, rcu_node[i].level, c, child->grplo, child->grphi);
			return true;
		}
	}
	return false;
}

void rcu_variant_show_state(void)
{
	unsigned int cpu;
	int i;

	printk("rcu (tree): gpnum %lu completed %lu gp_needed %lu gp_flags %#lx; "
	       "fqs passes %lu reported %lu kicked %lu; expedited %lu\n",
	       rcu_state.gpnum, rcu_state.completed, rcu_state.gp_needed, rcu_state.gp_flags,
	       rcu_state.fqs_passes, rcu_state.fqs_reported, rcu_state.fqs_kicked, rcu_exp_count);
	for (i = 0; i < rcu_state.nr_nodes; i++) {
		struct rcu_node *rnp = &rcu_node[i];

		printk("rcu (tree): node %d level %d cpus %d-%d qsmask %#lx qsmaskinit %#lx "
		       "gpnum %lu completed %lu\n", i, rnp->level, rnp->grplo, rnp->grphi,
		       rnp->qsmask, rnp->qsmaskinit, rnp->gpnum, rnp->completed);
	}
	for_each_online_cpu(cpu) {
		struct rcu_data *rdp = per_cpu_ptr(&rcu_data, cpu);
		struct rcu_segcblist *l = &rdp->cbl;

		printk("rcu (tree): cpu%u: gpnum %lu completed %lu qs_pending %d passed_qs %d "
		       "dynticks %lu snap %lu; done %lu wait %lu (gp %lu) next_ready %lu (gp %lu) "
		       "next %lu\n", cpu, rdp->gpnum, rdp->completed, rdp->qs_pending, rdp->passed_qs,
		       rdp->dynticks, rdp->dynticks_snap, l->len[RCU_DONE], l->len[RCU_WAIT],
		       l->gp[RCU_WAIT], l->len[RCU_NEXT_READY], l->gp[RCU_NEXT_READY],
		       l->len[RCU_NEXT]);
	}
}
