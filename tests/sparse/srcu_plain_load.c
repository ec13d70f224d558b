/*
 * Planted SRCU mistakes that `make check` must report (tests/test_check.py):
 * an SRCU-protected pointer (declared __rcu, as every one in the tree is)
 * walked with plain loads inside srcu_read_lock(), and srcu_dereference()
 * of a pointer nobody declared __rcu. The section does not make a plain
 * load safe: only the accessor's single load and its check do.
 */
#include <srcu.h>
#include <notifier.h>

struct srcu_item {
	int val;
};

struct srcu_struct item_ss;
struct srcu_item __rcu *srcu_item_gp;
struct srcu_item *srcu_item_plain;

int srcu_plain_load(void)
{
	int idx = srcu_read_lock(&item_ss);
	struct srcu_item *p = srcu_item_gp;	/* BUG: no srcu_dereference() */
	int v = p->val;

	srcu_read_unlock(&item_ss, idx);
	return v;
}

int srcu_not_annotated(void)
{
	int idx = srcu_read_lock(&item_ss);
	int v = srcu_dereference(srcu_item_plain, &item_ss)->val;	/* BUG: not __rcu */

	srcu_read_unlock(&item_ss, idx);
	return v;
}

int chain_plain_walk(struct srcu_notifier_head *nh)
{
	struct notifier_block *nb;
	int n = 0;
	int idx = srcu_read_lock(&nh->srcu);

	for (nb = srcu_dereference(nh->head, &nh->srcu); nb;
	     nb = nb->next)				/* BUG: next is __rcu too */
		n++;
	srcu_read_unlock(&nh->srcu, idx);
	return n;
}
