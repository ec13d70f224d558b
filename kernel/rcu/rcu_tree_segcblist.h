/*
 * Tree RCU's per-CPU callback list, segmented by the grace period each
 * callback waits for (the idea of Linux's kernel/rcu/rcu_segcblist.c,
 * written here over list_heads instead of one list with tail pointers).
 *
 *   DONE        its grace period has ended: to be invoked
 *   WAIT        waits for grace period gp[WAIT]
 *   NEXT_READY  waits for grace period gp[NEXT_READY] (>= gp[WAIT])
 *   NEXT        queued by call_rcu(), no grace period assigned yet
 *
 * Callbacks only move towards DONE, a segment at a time, so each CPU
 * invokes its callbacks in the order it queued them (rcu_barrier()
 * rests on that). Every operation runs on the owning CPU with interrupts
 * off (call_rcu() may come from an interrupt).
 */
#ifndef _KERNEL_RCU_TREE_SEGCBLIST_H
#define _KERNEL_RCU_TREE_SEGCBLIST_H

#include <list.h>
#include <rcupdate.h>

enum { RCU_DONE, RCU_WAIT, RCU_NEXT_READY, RCU_NEXT, RCU_NSEGS };

struct rcu_segcblist {
	struct list_head seg[RCU_NSEGS];
	unsigned long gp[RCU_NSEGS];	/* WAIT and NEXT_READY: the grace period awaited */
	unsigned long len[RCU_NSEGS];
};

/* Wrap-safe: has grace period a been reached by b (a <= b)? */
static inline bool rcu_gp_le(unsigned long a, unsigned long b)
{
	return (long)(b - a) >= 0;
}

static inline void rcu_segcblist_init(struct rcu_segcblist *l)
{
	for (int i = 0; i < RCU_NSEGS; i++) {
		INIT_LIST_HEAD(&l->seg[i]);
		l->gp[i] = 0;
		l->len[i] = 0;
	}
}

static inline bool rcu_segcblist_seg_empty(struct rcu_segcblist *l, int i)
{
	return list_empty(&l->seg[i]);
}

static inline void rcu_segcblist_enqueue(struct rcu_segcblist *l, struct rcu_head *h)
{
	list_add_tail(&h->list, &l->seg[RCU_NEXT]);
	l->len[RCU_NEXT]++;
}

/* Append segment from to segment to (from is later in the list). */
static inline void rcu_segcblist_merge(struct rcu_segcblist *l, int from, int to)
{
	list_splice_tail_init(&l->seg[from], &l->seg[to]);
	l->len[to] += l->len[from];
	l->len[from] = 0;
}

/*
 * Grace period `completed` has ended: WAIT and NEXT_READY segments whose
 * grace period is <= completed join DONE, in order; a NEXT_READY left
 * behind an emptied WAIT takes its place.
 */
static inline void rcu_segcblist_advance(struct rcu_segcblist *l, unsigned long completed)
{
	for (int i = RCU_WAIT; i <= RCU_NEXT_READY; i++) {
		if (rcu_segcblist_seg_empty(l, i))
			continue;
		if (!rcu_gp_le(l->gp[i], completed))
			break;
		rcu_segcblist_merge(l, i, RCU_DONE);
	}
	if (rcu_segcblist_seg_empty(l, RCU_WAIT) && !rcu_segcblist_seg_empty(l, RCU_NEXT_READY)) {
		rcu_segcblist_merge(l, RCU_NEXT_READY, RCU_WAIT);
		l->gp[RCU_WAIT] = l->gp[RCU_NEXT_READY];
	}
}

/*
 * Give NEXT's callbacks grace period c, which the caller knows cannot have
 * begun before now: it is then also enough for every callback queued
 * earlier, so the first segment whose grace period is >= c (or that is
 * empty) takes c and everything after it. If WAIT and NEXT_READY both wait
 * for earlier grace periods, NEXT waits until advance() frees a segment.
 * Returns true if grace period c is now awaited (the caller requests it).
 */
static inline bool rcu_segcblist_accelerate(struct rcu_segcblist *l, unsigned long c)
{
	int target;

	if (rcu_segcblist_seg_empty(l, RCU_NEXT))
		return false;
	if (rcu_segcblist_seg_empty(l, RCU_WAIT) || rcu_gp_le(c, l->gp[RCU_WAIT]))
		target = RCU_WAIT;
	else if (rcu_segcblist_seg_empty(l, RCU_NEXT_READY) || rcu_gp_le(c, l->gp[RCU_NEXT_READY]))
		target = RCU_NEXT_READY;
	else
		return false;
	for (int i = target + 1; i < RCU_NSEGS; i++)
		rcu_segcblist_merge(l, i, target);
	l->gp[target] = c;
	return true;
}

static inline unsigned long rcu_segcblist_pending(struct rcu_segcblist *l)
{
	return l->len[RCU_WAIT] + l->len[RCU_NEXT_READY] + l->len[RCU_NEXT];
}

#endif
