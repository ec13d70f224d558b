/*
 * Network devices and the receive and transmit paths between them and
 * the protocols (kernel/net/dev.c), after Linux 2.6's:
 *
 *   receive: the driver's interrupt handler masks its interrupts and calls
 *   napi_schedule(); NET_RX_SOFTIRQ then calls the driver's poll() with a
 *   budget; poll() hands each packet to netif_receive_skb(), which gives
 *   it to ARP or IPv4 by EtherType; when the ring is empty poll() calls
 *   napi_complete() and unmasks. A device without a ring (loopback) calls
 *   netif_rx(), which queues the packet on this CPU's backlog, itself
 *   polled by NET_RX like a device.
 *
 *   transmit: dev_queue_xmit() puts the packet on the device's queue and
 *   feeds the driver's start_xmit() until it is empty or the driver says
 *   its ring is full (netif_stop_queue). When the driver frees ring slots
 *   (transmit completion) it calls netif_wake_queue(), which schedules
 *   NET_TX_SOFTIRQ to feed it again.
 *
 * Devices are registered at boot and never go away, so the table is read
 * without locks. An interface's IPv4 address and mask change at run time
 * (ifconfig): they sit in one 64-bit word, read and written whole.
 */
#ifndef _NET_NETDEVICE_H
#define _NET_NETDEVICE_H

#include <types.h>
#include <list.h>
#include <spinlock.h>
#include <atomic.h>
#include <net/skbuff.h>
#include <uapi/net.h>

#define ETH_ALEN		6
#define ETH_HLEN		14
#define ETH_DATA_LEN		1500
#define ETH_FRAME_LEN		1514	/* without the CRC */
#define ETH_ZLEN		60	/* shortest frame, without the CRC */
#define ETH_P_IP		0x0800
#define ETH_P_ARP		0x0806

#define IFNAMSIZ		QS_IFNAMSIZ
#define MAX_NETDEV		8

#define IFF_UP			QS_IFF_UP
#define IFF_BROADCAST		QS_IFF_BROADCAST
#define IFF_LOOPBACK		QS_IFF_LOOPBACK

enum netdev_tx {
	NETDEV_TX_OK,		/* the driver took the packet (sent or freed it) */
	NETDEV_TX_BUSY,		/* ring full: the packet is still the caller's */
};

struct net_device;

struct net_device_ops {
	int (*open)(struct net_device *dev);
	void (*stop)(struct net_device *dev);
	enum netdev_tx (*start_xmit)(struct sk_buff *skb, struct net_device *dev);
	/* Fill what only the hardware knows (rx_missed, speed, counters). */
	void (*get_stats)(struct net_device *dev, struct qs_ifreq *r);
};

/* Counters kept by the driver and the core; read whole by qs_netif. */
struct net_device_stats {
	u64 rx_packets, rx_bytes, rx_errors, rx_dropped, rx_length_errors;
	u64 tx_packets, tx_bytes, tx_errors, tx_dropped;
	u64 interrupts, polls, link_changes;
};

/* NAPI: a device's poll routine, scheduled on one CPU's poll list at a time. */
struct napi_struct {
	struct list_head poll_list;
	unsigned long state;		/* NAPI_STATE_*: on a list or polling; poll again */
	int weight;			/* most packets per poll() call */
	int (*poll)(struct napi_struct *n, int budget);
	struct net_device *dev;
};
#define NAPI_STATE_SCHED	0
#define NAPI_STATE_MISSED	1	/* scheduled again while scheduled: poll once more */
#define NAPI_POLL_WEIGHT	64

struct net_device {
	char name[IFNAMSIZ];
	const char *driver;
	int ifindex;
	unsigned int flags;		/* IFF_UP, IFF_BROADCAST, IFF_LOOPBACK */
	unsigned int mtu;
	u8 dev_addr[ETH_ALEN];
	const struct net_device_ops *ops;
	void *priv;			/* the driver's */
	u64 ifaddr;			/* address | mask << 32, network order; see dev_ifaddr() */
	bool carrier;			/* link up (loopback: always) */
	struct net_device_stats stats;
	/* Transmit queue (pfifo) in front of the driver. */
	struct sk_buff_head txq;
	unsigned int tx_queue_len;
	unsigned long state;		/* __LINK_STATE_* bits */
	struct net_device *next_sched;	/* on a CPU's NET_TX output list */
};
#define __LINK_STATE_XOFF	0	/* the driver stopped the queue */
#define __LINK_STATE_SCHED	1	/* on an output list for NET_TX */
#define __LINK_STATE_RUNNING	2	/* one CPU is feeding the driver */

static inline void dev_ifaddr(const struct net_device *dev, u32 *addr, u32 *mask)
{
	u64 w = READ_ONCE(dev->ifaddr);

	*addr = (u32)w;
	*mask = (u32)(w >> 32);
}

void dev_set_ifaddr(struct net_device *dev, u32 addr, u32 mask);

/* ---- Registration and lookup (boot only adds; nothing removes). */
int register_netdev(struct net_device *dev);
struct net_device *dev_get_by_index(int ifindex);
struct net_device *dev_get_by_name(const char *name);
int dev_count(void);
struct net_device *dev_get_nth(int i);
int dev_open(struct net_device *dev);
void dev_close(struct net_device *dev);
/* "eth%d": the first free name with that pattern. */
void dev_alloc_name(struct net_device *dev, const char *pattern);

static inline bool netif_running(const struct net_device *dev)
{
	return READ_ONCE(dev->flags) & IFF_UP;
}

void netif_carrier_on(struct net_device *dev);
void netif_carrier_off(struct net_device *dev);
static inline bool netif_carrier_ok(const struct net_device *dev)
{
	return READ_ONCE(dev->carrier);
}

/* ---- Transmit */
/* Sends skb (its link header in place) or frees it; never sleeps. */
int dev_queue_xmit(struct sk_buff *skb);
void netif_stop_queue(struct net_device *dev);
void netif_wake_queue(struct net_device *dev);
static inline bool netif_queue_stopped(const struct net_device *dev)
{
	return test_bit(__LINK_STATE_XOFF, &dev->state);
}

/* ---- Receive */
void netif_napi_add(struct net_device *dev, struct napi_struct *n,
		    int (*poll)(struct napi_struct *, int), int weight);
/*
 * From the interrupt handler: poll n on this CPU soon (NET_RX). If n is
 * already scheduled (or polling), the poll runs once more before it may
 * complete: the handler has just read (and so cleared) causes that the
 * poll in progress may already have looked past.
 */
void napi_schedule(struct napi_struct *n);
/*
 * From poll(), when it did less than its budget: off the list, and true:
 * the driver may unmask. False if napi_schedule() came meanwhile: n stays
 * scheduled and is polled again (keep the device masked).
 */
bool napi_complete(struct napi_struct *n);
/* Queue a received packet on this CPU's backlog (any context). */
int netif_rx(struct sk_buff *skb);
/* Hand one packet to its protocol: NET_RX (softirq) context. */
void netif_receive_skb(struct sk_buff *skb);

/* Boot: the NET_RX and NET_TX softirqs, the backlogs; the devices; the
 * command line's addresses (netif.c). */
void net_dev_init(void);
void loopback_init(void);
void dummy_init(void);
void e1000_init(void);
void net_config_apply(void);

/* The per-CPU backlog limit (netdev_max_backlog) and NET_RX's budget. */
extern unsigned long netdev_max_backlog;
extern unsigned long netdev_budget;

#endif
