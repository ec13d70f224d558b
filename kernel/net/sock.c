/*
 * What every socket does alike (sock.h): allocation, the receive queue
 * with its memory limit, and the blocking receive with its three ways
 * out besides data (shutdown, timeout, signal).
 *
 * The receive queue's lock is the socket's lock. Producers (the receive
 * path, in softirq context) append and charge skb->truesize to rmem;
 * a reader unlinks and uncharges. A datagram that would take rmem past
 * rcvbuf is refused (the protocol counts it): UDP drops rather than
 * blocks its sender.
 *
 * The sleep is the wait-queue loop of include/wait.h: on the queue with
 * the state set, then the checks, then schedule_timeout(); a producer
 * queues first and wakes second, so the reader either sees the datagram
 * or is woken.
 */
#include <net/sock.h>
#include <net/netstat.h>
#include <file.h>
#include <kmalloc.h>
#include <sched.h>
#include <atomic.h>
#include <errno.h>
#include <uapi/net.h>

static atomic_long_t nr_socks;

long sockets_alive(void)
{
	return atomic_long_read(&nr_socks);
}

struct sock *sk_alloc(const struct proto *prot, int type, int protocol)
{
	struct sock *sk = kzalloc(sizeof(*sk));

	if (!sk)
		return NULL;
	sk->prot = prot;
	sk->type = type;
	sk->protocol = protocol;
	skb_queue_head_init(&sk->rcvq, "sock");
	sk->rcvbuf = SK_RCVBUF_DEFAULT;
	init_waitqueue_head(&sk->wq);
	sk->ttl = 64;
	sk->rcvtimeo = MAX_SCHEDULE_TIMEOUT;
	INIT_LIST_HEAD(&sk->node);
	atomic_long_inc(&nr_socks);
	return sk;
}

void sk_free(struct sock *sk)
{
	if (sk->hashed)
		sk->prot->unhash(sk);
	skb_queue_purge(&sk->rcvq);
	kfree(sk);
	atomic_long_dec(&nr_socks);
}

void sk_wake_all(struct sock *sk)
{
	wake_up_all(&sk->wq);
}

int sock_queue_rcv_skb(struct sock *sk, struct sk_buff *skb)
{
	unsigned long flags = spin_lock_irqsave(&sk->rcvq.lock);

	if ((sk->shutdown & RCV_SHUTDOWN) || sk->rmem + skb->truesize > sk->rcvbuf) {
		spin_unlock_irqrestore(&sk->rcvq.lock, flags);
		return -ENOBUFS;
	}
	__skb_queue_tail(&sk->rcvq, skb);
	sk->rmem += skb->truesize;
	spin_unlock_irqrestore(&sk->rcvq.lock, flags);
	wake_up_interruptible(&sk->wq);
	return 0;
}

void sock_requeue_skb(struct sock *sk, struct sk_buff *skb)
{
	unsigned long flags = spin_lock_irqsave(&sk->rcvq.lock);

	__skb_queue_head(&sk->rcvq, skb);
	sk->rmem += skb->truesize;
	spin_unlock_irqrestore(&sk->rcvq.lock, flags);
}

/* A datagram (taken, or copied for a peek), or why there is none yet. */
static struct sk_buff *try_take(struct sock *sk, bool peek, int *err)
{
	unsigned long flags = spin_lock_irqsave(&sk->rcvq.lock);
	struct sk_buff *skb = skb_peek(&sk->rcvq);

	*err = -EAGAIN;
	if (skb) {
		if (peek) {
			skb = skb_copy(skb);
			if (!skb)
				*err = -ENOMEM;
		} else {
			__skb_dequeue(&sk->rcvq);
			sk->rmem -= skb->truesize;
		}
	} else if (sk->err) {
		*err = -sk->err;
		sk->err = 0;
	} else if (sk->shutdown & RCV_SHUTDOWN) {
		*err = 0;
	}
	spin_unlock_irqrestore(&sk->rcvq.lock, flags);
	return skb;
}

struct sk_buff *sock_recv_skb(struct sock *sk, struct file *f, int flags, int *err)
{
	bool peek = flags & QS_MSG_PEEK;
	long timeo = READ_ONCE(sk->rcvtimeo);
	struct sk_buff *skb;
	DEFINE_WAIT(wait);

	if ((skb = try_take(sk, peek, err)) || *err != -EAGAIN)
		return skb;
	if ((flags & QS_MSG_DONTWAIT) || (f && file_nonblock(f)) || timeo == 0)
		return NULL;
	for (;;) {
		prepare_to_wait(&sk->wq, &wait, TASK_INTERRUPTIBLE);
		if ((skb = try_take(sk, peek, err)) || *err != -EAGAIN)
			break;
		if (f && file_nonblock(f))	/* F_SETFL from another process */
			break;
		if (signal_pending(current)) {
			*err = -EINTR;
			break;
		}
		if (timeo == 0)			/* SO_RCVTIMEO passed: -EAGAIN, as on Linux */
			break;
		timeo = schedule_timeout(timeo);
	}
	finish_wait(&sk->wq, &wait);
	return skb;
}
