/*
 * tree (Tree RCU): hierarchical RCU, the RCU of today's Linux, in the
 * small. Not from the papers (docs/papers.md, "Besides the papers"): it
 * follows Paul McKenney's "Hierarchical RCU" (LWN, 2008) and the shape of
 * Linux's kernel/rcu/tree.c, not its code. It answers the limit of
 * rcu-ltimer (seed 000 section 5.4): the CPUs report quiescent states into
 * a tree of rcu_nodes, each with its own lock, instead of one mask under
 * one lock. Its read side is the non-preemptible one of read_side.h.
 *
 * The doc is docs/rcu/tree.md: the data, one callback's walk from
 * call_rcu() to its invocation, its row of seed 000 Table 1, CPU hotplug,
 * expedited grace periods (rcu_tree_exp.c) and the broken mode
 * (rcu_break=1). The notes the code cites by number ("note 4") are its
 * "Where we depart from Linux, and why".
 */
#include "rcu_internal.h"
#include "rcu_tree_segcblist.h"
#include "rcu_tree_exp.h"
#include "rcu_tree.h"
#include "rcu_tree_state.h"
#include <rcu_hooks.h>
#include <sched.h>
#include <softirq.h>
#include <spinlock.h>
#include <wait.h>
#include <percpu.h>
#include <smp.h>
#include <time.h>
#include <printk.h>
#include <panic.h>
#include <trace.h>
#include <string.h>
#include <arch/cpu.h>

struct rcu_node rcu_node[RCU_MAX_NODES];
/*
 * CPU hotplug (note 4): held across rcu_gp_init()'s qsmaskinit and qsmask
 * passes and by a CPU leaving, so that a grace period either starts
 * without a CPU that has left or starts with it and sees it leave. Outside
 * every node's lock.
 */
static spinlock_t rcu_ofl_lock = SPINLOCK_INIT("rcu_ofl_lock");
struct rcu_state rcu_state;
DEFINE_PER_CPU(struct rcu_data, rcu_data);
static DECLARE_WAIT_QUEUE_HEAD(rcu_gp_wq);

/* How long the kthread waits between forcing passes (jiffies). */
#define RCU_JIFFIES_TILL_FQS	1

/* Its name (docs/rcu/README.md), a string that gdb and the test runner
 * read from the ELF, and where it comes from (the boot line). */
const char rcu_variant_id[] = "tree";
const char rcu_variant_paper[] = "Tree RCU, after Linux's kernel/rcu/tree.c and McKenney's Hierarchical RCU";

static inline struct rcu_node *rcu_root(void)
{
	return &rcu_node[0];
}

/* ---- The tree's shape, at boot. */

/*
 * Lay the tree out breadth first for the CPUs found at boot: leaves of
 * RCU_FANOUT_LEAF CPUs, each level above of RCU_FANOUT children, up to a
 * single root. Children always follow their parent in rcu_node[], so a
 * walk from 0 up is root first and a walk down from the end is leaves
 * first.
 */
static void rcu_init_geometry(void)
{
	int count[RCU_MAX_LEVELS], nlevels = 0, n, i, l, first = 0;
	unsigned int cpus = nr_cpu_ids;

	n = (cpus + RCU_FANOUT_LEAF - 1) / RCU_FANOUT_LEAF;
	count[nlevels++] = n;			/* leaves first; reversed below */
	while (n > 1) {
		n = (n + RCU_FANOUT - 1) / RCU_FANOUT;
		BUG_ON(nlevels >= RCU_MAX_LEVELS);
		count[nlevels++] = n;
	}
	rcu_state.nr_levels = nlevels;
	for (l = 0; l < nlevels; l++) {
		rcu_state.level_count[l] = count[nlevels - 1 - l];
		rcu_state.level_first[l] = first;
		first += rcu_state.level_count[l];
	}
	BUG_ON(first > RCU_MAX_NODES);
	rcu_state.nr_nodes = first;

	for (l = 0; l < nlevels; l++) {
		/* CPUs per node at this level. */
		unsigned int span = RCU_FANOUT_LEAF;

		for (i = l; i < nlevels - 1; i++)
			span *= RCU_FANOUT;
		for (i = 0; i < rcu_state.level_count[l]; i++) {
			struct rcu_node *rnp = &rcu_node[rcu_state.level_first[l] + i];

			spin_lock_init(&rnp->lock, "rcu_node.lock");
			rnp->level = l;
			rnp->leaf = l == nlevels - 1;
			rnp->grplo = i * span;
			rnp->grphi = MIN((i + 1) * span, cpus) - 1;
			if (l == 0) {
				rnp->parent = NULL;
				rnp->grpmask = 0;
			} else {
				rnp->parent = &rcu_node[rcu_state.level_first[l - 1] + i / RCU_FANOUT];
				rnp->grpmask = 1UL << (i % RCU_FANOUT);
			}
		}
	}
}

/* ---- Grace-period requests and numbers. */

/*
 * Ask for grace period c (note 2): record it and, if no grace period is
 * running, flag the kthread to start one. The root's lock held. Returns
 * true if the kthread must be woken (after the caller drops its locks).
 */
static bool rcu_start_future_gp(unsigned long c)
{
	if (!rcu_gp_le(c, rcu_state.gp_needed))
		rcu_state.gp_needed = c;
	if (rcu_state.gpnum == rcu_state.completed && !(rcu_state.gp_flags & RCU_GP_FLAG_INIT)) {
		WRITE_ONCE(rcu_state.gp_flags, rcu_state.gp_flags | RCU_GP_FLAG_INIT);
		return true;
	}
	return false;
}

/*
 * Give this CPU's new callbacks their grace period. rnp's lock held; takes
 * the root's (leaf before root: the one nesting of node locks). Under the
 * root's lock, gpnum (begun, or the last one if none runs) may have begun
 * before these callbacks were queued; gpnum + 1 cannot have, since the
 * kthread counts a start under this lock. Linux's leaf-only estimate,
 * completed + 2 from the leaf's view, takes no root lock but makes a
 * callback queued on an idle machine wait for two grace periods.
 */
static bool rcu_accelerate_cbs(struct rcu_node *rnp, struct rcu_data *rdp)
{
	struct rcu_node *root = rcu_root();
	bool wake = false;
	unsigned long c;

	if (rcu_segcblist_seg_empty(&rdp->cbl, RCU_NEXT))
		return false;
	if (rnp != root)	/* leaf, then root: one class, two levels */
		spin_lock_nested(&root->lock, SINGLE_DEPTH_NESTING);
	else
		__acquire(&root->lock);	/* sparse: held already, as rnp->lock */
	c = rcu_state.gpnum + 1;
	rcu_stats_list_len(rdp->cbl.len[RCU_NEXT]);
	if (rcu_segcblist_accelerate(&rdp->cbl, c))
		wake = rcu_start_future_gp(c);
	if (rnp != root)
		spin_unlock(&root->lock);
	else
		__release(&root->lock);
	return wake;
}

static void rcu_gp_kthread_wake(void)
{
	wake_up(&rcu_gp_wq);
}

/*
 * Has a grace period begun or ended at this CPU's leaf since the CPU last
 * looked? Callbacks whose grace period has ended become DONE; a new grace
 * period makes this CPU owe it a quiescent state if the leaf says so.
 * rnp's lock held, interrupts off.
 */
static bool __note_gp_changes(struct rcu_node *rnp, struct rcu_data *rdp)
{
	if (rdp->completed != rnp->completed) {
		rcu_segcblist_advance(&rdp->cbl, rnp->completed);
		rdp->completed = rnp->completed;
	}
	if (rdp->gpnum != rnp->gpnum) {
		rdp->gpnum = rnp->gpnum;
		/* Only quiescent states after this point count for gpnum. */
		WRITE_ONCE(rdp->passed_qs, false);
		WRITE_ONCE(rdp->qs_pending, !!(rnp->qsmask & rdp->grpmask));
	}
	return rcu_accelerate_cbs(rnp, rdp);
}

static void note_gp_changes(struct rcu_data *rdp)
{
	struct rcu_node *rnp = rdp->mynode;
	unsigned long flags;
	bool wake;

	flags = spin_lock_irqsave(&rnp->lock);
	wake = __note_gp_changes(rnp, rdp);
	spin_unlock_irqrestore(&rnp->lock, flags);
	if (wake)
		rcu_gp_kthread_wake();
}

/* ---- Reporting quiescent states up the tree. */

/*
 * The timeline's track per rcu_node (docs/rcu/timeline.md): each report
 * that clears bits, with what the node still waits for. Only the live
 * tree's nodes; the unit tests' private tree is not traced.
 */
static inline void trace_node_qs(struct rcu_node *rnp)
{
	if (rnp >= rcu_node && rnp < rcu_node + rcu_state.nr_nodes)
		trace_event(TRACE_RCU, TR_NODE_QS,
			    (u64)rnp->level << 16 | (u64)(rnp - rcu_node), rnp->qsmask);
}

/*
 * Clear mask in rnp->qsmask for grace period gpnum; if that empties the
 * node, clear the node's bit in its parent, and so on up (rcu_tree.h has
 * the contract). Each node's lock is dropped before its parent's is
 * taken, so a CPU never holds two of them. True if the root emptied.
 */
bool rcu_node_report_qs(unsigned long mask, struct rcu_node *rnp, unsigned long gpnum,
			unsigned long flags)
	__releases(&rnp->lock)
{
	for (;;) {
		if (!(rnp->qsmask & mask) || rnp->gpnum != gpnum) {
			/* Already reported, or a grace period that has moved on. */
			spin_unlock_irqrestore(&rnp->lock, flags);
			return false;
		}
		WRITE_ONCE(rnp->qsmask, rnp->qsmask & ~mask);
		trace_node_qs(rnp);
		if (rnp->qsmask) {
			spin_unlock_irqrestore(&rnp->lock, flags);
			return false;
		}
		mask = rnp->grpmask;
		if (!rnp->parent)
			break;
		spin_unlock_irqrestore(&rnp->lock, flags);
		rnp = rnp->parent;
		flags = spin_lock_irqsave(&rnp->lock);
	}
	spin_unlock_irqrestore(&rnp->lock, flags);
	return true;
}

/*
 * Report up the tree (Tree RCU's report, or Lab 7's with lab7=on); an
 * empty root ends the wait: the kthread is woken to clean up. Called with
 * rnp's lock held (flags from spin_lock_irqsave()); returns with it
 * dropped.
 */
static void rcu_report_qs_rnp(unsigned long mask, struct rcu_node *rnp, unsigned long gpnum,
			      unsigned long flags)
	__releases(&rnp->lock)
{
	if (rcu_tree_report_qs(mask, rnp, gpnum, flags))
		rcu_gp_kthread_wake();
}

/*
 * This CPU's quiescent-state detection point: it owes gpnum one and has
 * passed one since it noticed gpnum; clear its bit in its leaf.
 */
static void rcu_check_quiescent_state(struct rcu_data *rdp)
{
	struct rcu_node *rnp = rdp->mynode;
	unsigned long flags;
	bool wake;

	if (!READ_ONCE(rdp->qs_pending) || !READ_ONCE(rdp->passed_qs))
		return;
	flags = spin_lock_irqsave(&rnp->lock);
	if (rdp->gpnum != rnp->gpnum || !rdp->passed_qs) {
		spin_unlock_irqrestore(&rnp->lock, flags);
		return;
	}
	WRITE_ONCE(rdp->qs_pending, false);
	if (!(rnp->qsmask & rdp->grpmask)) {
		/* The kthread reported it on our behalf (an idle pass). */
		spin_unlock_irqrestore(&rnp->lock, flags);
		return;
	}
	rcu_stats_qs();
	rcu_trace_qs(smp_processor_id());
	/* Callbacks queued since can wait for the next grace period now. */
	wake = rcu_accelerate_cbs(rnp, rdp);
	rcu_report_qs_rnp(rdp->grpmask, rnp, rnp->gpnum, flags);
	if (wake)
		rcu_gp_kthread_wake();
}

/* A quiescent state on this CPU: it counts only once gpnum is noticed. */
static inline void rcu_qs(struct rcu_data *rdp)
{
	if (READ_ONCE(rdp->qs_pending))
		WRITE_ONCE(rdp->passed_qs, true);
}

/* ---- The grace-period kthread. */

/*
 * Start a grace period if one is needed: count it (rcu_gp_count_start(),
 * before any CPU is looked at), recompute each node's qsmaskinit from the
 * online CPUs, leaves first, then set every node's qsmask and gpnum, root
 * first, so that a leaf that finishes at once reports to a parent already
 * waiting for it. Returns the new grace period, or 0 if none was needed.
 */
static unsigned long rcu_gp_init(void)
{
	struct rcu_node *root = rcu_root();
	unsigned long acc[RCU_MAX_NODES] = { 0 };
	unsigned long flags, ofl_flags, gpnum;
	int i;

	flags = spin_lock_irqsave(&root->lock);
	WRITE_ONCE(rcu_state.gp_flags, rcu_state.gp_flags & ~RCU_GP_FLAG_INIT);
	if (rcu_state.gpnum != rcu_state.completed ||
	    rcu_gp_le(rcu_state.gp_needed, rcu_state.completed)) {
		spin_unlock_irqrestore(&root->lock, flags);
		return 0;
	}
	rcu_gp_count_start();
	gpnum = rcu_state.gpnum + 1;
	WRITE_ONCE(rcu_state.gpnum, gpnum);
	rcu_state.gp_start = jiffies;
	spin_unlock_irqrestore(&root->lock, flags);

	ofl_flags = spin_lock_irqsave(&rcu_ofl_lock);	/* note 4 */
	for (i = rcu_state.nr_nodes - 1; i >= 0; i--) {
		struct rcu_node *rnp = &rcu_node[i];

		flags = spin_lock_irqsave(&rnp->lock);
		rnp->qsmaskinit = rnp->leaf ? rnp->qsmaskinitnext : acc[i];
		spin_unlock_irqrestore(&rnp->lock, flags);
		if (rnp->parent && rnp->qsmaskinit)
			acc[rnp->parent - rcu_node] |= rnp->grpmask;
	}
	for (i = 0; i < rcu_state.nr_nodes; i++) {
		struct rcu_node *rnp = &rcu_node[i];
		unsigned int cpu;

		flags = spin_lock_irqsave(&rnp->lock);
		WRITE_ONCE(rnp->qsmask, rnp->qsmaskinit);
		WRITE_ONCE(rnp->gpnum, gpnum);
		if (rnp->leaf) {
			smp_mb();	/* the start counted before the idle counters are read */
			for (cpu = rnp->grplo; cpu <= rnp->grphi; cpu++) {
				struct rcu_data *rdp = per_cpu_ptr(&rcu_data, cpu);

				rdp->dynticks_snap = READ_ONCE(rdp->dynticks);
			}
		}
		spin_unlock_irqrestore(&rnp->lock, flags);
	}
	spin_unlock_irqrestore(&rcu_ofl_lock, ofl_flags);
	rcu_gp_begin(gpnum);
	return gpnum;
}

/*
 * One forcing pass (Linux's force_qs_rnp() with rcu_implicit_dynticks_qs()):
 * at each leaf, report every owing CPU whose idle counter moved since the
 * grace period began (note 3); from the second pass on, send the others a
 * reschedule IPI, so that a CPU that runs on without a context switch
 * passes one at its next scheduling point.
 */
static void rcu_force_quiescent_state(unsigned long gpnum, unsigned long pass)
{
	int i;

	rcu_state.fqs_passes++;
	for (i = rcu_state.level_first[rcu_state.nr_levels - 1]; i < rcu_state.nr_nodes; i++) {
		struct rcu_node *rnp = &rcu_node[i];
		unsigned long flags, mask = 0, kick = 0;
		unsigned int cpu;

		if (!READ_ONCE(rnp->qsmask))
			continue;
		flags = spin_lock_irqsave(&rnp->lock);
		if (rnp->gpnum != gpnum) {
			spin_unlock_irqrestore(&rnp->lock, flags);
			continue;
		}
		smp_mb();	/* pairs with rcu_hook_idle()'s locked bump: the pass before its readers */
		for (cpu = rnp->grplo; cpu <= rnp->grphi; cpu++) {
			struct rcu_data *rdp = per_cpu_ptr(&rcu_data, cpu);
			unsigned long bit = 1UL << (cpu - rnp->grplo);

			if (!(rnp->qsmask & bit))
				continue;
			if (READ_ONCE(rdp->dynticks) != rdp->dynticks_snap) {
				mask |= bit;
				rcu_stats_qs();
				rcu_trace_qs(cpu);
				rcu_state.fqs_reported++;
			} else if (pass >= 1) {
				kick |= bit;
			}
		}
		if (mask)
			rcu_report_qs_rnp(mask, rnp, gpnum, flags);
		else
			spin_unlock_irqrestore(&rnp->lock, flags);
		for (cpu = rnp->grplo; kick && cpu <= rnp->grphi; cpu++) {
			if (kick & (1UL << (cpu - rnp->grplo))) {
				rcu_state.fqs_kicked++;
				resched_cpu(cpu);
			}
		}
	}
}

/* Wait for the root's qsmask to empty, forcing every jiffy meanwhile. */
static void rcu_gp_fqs_loop(unsigned long gpnum)
{
	struct rcu_node *root = rcu_root();
	unsigned long pass;

	for (pass = 0;; pass++) {
		wait_event_timeout(rcu_gp_wq, !READ_ONCE(root->qsmask), RCU_JIFFIES_TILL_FQS);
		if (!READ_ONCE(root->qsmask))
			break;
		rcu_force_quiescent_state(gpnum, pass);
	}
}

/*
 * End grace period gpnum: count the end (after every quiescent state it
 * waited for, rcu_gp_end()), then tell every node, root first; each CPU
 * sees it at its leaf and moves its callbacks to DONE. Start the next
 * grace period at once if some callback already waits for it.
 */
static void rcu_gp_cleanup(unsigned long gpnum)
{
	struct rcu_node *root = rcu_root();
	unsigned long flags;
	int i;

	smp_mb();	/* every quiescent state reported before the end is counted */
	rcu_gp_end(gpnum);
	for (i = 0; i < rcu_state.nr_nodes; i++) {
		struct rcu_node *rnp = &rcu_node[i];

		flags = spin_lock_irqsave(&rnp->lock);
		WRITE_ONCE(rnp->completed, gpnum);
		spin_unlock_irqrestore(&rnp->lock, flags);
	}
	flags = spin_lock_irqsave(&root->lock);
	WRITE_ONCE(rcu_state.completed, gpnum);
	if (!rcu_gp_le(rcu_state.gp_needed, gpnum))
		WRITE_ONCE(rcu_state.gp_flags, rcu_state.gp_flags | RCU_GP_FLAG_INIT);
	spin_unlock_irqrestore(&root->lock, flags);
}

static int rcu_gp_kthread(void *unused)
{
	for (;;) {
		unsigned long gpnum;

		wait_event(rcu_gp_wq, READ_ONCE(rcu_state.gp_flags) & RCU_GP_FLAG_INIT);
		gpnum = rcu_gp_init();
		if (!gpnum)
			continue;
		rcu_gp_fqs_loop(gpnum);
		rcu_gp_cleanup(gpnum);
	}
	return 0;
}

/* ---- Per CPU: call_rcu(), the softirq, the hooks. */

void call_rcu(struct rcu_head *head, void (*func)(void *arg), void *arg)
{
	unsigned long flags;

	if (!rcu_prove_queue(head, func))
		return;	/* reported: queued already */

	head->func = func;
	head->arg = arg;
	flags = local_irq_save();
	rcu_segcblist_enqueue(&this_cpu_ptr(&rcu_data)->cbl, head);
	rcu_stats_queued(head);
	local_irq_restore(flags);
}

/* Anything for rcu_core() to do on this CPU? Interrupts off (the tick). */
static bool rcu_pending(struct rcu_data *rdp)
{
	struct rcu_node *rnp = rdp->mynode;

	return (READ_ONCE(rdp->qs_pending) && READ_ONCE(rdp->passed_qs)) ||
	       rdp->gpnum != READ_ONCE(rnp->gpnum) || rdp->completed != READ_ONCE(rnp->completed) ||
	       !rcu_segcblist_seg_empty(&rdp->cbl, RCU_NEXT) ||
	       !rcu_segcblist_seg_empty(&rdp->cbl, RCU_DONE);
}

/* RCU_SOFTIRQ: this CPU's share of the work (Linux's rcu_core()). */
static void rcu_core(void)
{
	struct rcu_data *rdp = this_cpu_ptr(&rcu_data);
	LIST_HEAD(done);
	unsigned long n;

	rcu_exp_wake_check();
	if (!rdp->ready)
		return;
	note_gp_changes(rdp);
	rcu_check_quiescent_state(rdp);
	local_irq_disable();
	list_splice_init(&rdp->cbl.seg[RCU_DONE], &done);
	n = rdp->cbl.len[RCU_DONE];
	rdp->cbl.len[RCU_DONE] = 0;
	local_irq_enable();
	if (n)
		rcu_invoke_callbacks(&done);	/* counts the batch (invoke.c) */
}

/* Every pass through the scheduler: read_side.h keeps readers from
 * switching, in either preemption model. */
void rcu_hook_context_switch(bool voluntary)
{
	rcu_qs(this_cpu_ptr(&rcu_data));
	rcu_exp_qs(false);	/* the run-queue lock is held: no wake-up */
}

void rcu_hook_tick(enum tick_context ctx)
{
	struct rcu_data *rdp = this_cpu_ptr(&rcu_data);

	if (!rcu_this_cpu_ready())
		return;
	/* rcu_break: every tick counts, even one that interrupted a reader. */
	if (ctx == TICK_USER || ctx == TICK_IDLE || rcu_break) {
		rcu_qs(rdp);
		rcu_exp_qs(false);
	}
	if (rcu_pending(rdp))
		raise_softirq(RCU_SOFTIRQ);
	rcu_check_stall();
}

/*
 * Each pass of the idle loop: a quiescent state, and the counter the
 * kthread reads (note 3). The bump must be visible before any reader
 * this CPU begins later, against the kthread's snapshot and re-read
 * (the store-buffering pattern of poll_common.h): otherwise the kthread
 * snapshots the old count, credits the bump as a pass after its
 * snapshot, and ends the grace period under that reader. Interrupts are
 * on here, and on x86-TSO an interrupt taken between a plain store and
 * a following smp_mb() runs with the store still in the store buffer:
 * an IRQ or softirq reader's loads would pass it (interrupt delivery is
 * not a serializing event; IRET is), and only the handler's own first
 * locked instruction, whatever that happens to be, would close the
 * window. So the bump is itself a locked read-modify-write, a full
 * barrier at the instruction that makes it: no instruction boundary
 * lies between the store and its fence for an interrupt to land on.
 * Only this CPU's idle loop writes the counter: the add needs the
 * barrier, not the atomicity.
 */
void rcu_hook_idle(void)
{
	struct rcu_data *rdp = this_cpu_ptr(&rcu_data);

	__atomic_add_fetch(&rdp->dynticks, 1, __ATOMIC_SEQ_CST);	/* lock add */
	rcu_qs(rdp);
	rcu_exp_qs(true);
	rcu_exp_wake_check();
}

/* This CPU comes online (note 4): its leaf takes it up at the next grace period. */
void rcu_variant_init_cpu(unsigned int cpu)
{
	struct rcu_data *rdp = per_cpu_ptr(&rcu_data, cpu);
	struct rcu_node *rnp;
	unsigned long flags;
	int i;

	for (i = rcu_state.level_first[rcu_state.nr_levels - 1]; i < rcu_state.nr_nodes; i++)
		if ((int)cpu >= rcu_node[i].grplo && (int)cpu <= rcu_node[i].grphi)
			break;
	BUG_ON(i >= rcu_state.nr_nodes);
	rnp = &rcu_node[i];
	flags = spin_lock_irqsave(&rnp->lock);
	rdp->mynode = rnp;
	rdp->grpmask = 1UL << (cpu - rnp->grplo);
	rdp->gpnum = rnp->gpnum;
	rdp->completed = rnp->completed;
	rdp->qs_pending = false;
	rdp->passed_qs = false;
	rcu_segcblist_init(&rdp->cbl);
	rnp->qsmaskinitnext |= rdp->grpmask;
	rdp->ready = true;
	spin_unlock_irqrestore(&rnp->lock, flags);
}

/*
 * CPU hotplug (note 4). On the dying CPU, interrupts off, out of
 * cpu_online_mask: it runs no reader (the stopper switched out whatever
 * ran), so it leaves its leaf's qsmaskinitnext and reports its quiescent
 * state for the grace period in flight, which empties the leaf, and its
 * parents, if it was the last one owing. Its callbacks wait for
 * rcu_variant_cpu_dead(); an expedited request in flight is answered.
 */
bool rcu_variant_hotplug = true;

void rcu_variant_cpu_offline(unsigned int cpu)
{
	struct rcu_data *rdp = per_cpu_ptr(&rcu_data, cpu);
	struct rcu_node *rnp = rdp->mynode;
	unsigned long flags;

	spin_lock(&rcu_ofl_lock);
	flags = spin_lock_irqsave(&rnp->lock);
	rnp->qsmaskinitnext &= ~rdp->grpmask;
	WRITE_ONCE(rdp->qs_pending, false);
	if (rnp->qsmask & rdp->grpmask) {
		rcu_stats_qs();
		rcu_trace_qs(cpu);
		rcu_report_qs_rnp(rdp->grpmask, rnp, rnp->gpnum, flags);
	} else {
		spin_unlock_irqrestore(&rnp->lock, flags);
	}
	spin_unlock(&rcu_ofl_lock);
	rcu_exp_cpu_offline(cpu);
}

/*
 * On the CPU that ran cpu_down() (a task, interrupts on): the dead CPU's
 * callbacks, all four segments in order, join this CPU's NEXT, to be
 * given a grace period that begins after now: late, never early; and
 * behind nothing an rcu_barrier() queues later (it waits for the hotplug
 * lock we run under), so each CPU's order, which it relies on, is kept.
 */
void rcu_variant_cpu_dead(unsigned int cpu)
{
	struct rcu_data *dead = per_cpu_ptr(&rcu_data, cpu), *rdp;
	unsigned long flags;
	int i;

	flags = local_irq_save();
	rdp = this_cpu_ptr(&rcu_data);
	for (i = RCU_DONE; i < RCU_NSEGS; i++) {
		list_splice_tail_init(&dead->cbl.seg[i], &rdp->cbl.seg[RCU_NEXT]);
		rdp->cbl.len[RCU_NEXT] += dead->cbl.len[i];
		dead->cbl.len[i] = 0;
	}
	local_irq_restore(flags);
	rcu_exp_wake_check();
	preempt_disable();
	note_gp_changes(this_cpu_ptr(&rcu_data));	/* a grace period for them */
	preempt_enable();
}

/* Back (on it, interrupts off, before its tick): the next grace period takes it up. */
void rcu_variant_cpu_reonline(unsigned int cpu)
{
	struct rcu_data *rdp = per_cpu_ptr(&rcu_data, cpu);
	struct rcu_node *rnp = rdp->mynode;
	unsigned long flags;

	flags = spin_lock_irqsave(&rnp->lock);
	rdp->gpnum = rnp->gpnum;
	rdp->completed = rnp->completed;
	rdp->qs_pending = false;
	rdp->passed_qs = false;
	rnp->qsmaskinitnext |= rdp->grpmask;
	spin_unlock_irqrestore(&rnp->lock, flags);
}

void rcu_variant_init(void)
{
	rcu_init_geometry();
	open_softirq(RCU_SOFTIRQ, rcu_core);
	printk("rcu (tree): %d levels, %d nodes for %u CPUs (fanout %d, leaf fanout %d)\n",
	       rcu_state.nr_levels, rcu_state.nr_nodes, nr_cpu_ids, RCU_FANOUT, RCU_FANOUT_LEAF);
}

/* The kthread lives on CPU 0 (note 8), at the lowest real-time priority (note 9). */
void rcu_variant_late_init(void)
{
	rcu_state.gp_kthread = kthread_create_on_cpu(rcu_gp_kthread, NULL, 0, "rcu_gp");
	BUG_ON(!rcu_state.gp_kthread);
	sched_setscheduler(rcu_state.gp_kthread, SCHED_FIFO, 1);	/* note 9 */
	wake_up_process(rcu_state.gp_kthread);
}
