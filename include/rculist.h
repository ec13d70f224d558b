/*
 * RCU-safe list operations (seed 001 Listing 2; seed 000 Appendix B).
 *
 * Writers still exclude each other (a lock); readers traverse with no lock
 * inside rcu_read_lock(). What makes that safe:
 *   - insertion publishes a fully initialised element: its next/prev are
 *     set first, then the one pointer a reader follows is set with
 *     rcu_assign_pointer() (a write barrier where the CPU needs one);
 *   - deletion unlinks the element but leaves its own next pointer intact,
 *     so a reader standing on it can walk on; the element may only be
 *     freed after a grace period (call_rcu());
 *   - traversal loads each next pointer once, with rcu_dereference().
 */
#ifndef _RCULIST_H
#define _RCULIST_H

#include <list.h>
#include <rcupdate.h>

/*
 * The one pointer of each node a reader follows, seen as __rcu: list_head
 * itself stays a plain type (the non-RCU list code uses it too), and these
 * say where RCU's rules apply (Linux's names).
 */
#define list_next_rcu(p)	(*((struct list_head __rcu **)&(p)->next))
#define hlist_first_rcu(h)	(*((struct hlist_node __rcu **)&(h)->first))
#define hlist_next_rcu(n)	(*((struct hlist_node __rcu **)&(n)->next))

static inline void __list_add_rcu(struct list_head *n, struct list_head *prev,
				  struct list_head *next)
{
	n->next = next;
	n->prev = prev;
	rcu_assign_pointer(list_next_rcu(prev), n);	/* publish: the element is ready */
	next->prev = n;
}

static inline void list_add_rcu(struct list_head *n, struct list_head *head)
{
	__list_add_rcu(n, head, head->next);
}

static inline void list_add_tail_rcu(struct list_head *n, struct list_head *head)
{
	__list_add_rcu(n, head->prev, head);
}
/* The 2.5 kernel's name (seed 001 Listing 2). */
#define list_add_rcu_tail(n, head)	list_add_tail_rcu(n, head)

/* Unlink e; e->next stays valid for readers until a grace period passes. */
static inline void list_del_rcu(struct list_head *e)
{
	__list_del(e->prev, e->next);
	e->prev = (struct list_head *)0x200;	/* poison: writers must not use it */
}

/* Replace old by new in place, for readers atomically. */
static inline void list_replace_rcu(struct list_head *old, struct list_head *new)
{
	new->next = old->next;
	new->prev = old->prev;
	rcu_assign_pointer(list_next_rcu(new->prev), new);
	new->next->prev = new;
	old->prev = (struct list_head *)0x200;
}


#define list_for_each_rcu(pos, head)						\
	for (pos = rcu_dereference(list_next_rcu(head)); pos != (head);		\
	     pos = rcu_dereference(list_next_rcu(pos)))

/*
 * The optional last argument is the update side's reason, as in Linux:
 * list_for_each_entry_rcu(pos, head, member, mutex_is_locked(&lock)) may
 * walk the list under that lock, outside rcu_read_lock(), with no
 * CONFIG_PROVE_RCU report (docs/rcu/checking.md).
 */
#ifdef __CHECKER__
/* sparse 0.6 has no __VA_OPT__; the comma operator is fine for a checker. */
#define __rcu_list_cond(...)	(0 , ##__VA_ARGS__)
#else
#define __rcu_list_cond(...)	(0 __VA_OPT__(|| (__VA_ARGS__)))
#endif
#define list_for_each_entry_rcu(pos, head, member, cond...)			\
	for (pos = list_entry(rcu_dereference_check(list_next_rcu(head),	\
						    __rcu_list_cond(cond)),	\
			      __typeof__(*pos), member);			\
	     &pos->member != (head);						\
	     pos = list_entry(rcu_dereference_check(list_next_rcu(&pos->member), \
						    __rcu_list_cond(cond)),	\
			      __typeof__(*pos), member))

/* ---- hlists */

static inline void hlist_add_head_rcu(struct hlist_node *n, struct hlist_head *h)
{
	struct hlist_node *first = h->first;

	n->next = first;
	n->pprev = &h->first;
	rcu_assign_pointer(hlist_first_rcu(h), n);	/* publish */
	if (first)
		first->pprev = &n->next;
}

static inline void hlist_del_rcu(struct hlist_node *n)
{
	__hlist_del(n);
	n->pprev = (struct hlist_node **)0x200;
}

static inline void hlist_del_init_rcu(struct hlist_node *n)
{
	if (!hlist_unhashed(n)) {
		__hlist_del(n);
		n->pprev = NULL;
	}
}

#define hlist_for_each_entry_rcu(pos, head, member, cond...)			\
	for (pos = hlist_entry_safe(rcu_dereference_check(hlist_first_rcu(head),	\
						__rcu_list_cond(cond)),		\
				    __typeof__(*(pos)), member);		\
	     pos;								\
	     pos = hlist_entry_safe(rcu_dereference_check(hlist_next_rcu(&(pos)->member),	\
						__rcu_list_cond(cond)),		\
				    __typeof__(*(pos)), member))

#endif
