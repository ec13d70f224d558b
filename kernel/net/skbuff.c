/*
 * Packet buffers (skbuff.h): allocation, copies, queues, and the counts
 * that netstat prints and the tests compare with a baseline: every
 * buffer allocated is freed exactly once, whatever path a packet takes
 * (delivered, dropped as malformed, dropped for a full queue).
 */
#include <net/skbuff.h>
#include <net/netstat.h>
#include <net/dst.h>
#include <kmalloc.h>
#include <string.h>
#include <atomic.h>

static atomic_long_t skb_alive, skb_allocs, skb_frees;

struct sk_buff *alloc_skb(unsigned int size)
{
	struct sk_buff *skb = kmalloc(sizeof(*skb));
	unsigned char *data;

	if (!skb)
		goto fail;
	data = kmalloc(size);
	if (!data) {
		kfree(skb);
		goto fail;
	}
	memset(skb, 0, sizeof(*skb));
	skb->head = skb->data = skb->tail = data;
	skb->end = data + size;
	skb->truesize = ksize(data) + sizeof(*skb);
	atomic_long_inc(&skb_alive);
	atomic_long_inc(&skb_allocs);
	return skb;
fail:
	NET_INC(skb_alloc_failures);
	return NULL;
}

void kfree_skb(struct sk_buff *skb)
{
	if (!skb)
		return;
	dst_release(skb->dst);
	kfree(skb->head);
	kfree(skb);
	atomic_long_dec(&skb_alive);
	atomic_long_inc(&skb_frees);
}

void skb_dst_drop(struct sk_buff *skb)
{
	dst_release(skb->dst);
	skb->dst = NULL;
}

struct sk_buff *skb_copy(const struct sk_buff *skb)
{
	struct sk_buff *n = alloc_skb(skb->end - skb->head);

	if (!n)
		return NULL;
	memcpy(n->head, skb->head, skb->end - skb->head);
	n->data = n->head + (skb->data - skb->head);
	n->tail = n->head + (skb->tail - skb->head);
	n->len = skb->len;
	n->dev = skb->dev;
	n->protocol = skb->protocol;
	n->mac_off = skb->mac_off;
	n->network_off = skb->network_off;
	n->transport_off = skb->transport_off;
	n->pkt_type = skb->pkt_type;
	n->ttl = skb->ttl;
	n->saddr = skb->saddr;
	n->daddr = skb->daddr;
	n->sport = skb->sport;
	return n;
}

long skbs_alive(void)
{
	return atomic_long_read(&skb_alive);
}

void skb_get_counts(u64 *alive, u64 *allocs, u64 *frees)
{
	*alive = atomic_long_read(&skb_alive);
	*allocs = atomic_long_read(&skb_allocs);
	*frees = atomic_long_read(&skb_frees);
}

/* ---- Queues */

void skb_queue_head_init(struct sk_buff_head *q, const char *lock_name)
{
	q->next = q->prev = (struct sk_buff *)q;
	q->qlen = 0;
	spin_lock_init(&q->lock, lock_name);
}

static void insert(struct sk_buff_head *q, struct sk_buff *skb, struct sk_buff *prev,
		   struct sk_buff *next)
{
	skb->next = next;
	skb->prev = prev;
	next->prev = skb;
	WRITE_ONCE(prev->next, skb);
	WRITE_ONCE(q->qlen, q->qlen + 1);
}

void __skb_queue_tail(struct sk_buff_head *q, struct sk_buff *skb)
{
	insert(q, skb, q->prev, (struct sk_buff *)q);
}

void __skb_queue_head(struct sk_buff_head *q, struct sk_buff *skb)
{
	insert(q, skb, (struct sk_buff *)q, q->next);
}

struct sk_buff *__skb_dequeue(struct sk_buff_head *q)
{
	struct sk_buff *skb = skb_peek(q);

	if (!skb)
		return NULL;
	WRITE_ONCE(q->next, skb->next);
	skb->next->prev = (struct sk_buff *)q;
	skb->next = skb->prev = NULL;
	WRITE_ONCE(q->qlen, q->qlen - 1);
	return skb;
}

void skb_queue_tail(struct sk_buff_head *q, struct sk_buff *skb)
{
	unsigned long flags = spin_lock_irqsave(&q->lock);

	__skb_queue_tail(q, skb);
	spin_unlock_irqrestore(&q->lock, flags);
}

struct sk_buff *skb_dequeue(struct sk_buff_head *q)
{
	unsigned long flags = spin_lock_irqsave(&q->lock);
	struct sk_buff *skb = __skb_dequeue(q);

	spin_unlock_irqrestore(&q->lock, flags);
	return skb;
}

void skb_queue_purge(struct sk_buff_head *q)
{
	struct sk_buff *skb;

	while ((skb = skb_dequeue(q)))
		kfree_skb(skb);
}
