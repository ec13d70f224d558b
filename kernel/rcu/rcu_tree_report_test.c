/*
 * Unit tests of Tree RCU's report of quiescent states up the tree
 * (ktest=rcu_tree_report_*): the report is run on a tree of this file's own,
 * three levels of two children, eight "CPUs", never the running tree's
 * rcu_node[], so that a wrong report fails here with the node it got
 * wrong instead of hanging a grace period.
 *
 *   node 0                     root, level 0, CPUs 0-7
 *   node 1, node 2             level 1, CPUs 0-3 and 4-7
 *   node 3, 4, 5, 6            leaves, CPUs 0-1, 2-3, 4-5, 6-7
 *
 * Which report: Tree RCU's own (rcu_node_report_qs()), which make test's
 * rcu-tree-smp1 and rcu-tree-smp4 (ktest=rcu_*) test, or with lab7=test
 * or lab7=on the one a student writes in Lab 7 (kernel/rcu/lab7_report.c,
 * labs/lab7-tree-rcu). The diagnostics say what a wrong one did in the
 * words of its contract (rcu_tree.h); labs/lab7-tree-rcu/grade.toml's hints
 * match them.
 */
#include "rcu_tree.h"
#include <ktest.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <printk.h>
#include <arch/cpu.h>

#define TN	7
#define TGP	5		/* the grace period the tests report for */

static struct rcu_node tn[TN];

/* The report under test (rcu_tree.h's contract): the student's with lab7=test or on. */
static bool report_under_test(unsigned long mask, struct rcu_node *rnp, unsigned long gp,
			      unsigned long flags)
	__releases(&rnp->lock)
{
	if (rcu_lab7_mode == RCU_LAB7_OFF)
		return rcu_node_report_qs(mask, rnp, gp, flags);
	return lab7_report_qs_rnp(mask, rnp, gp, flags);
}

/* Every node waits for both its children in grace period TGP. */
static void tree_setup(void)
{
	int i;

	for (i = 0; i < TN; i++) {
		struct rcu_node *rnp = &tn[i];

		spin_lock_init(&rnp->lock, "tree_report_test.lock");
		rnp->level = i == 0 ? 0 : i < 3 ? 1 : 2;
		rnp->leaf = i >= 3;
		rnp->parent = i == 0 ? NULL : &tn[(i - 1) / 2];
		rnp->grpmask = i == 0 ? 0 : 1UL << ((i - 1) % 2);
		rnp->grplo = i == 0 ? 0 : i < 3 ? (i - 1) * 4 : (i - 3) * 2;
		rnp->grphi = rnp->grplo + (i == 0 ? 7 : i < 3 ? 3 : 1);
		rnp->qsmask = rnp->qsmaskinit = rnp->qsmaskinitnext = 0x3;
		rnp->gpnum = TGP;
		rnp->completed = TGP - 1;
	}
}

/*
 * Report mask at node i for grace period gp, as Tree RCU does: i's lock
 * taken with interrupts off. Afterwards no lock may be held and
 * interrupts must be on again (the tests run with them on).
 */
static bool report(struct ktest_ctx *t, int i, unsigned long mask, unsigned long gp)
{
	unsigned long flags = spin_lock_irqsave(&tn[i].lock);
	bool root = report_under_test(mask, &tn[i], gp, flags);
	int j;

	if (!KT_EXPECT(t, !irqs_disabled(), "interrupts still off after reporting %#lx at node %d: "
		       "each lock taken with spin_lock_irqsave() is dropped with "
		       "spin_unlock_irqrestore() and its own flags", mask, i))
		local_irq_enable();
	for (j = 0; j < TN; j++)
		KT_EXPECT(t, !spin_is_locked(&tn[j].lock), "node %d's lock still held after reporting "
			  "%#lx at node %d: the report returns with every lock dropped, the caller's "
			  "too", j, mask, i);
	return root;
}

/*
 * The tree's masks against want[] (root first). A difference is said in
 * the contract's words: an empty node whose bit is still set in its
 * parent was not reported up; a bit cleared in a parent whose child still
 * owes was reported up too early.
 */
static void expect_masks(struct ktest_ctx *t, const char *after, const unsigned long want[TN])
{
	int i, said = 0;

	for (i = 0; i < TN; i++) {
		unsigned long got = READ_ONCE(tn[i].qsmask);

		if (got == want[i])
			continue;
		if (said++ == 3) {	/* enough to see the pattern */
			kt_info("(and more nodes after %s)", after);
			break;
		}
		ktest_fail(t, __FILE__, __LINE__, "after %s: expected node %d (level %d) qsmask "
			   "%#lx, found %#lx", after, i, tn[i].level, want[i], got);
		if (tn[i].leaf) {
			if (got & ~want[i])
				kt_info("leaf node %d still has bits %#lx that were reported at it",
					i, got & ~want[i]);
			continue;
		}
		/* An interior node: look at its two children. */
		for (int c = 2 * i + 1; c <= 2 * i + 2; c++) {
			unsigned long bit = tn[c].grpmask, cm = READ_ONCE(tn[c].qsmask);

			if (!cm && (got & bit))
				kt_info("node %d is empty but its bit %#lx is still set in its parent "
					"node %d", c, bit, i);
			/* A child that kept bits reported at it is its own
			 * mistake, said at the child, not a parent's. */
			if (cm && !(got & bit) && !(cm & ~want[c]))
				kt_info("node %d's bit %#lx was cleared in its parent node %d although "
					"node %d still owes %#lx", c, bit, i, c, cm);
		}
	}
}

KTEST(rcu_tree_report_leaf_keeps_waiting)
{
	static const unsigned long want[TN] = { 0x3, 0x3, 0x3, 0x2, 0x3, 0x3, 0x3 };

	tree_setup();
	KT_EXPECT(t, !report(t, 3, 0x1, TGP), "reporting CPU 0 alone said the root emptied");
	expect_masks(t, "CPU 0 reported at leaf node 3", want);
}

KTEST(rcu_tree_report_leaf_empties_into_parent)
{
	static const unsigned long want[TN] = { 0x3, 0x2, 0x3, 0x0, 0x3, 0x3, 0x3 };

	tree_setup();
	KT_EXPECT(t, !report(t, 3, 0x1, TGP), "reporting CPU 0 said the root emptied");
	KT_EXPECT(t, !report(t, 3, 0x2, TGP), "reporting CPU 1 said the root emptied");
	expect_masks(t, "CPUs 0 and 1 reported at leaf node 3", want);
}

KTEST(rcu_tree_report_up_to_the_root)
{
	static const unsigned long half[TN] = { 0x1, 0x3, 0x0, 0x3, 0x3, 0x0, 0x0 };
	static const unsigned long none[TN] = { 0 };
	int cpu, i, roots = 0;

	/* One CPU at a time, CPU 7 down to 0: only the last empties the root. */
	tree_setup();
	for (cpu = 7; cpu >= 0; cpu--) {
		bool root = report(t, 3 + cpu / 2, 1UL << (cpu % 2), TGP);

		roots += root;
		KT_EXPECT(t, root == (cpu == 0), "reporting CPU %d %s the root emptied", cpu,
			  root ? "said" : "did not say");
		if (cpu == 4)
			expect_masks(t, "CPUs 7 to 4 reported one at a time", half);
	}
	expect_masks(t, "every CPU reported one at a time", none);

	/* A whole leaf at once, as the forcing pass reports idle CPUs. */
	tree_setup();
	for (i = 3; i < TN; i++) {
		bool root = report(t, i, 0x3, TGP);
		unsigned long left = READ_ONCE(tn[i].qsmask);

		if (left) {
			/* None of the bits cleared is the leaf's own mistake
			 * (leaf_keeps_waiting says it); some is this test's. */
			ktest_fail(t, __FILE__, __LINE__, "reporting leaf node %d's CPUs together "
				   "(mask 0x3) left its qsmask at %#lx: %s", i, left,
				   left == 0x3 ? "none of the reported bits was cleared" :
				   "a report of several bits at once cleared only some");
			continue;
		}
		KT_EXPECT(t, root == (i == TN - 1), "reporting leaf node %d's CPUs together %s "
			  "the root emptied", i, root ? "said" : "did not say");
	}
	expect_masks(t, "every leaf reported whole, node 3 first", none);
}

KTEST(rcu_tree_report_stale_or_repeated_changes_nothing)
{
	static const unsigned long all[TN] = { 0x3, 0x3, 0x3, 0x3, 0x3, 0x3, 0x3 };
	static const unsigned long one[TN] = { 0x3, 0x2, 0x3, 0x0, 0x3, 0x3, 0x3 };

	tree_setup();
	KT_EXPECT(t, !report(t, 3, 0x3, TGP - 1), "a report for an ended grace period said the "
		  "root emptied");
	expect_masks(t, "a report for grace period 4 at leaf node 3 (the nodes are at 5)", all);
	report(t, 3, 0x3, TGP);
	report(t, 3, 0x1, TGP);
	expect_masks(t, "leaf node 3 reported whole, then CPU 0 again", one);
}

/* The other CPU's half of rcu_tree_report_takes_each_nodes_lock. */
static struct {
	volatile int go, done, root, irqs_off;
} tp;

static int parent_lock_thread(void *unused)
{
	unsigned long flags;

	while (!READ_ONCE(tp.go))
		cpu_relax();
	flags = spin_lock_irqsave(&tn[3].lock);
	tp.root = report_under_test(0x2, &tn[3], TGP, flags);
	tp.irqs_off = irqs_disabled();
	if (tp.irqs_off)
		local_irq_enable();
	WRITE_ONCE(tp.done, 1);
	return 0;
}

/*
 * While this CPU holds node held's lock (an ancestor of leaf node 3: node
 * 1, then the root), another CPU empties leaf node 3, and every node
 * between the two empties with it. A report that takes each node's lock
 * waits at the held one; one that clears a bit there without it changes
 * that node under our lock.
 */
static void hold_and_report(struct ktest_ctx *t, int held)
{
	unsigned long flags, seen, before;
	struct task *p;
	u64 until;
	bool below_done;
	int code;

	tree_setup();
	tn[3].qsmask = 0x2;			/* CPU 0 reported already */
	if (held == 0)
		tn[1].qsmask = 0x1;		/* node 4 reported already: node 1 empties too */
	before = tn[held].qsmask;
	tp.go = tp.done = tp.root = tp.irqs_off = 0;
	p = kthread_create_on_cpu(parent_lock_thread, NULL, 1, "tree_report");
	KT_ASSERT(t, p, "no thread on CPU 1");
	wake_up_process(p);

	flags = spin_lock_irqsave(&tn[held].lock);
	WRITE_ONCE(tp.go, 1);
	/* Wait for the nodes below to empty and their locks to go: the
	 * report is at node held now. Up to 10 s: on a loaded host the other
	 * vCPU may not run for a long while, and a report that never reached
	 * the held node would pass unseen; until the report returns, if it
	 * returns without emptying them. */
	until = ktime_get_ns() + 10000000000ULL;
	do {
		below_done = !READ_ONCE(tn[3].qsmask) && !spin_is_locked(&tn[3].lock) &&
			     (held == 1 || (!READ_ONCE(tn[1].qsmask) && !spin_is_locked(&tn[1].lock)));
		cpu_relax();
	} while (!below_done && !READ_ONCE(tp.done) && ktime_get_ns() < until);
	/* Give a report that does not wait for the held lock time to write. */
	if (below_done)
		mdelay(20);
	seen = READ_ONCE(tn[held].qsmask);
	spin_unlock_irqrestore(&tn[held].lock, flags);

	/* A report that returned without emptying them is not waited for:
	 * nothing more will change below. */
	KT_EXPECT(t, below_done, "the nodes below node %d were not empty %s", held,
		  READ_ONCE(tp.done) ? "when the report on CPU 1 returned" :
		  "10 s into the report on CPU 1");
	KT_EXPECT(t, seen == before, "node %d's qsmask became %#lx while this test held node %d's "
		  "lock: a node's qsmask is changed only with that node's lock held (take each "
		  "parent's lock, the root's too, before clearing the child's bit in it)",
		  held, seen, held);
	if (!below_done && !READ_ONCE(tn[3].qsmask) && spin_is_locked(&tn[3].lock))
		kt_info("leaf node 3's lock was still held 10 s after it emptied: drop the "
			"child's lock before taking the parent's");
	KT_ASSERT(t, kthread_join_timeout(p, 10 * HZ, &code), "the report on CPU 1 did not return "
		  "within 10 s of node %d's lock being dropped", held);
	KT_EXPECT(t, !READ_ONCE(tn[3].qsmask), "the report on CPU 1 left leaf node 3's qsmask at "
		  "%#lx: CPU 1's bit 0x2 is cleared there first", READ_ONCE(tn[3].qsmask));
	KT_EXPECT(t, !tp.irqs_off, "interrupts still off on CPU 1 after its report");
	KT_EXPECT(t, !tp.root, "emptying node 3 said the root emptied");
	KT_EXPECT(t, READ_ONCE(tn[held].qsmask) == (before & ~0x1UL), "node %d's qsmask is %#lx "
		  "once the report on CPU 1 returned, expected %#lx: the node below it emptied, "
		  "so its bit 0x1 goes", held, READ_ONCE(tn[held].qsmask), before & ~0x1UL);
}

KTEST(rcu_tree_report_takes_each_nodes_lock)
{
	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs a second CPU");
		return;
	}
	hold_and_report(t, 1);
	hold_and_report(t, 0);
}
