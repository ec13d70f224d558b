/*
 * Circular doubly linked lists, as in Linux: a struct list_head is embedded
 * in each element, and the list head is a struct list_head of its own.
 * No locking: the user protects the list. (The RCU-safe variants,
 * list_*_rcu, come with kernel/rcu.)
 */
#ifndef _LIST_H
#define _LIST_H

#include <compiler.h>

struct list_head {
	struct list_head *next, *prev;
};

#define LIST_HEAD_INIT(name)	{ &(name), &(name) }
#define LIST_HEAD(name)		struct list_head name = LIST_HEAD_INIT(name)

static inline void INIT_LIST_HEAD(struct list_head *l)
{
	WRITE_ONCE(l->next, l);
	l->prev = l;
}

static inline void __list_add(struct list_head *n, struct list_head *prev,
			      struct list_head *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	WRITE_ONCE(prev->next, n);
}

/* Insert n right after head (a stack). */
static inline void list_add(struct list_head *n, struct list_head *head)
{
	__list_add(n, head, head->next);
}

/* Insert n before head, i.e. at the tail (a queue). */
static inline void list_add_tail(struct list_head *n, struct list_head *head)
{
	__list_add(n, head->prev, head);
}

static inline void __list_del(struct list_head *prev, struct list_head *next)
{
	next->prev = prev;
	WRITE_ONCE(prev->next, next);
}

/* Unlink e and leave it pointing at itself (list_empty(e) is then true). */
static inline void list_del_init(struct list_head *e)
{
	__list_del(e->prev, e->next);
	INIT_LIST_HEAD(e);
}

static inline void list_del(struct list_head *e)
{
	list_del_init(e);
}

static inline bool list_empty(const struct list_head *head)
{
	return READ_ONCE(head->next) == head;
}

static inline void list_move_tail(struct list_head *e, struct list_head *head)
{
	__list_del(e->prev, e->next);
	list_add_tail(e, head);
}

static inline void list_move(struct list_head *e, struct list_head *head)
{
	__list_del(e->prev, e->next);
	list_add(e, head);
}

#define list_entry(ptr, type, member)	container_of(ptr, type, member)
#define list_first_entry(head, type, member) \
	list_entry((head)->next, type, member)
#define list_next_entry(pos, member) \
	list_entry((pos)->member.next, typeof(*(pos)), member)

#define list_for_each(pos, head) \
	for (pos = (head)->next; pos != (head); pos = pos->next)

#define list_for_each_entry(pos, head, member)				\
	for (pos = list_first_entry(head, typeof(*pos), member);	\
	     &pos->member != (head);					\
	     pos = list_next_entry(pos, member))

#define list_for_each_entry_safe(pos, n, head, member)			\
	for (pos = list_first_entry(head, typeof(*pos), member),	\
	     n = list_next_entry(pos, member);				\
	     &pos->member != (head);					\
	     pos = n, n = list_next_entry(n, member))

/* Move every element of list to the front of head; list is left empty. */
static inline void list_splice_init(struct list_head *list, struct list_head *head)
{
	if (!list_empty(list)) {
		struct list_head *first = list->next, *last = list->prev;

		first->prev = head;
		last->next = head->next;
		head->next->prev = last;
		WRITE_ONCE(head->next, first);
		INIT_LIST_HEAD(list);
	}
}

/* Move every element of list to the back of head; list is left empty. */
static inline void list_splice_tail_init(struct list_head *list, struct list_head *head)
{
	if (!list_empty(list)) {
		struct list_head *first = list->next, *last = list->prev;

		first->prev = head->prev;
		head->prev->next = first;
		last->next = head;
		head->prev = last;
		INIT_LIST_HEAD(list);
	}
}

static inline unsigned long list_count(const struct list_head *head)
{
	unsigned long n = 0;

	for (const struct list_head *p = head->next; p != head; p = p->next)
		n++;
	return n;
}

/*
 * hlists: hash-bucket lists with a one-pointer head (seed 001: "added by
 * Andi Kleen in order to reduce memory requirements for large hash
 * tables"). pprev points at the previous element's next field (or the
 * head's first), so deletion needs no head.
 */
struct hlist_node {
	struct hlist_node *next, **pprev;
};

struct hlist_head {
	struct hlist_node *first;
};

#define HLIST_HEAD_INIT		{ .first = NULL }
#define INIT_HLIST_HEAD(h)	((h)->first = NULL)

static inline void INIT_HLIST_NODE(struct hlist_node *n)
{
	n->next = NULL;
	n->pprev = NULL;
}

static inline bool hlist_unhashed(const struct hlist_node *n)
{
	return !n->pprev;
}

static inline bool hlist_empty(const struct hlist_head *h)
{
	return !READ_ONCE(h->first);
}

static inline void hlist_add_head(struct hlist_node *n, struct hlist_head *h)
{
	struct hlist_node *first = h->first;

	n->next = first;
	if (first)
		first->pprev = &n->next;
	WRITE_ONCE(h->first, n);
	n->pprev = &h->first;
}

static inline void __hlist_del(struct hlist_node *n)
{
	struct hlist_node *next = n->next, **pprev = n->pprev;

	WRITE_ONCE(*pprev, next);
	if (next)
		next->pprev = pprev;
}

static inline void hlist_del_init(struct hlist_node *n)
{
	if (!hlist_unhashed(n)) {
		__hlist_del(n);
		INIT_HLIST_NODE(n);
	}
}

#define hlist_entry(ptr, type, member)	container_of(ptr, type, member)
#define hlist_entry_safe(ptr, type, member) \
	({ __typeof__(ptr) ____p = (ptr); ____p ? hlist_entry(____p, type, member) : NULL; })
#define hlist_for_each_entry(pos, head, member)					\
	for (pos = hlist_entry_safe((head)->first, __typeof__(*(pos)), member); pos;	\
	     pos = hlist_entry_safe((pos)->member.next, __typeof__(*(pos)), member))
/* The same, for a walk that may delete pos (n: a spare node pointer). */
#define hlist_for_each_entry_safe(pos, n, head, member)				\
	for (pos = hlist_entry_safe((head)->first, __typeof__(*(pos)), member);	\
	     pos && ({ n = (pos)->member.next; 1; });					\
	     pos = hlist_entry_safe(n, __typeof__(*(pos)), member))

#endif
