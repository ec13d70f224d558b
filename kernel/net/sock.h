/*
 * Sockets inside the kernel (kernel/net/sock.c, udp.c, raw.c); the
 * system calls and the file side are in socket.c.
 *
 * A struct sock is one endpoint: its local and remote address, its
 * receive queue, and the wait queue its readers sleep on. The protocol
 * (UDP, raw ICMP) keeps it in a lookup table from bind() until release;
 * the receive path finds it there, under the table's lock, and queues
 * packets on it with sock_queue_rcv_skb(). Since removal from the table
 * takes that same lock, nothing is queued on a socket being released.
 *
 * Its lifetime is its file's: released when the last reference to the
 * file goes (include/file.h). A process blocked in recvfrom() holds a
 * reference of its own, so close() in another process that shares the
 * file (after fork) does not pull the socket from under it; as on Linux,
 * shutdown(SHUT_RD) is what wakes it.
 */
#ifndef _NET_SOCK_H
#define _NET_SOCK_H

#include <types.h>
#include <list.h>
#include <wait.h>
#include <uaccess.h>
#include <net/skbuff.h>

#define RCV_SHUTDOWN	1
#define SEND_SHUTDOWN	2

#define SK_RCVBUF_DEFAULT	(128 * 1024)
#define SK_RCVBUF_MIN		2048
#define SK_RCVBUF_MAX		(1024 * 1024)

struct sock;

struct proto {
	const char *name;
	/* Claim port (network order; 0: any free one) at addr. */
	int (*bind)(struct sock *sk, u32 addr, u16 port);
	/* A bound socket now has a remote end (or, daddr 0, none). */
	int (*connect)(struct sock *sk, u32 daddr, u16 dport);
	/* One datagram to daddr:dport; returns len or a negative errno. */
	long (*sendmsg)(struct sock *sk, const void __user *buf, size_t len, u32 daddr, u16 dport);
	/* Out of the lookup table: no more packets arrive after this. */
	void (*unhash)(struct sock *sk);
};

struct sock {
	const struct proto *prot;
	int type, protocol;		/* QS_SOCK_DGRAM/RAW, QS_IPPROTO_* */
	struct sk_buff_head rcvq;	/* its lock also guards the fields below it */
	unsigned int rmem;		/* truesize of what is queued */
	unsigned int rcvbuf;		/* most rmem allowed */
	u8 shutdown;			/* RCV_SHUTDOWN | SEND_SHUTDOWN */
	int err;			/* pending error, reported once */
	struct wait_queue_head wq;
	/* Addresses, network order; set under the protocol's table lock. */
	u32 saddr;			/* bound local address, 0: any */
	u32 daddr;			/* connected peer, 0: none */
	u16 sport, dport;		/* sport 0: not bound yet */
	bool connected;
	bool broadcast;			/* SO_BROADCAST */
	u8 ttl;
	long rcvtimeo;			/* jiffies; MAX_SCHEDULE_TIMEOUT: forever */
	struct list_head node;		/* in the protocol's table */
	bool hashed;
};

struct sock *sk_alloc(const struct proto *prot, int type, int protocol);
void sk_free(struct sock *sk);
long sockets_alive(void);

/* From the receive path: 0, or -ENOBUFS (receive buffer full, shut down). */
int sock_queue_rcv_skb(struct sock *sk, struct sk_buff *skb);
/* Wake everyone blocked on sk (shutdown, F_SETFL, release). */
void sk_wake_all(struct sock *sk);

struct file;

/*
 * Take the next datagram: at once if one is queued; else, unless the
 * file is non-blocking or flags has MSG_DONTWAIT (-EAGAIN), sleep until
 * one arrives, the socket is shut down for reading (NULL, *err 0), the
 * receive timeout passes (-EAGAIN), a signal comes (-EINTR) or F_SETFL
 * makes the file non-blocking (-EAGAIN). MSG_PEEK leaves it queued and
 * returns a copy.
 */
struct sk_buff *sock_recv_skb(struct sock *sk, struct file *f, int flags, int *err);
/* Put a datagram taken by sock_recv_skb back at the head (the copy-out failed). */
void sock_requeue_skb(struct sock *sk, struct sk_buff *skb);

/* The socket behind descriptor fd, with a file reference the caller
 * drops (file_put); NULL with *err EBADF or ENOTSOCK. (socket.c) */
struct sock *sockfd_lookup(long fd, struct file **fp, long *err);

extern const struct proto udp_prot;
extern const struct proto raw_prot;

#endif
