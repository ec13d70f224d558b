/*
 * The device layer (netdevice.h): the NET_RX and NET_TX softirqs, NAPI,
 * the per-CPU backlogs, the transmit queues, and the device table.
 *
 * Each CPU has a softnet_data: its poll list (the NAPI instances whose
 * devices interrupted on this CPU), its backlog (packets netif_rx()
 * queued here, polled through the backlog NAPI instance like a device),
 * and its output list (devices whose transmit queue NET_TX must feed).
 * Only its own CPU touches a softnet_data, with interrupts off, since an
 * interrupt handler on that CPU adds to it.
 *
 * net_rx_action() polls each scheduled instance with its weight, up to
 * netdev_budget packets and two jiffies per softirq run; what is left is
 * raised again, and __do_softirq() hands a flood to ksoftirqd, so that a
 * receive storm cannot starve the threads (seed 003 section 3 is the
 * softirq design this rides on).
 */
#include <net/netdevice.h>
#include <net/netstat.h>
#include <net/eth.h>
#include <net/ip.h>
#include <net/arp.h>
#include <softirq.h>
#include <percpu.h>
#include <smp.h>
#include <time.h>
#include <string.h>
#include <printk.h>
#include <cmdline.h>
#include <errno.h>

unsigned long netdev_max_backlog = 1000;
unsigned long netdev_budget = 300;
CMDLINE_ULONG("net.backlog", netdev_max_backlog, 16, 100000,
	      "net.backlog=<n>: packets each CPU's backlog holds before dropping (1000)");
CMDLINE_ULONG("net.budget", netdev_budget, 1, 100000,
	      "net.budget=<n>: packets one NET_RX run takes before yielding (300)");

struct softnet_data {
	struct list_head poll_list;
	struct sk_buff_head input_pkt_queue;
	struct napi_struct backlog;
	struct net_device *output_queue;
};

static DEFINE_PER_CPU(struct softnet_data, softnet_data);

static struct net_device *dev_table[MAX_NETDEV];
static int nr_devs;
static DEFINE_SPINLOCK(dev_table_lock);

static inline void dev_stat_inc(u64 *counter)
{
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

/* ---- The device table */

int dev_count(void)
{
	return smp_load_acquire(&nr_devs);
}

struct net_device *dev_get_nth(int i)
{
	return i >= 0 && i < dev_count() ? dev_table[i] : NULL;
}

struct net_device *dev_get_by_index(int ifindex)
{
	return dev_get_nth(ifindex - 1);
}

struct net_device *dev_get_by_name(const char *name)
{
	for (int i = 0; i < dev_count(); i++)
		if (!strncmp(dev_table[i]->name, name, IFNAMSIZ))
			return dev_table[i];
	return NULL;
}

void dev_alloc_name(struct net_device *dev, const char *pattern)
{
	char name[IFNAMSIZ];

	for (int n = 0; n < MAX_NETDEV; n++) {
		snprintf(name, sizeof(name), pattern, n);
		if (!dev_get_by_name(name)) {
			strlcpy(dev->name, name, sizeof(dev->name));
			return;
		}
	}
	strlcpy(dev->name, "?", sizeof(dev->name));
}

int register_netdev(struct net_device *dev)
{
	unsigned long flags = spin_lock_irqsave(&dev_table_lock);

	if (nr_devs == MAX_NETDEV) {
		spin_unlock_irqrestore(&dev_table_lock, flags);
		return -ENOSPC;
	}
	skb_queue_head_init(&dev->txq, "txq");
	if (!dev->tx_queue_len)
		dev->tx_queue_len = 1000;
	dev->ifindex = nr_devs + 1;
	dev_table[nr_devs] = dev;
	smp_store_release(&nr_devs, nr_devs + 1);	/* the entry before the count */
	spin_unlock_irqrestore(&dev_table_lock, flags);
	return 0;
}

void dev_set_ifaddr(struct net_device *dev, u32 addr, u32 mask)
{
	WRITE_ONCE(dev->ifaddr, (u64)addr | (u64)mask << 32);
	ip_route_config_changed();
}

int dev_open(struct net_device *dev)
{
	int err = 0;

	if (netif_running(dev))
		return 0;
	if (dev->ops->open)
		err = dev->ops->open(dev);
	if (!err)
		WRITE_ONCE(dev->flags, dev->flags | IFF_UP);
	ip_route_config_changed();
	return err;
}

void dev_close(struct net_device *dev)
{
	if (!netif_running(dev))
		return;
	WRITE_ONCE(dev->flags, dev->flags & ~IFF_UP);
	if (dev->ops->stop)
		dev->ops->stop(dev);
	skb_queue_purge(&dev->txq);
	ip_route_config_changed();
}

void netif_carrier_on(struct net_device *dev)
{
	if (!READ_ONCE(dev->carrier)) {
		WRITE_ONCE(dev->carrier, true);
		dev_stat_inc(&dev->stats.link_changes);
		netif_wake_queue(dev);
	}
}

void netif_carrier_off(struct net_device *dev)
{
	if (READ_ONCE(dev->carrier)) {
		WRITE_ONCE(dev->carrier, false);
		dev_stat_inc(&dev->stats.link_changes);
	}
}

/* ---- Transmit */

static void __netif_schedule(struct net_device *dev)
{
	struct softnet_data *sd;
	unsigned long flags;

	if (test_and_set_bit(__LINK_STATE_SCHED, &dev->state))
		return;
	flags = local_irq_save();
	sd = this_cpu_ptr(&softnet_data);
	dev->next_sched = sd->output_queue;
	sd->output_queue = dev;
	raise_softirq_irqoff(NET_TX_SOFTIRQ);
	local_irq_restore(flags);
}

void netif_stop_queue(struct net_device *dev)
{
	set_bit(__LINK_STATE_XOFF, &dev->state);
}

void netif_wake_queue(struct net_device *dev)
{
	if (test_and_clear_bit(__LINK_STATE_XOFF, &dev->state))
		__netif_schedule(dev);
}

#define QDISC_QUOTA	64

/*
 * Feed the driver from the device's queue. One CPU at a time
 * (__LINK_STATE_RUNNING), so the driver's start_xmit() is never entered
 * twice at once for one device; a CPU that finds it running leaves its
 * packet on the queue for the running one.
 */
static void qdisc_run(struct net_device *dev)
{
	struct sk_buff *skb;
	int quota = QDISC_QUOTA;

	for (;;) {
		if (test_and_set_bit(__LINK_STATE_RUNNING, &dev->state))
			return;
		while (!netif_queue_stopped(dev) && (skb = skb_dequeue(&dev->txq))) {
			if (dev->ops->start_xmit(skb, dev) == NETDEV_TX_BUSY) {
				unsigned long flags = spin_lock_irqsave(&dev->txq.lock);

				__skb_queue_head(&dev->txq, skb);
				spin_unlock_irqrestore(&dev->txq.lock, flags);
				break;
			}
			if (--quota == 0) {
				clear_bit(__LINK_STATE_RUNNING, &dev->state);
				__netif_schedule(dev);	/* the rest from NET_TX */
				return;
			}
		}
		clear_bit(__LINK_STATE_RUNNING, &dev->state);
		/* Our clear before the re-check: a packet queued by a CPU that
		 * found RUNNING set is seen here, or that CPU sees it clear. */
		smp_mb();
		if (netif_queue_stopped(dev) || skb_queue_empty(&dev->txq))
			return;
	}
}

int dev_queue_xmit(struct sk_buff *skb)
{
	struct net_device *dev = skb->dev;
	unsigned long flags;
	int ret = 0;

	/* Softirqs raised meanwhile (loopback's NET_RX) run at the enable,
	 * in this context, instead of waking ksoftirqd. */
	local_bh_disable();
	if (!netif_running(dev) || !netif_carrier_ok(dev)) {
		NET_INC(dev_tx_link_down);
		dev_stat_inc(&dev->stats.tx_dropped);
		kfree_skb(skb);
		ret = -ENETDOWN;
		goto out;
	}
	flags = spin_lock_irqsave(&dev->txq.lock);
	if (dev->txq.qlen >= dev->tx_queue_len) {
		spin_unlock_irqrestore(&dev->txq.lock, flags);
		NET_INC(dev_tx_queue_drops);
		dev_stat_inc(&dev->stats.tx_dropped);
		kfree_skb(skb);
		ret = -ENOBUFS;
		goto out;
	}
	__skb_queue_tail(&dev->txq, skb);
	spin_unlock_irqrestore(&dev->txq.lock, flags);
	NET_INC(eth_out_frames);
	qdisc_run(dev);
out:
	local_bh_enable();
	return ret;
}

static void net_tx_action(void)
{
	struct softnet_data *sd = this_cpu_ptr(&softnet_data);
	struct net_device *dev;

	local_irq_disable();
	dev = sd->output_queue;
	sd->output_queue = NULL;
	local_irq_enable();
	while (dev) {
		struct net_device *next = dev->next_sched;

		smp_mb();	/* next_sched read before the bit lets it be queued again */
		clear_bit(__LINK_STATE_SCHED, &dev->state);
		qdisc_run(dev);
		dev = next;
	}
}

/* ---- Receive */

void netif_napi_add(struct net_device *dev, struct napi_struct *n,
		    int (*poll)(struct napi_struct *, int), int weight)
{
	INIT_LIST_HEAD(&n->poll_list);
	n->state = 0;
	n->weight = weight;
	n->poll = poll;
	n->dev = dev;
}

#define NAPIF_SCHED	(1UL << NAPI_STATE_SCHED)
#define NAPIF_MISSED	(1UL << NAPI_STATE_MISSED)

/*
 * On a shared interrupt line a device's handler runs for the other
 * device's interrupts too, and reading its cause register clears causes
 * that came while its poll was running: if that poll has already cleaned
 * its rings, nothing would ever look at them again. So a schedule that
 * finds n scheduled leaves MISSED behind, atomically with the check, and
 * napi_complete() then keeps n for one more poll (Linux 4.10's fix).
 */
void napi_schedule(struct napi_struct *n)
{
	unsigned long flags, val, new;

	do {
		val = READ_ONCE(n->state);
		new = val | NAPIF_SCHED | (val & NAPIF_SCHED ? NAPIF_MISSED : 0);
	} while (__atomic_compare_exchange_n(&n->state, &val, new, false, __ATOMIC_SEQ_CST,
					     __ATOMIC_SEQ_CST) == false);
	if (val & NAPIF_SCHED)
		return;
	flags = local_irq_save();
	list_add_tail(&n->poll_list, &this_cpu(softnet_data).poll_list);
	raise_softirq_irqoff(NET_RX_SOFTIRQ);
	local_irq_restore(flags);
}

bool napi_complete(struct napi_struct *n)
{
	unsigned long flags = local_irq_save(), val, new;

	/* Off the list while still SCHED, so no other CPU can put it on its own yet. */
	list_del_init(&n->poll_list);
	do {
		val = READ_ONCE(n->state);
		new = val & NAPIF_MISSED ? val & ~NAPIF_MISSED : val & ~NAPIF_SCHED;
	} while (__atomic_compare_exchange_n(&n->state, &val, new, false, __ATOMIC_SEQ_CST,
					     __ATOMIC_SEQ_CST) == false);
	if (val & NAPIF_MISSED)		/* still scheduled: once more, on this CPU */
		list_add_tail(&n->poll_list, &this_cpu(softnet_data).poll_list);
	local_irq_restore(flags);
	return !(val & NAPIF_MISSED);
}

int netif_rx(struct sk_buff *skb)
{
	unsigned long flags = local_irq_save();
	struct softnet_data *sd = this_cpu_ptr(&softnet_data);

	if (sd->input_pkt_queue.qlen >= netdev_max_backlog) {
		local_irq_restore(flags);
		NET_INC(dev_backlog_drops);
		dev_stat_inc(&skb->dev->stats.rx_dropped);
		kfree_skb(skb);
		return -ENOBUFS;
	}
	__skb_queue_tail(&sd->input_pkt_queue, skb);
	if (!test_and_set_bit(NAPI_STATE_SCHED, &sd->backlog.state)) {
		list_add_tail(&sd->backlog.poll_list, &sd->poll_list);
		raise_softirq_irqoff(NET_RX_SOFTIRQ);
	}
	local_irq_restore(flags);
	return 0;
}

/* The backlog's poll: only this CPU queues on it, with interrupts off. */
static int process_backlog(struct napi_struct *n, int quota)
{
	struct softnet_data *sd = container_of(n, struct softnet_data, backlog);
	int work = 0;

	while (work < quota) {
		unsigned long flags = local_irq_save();
		struct sk_buff *skb = __skb_dequeue(&sd->input_pkt_queue);

		if (!skb) {
			/* Empty and off the list in one step: a netif_rx()
			 * after this schedules us again. */
			list_del_init(&n->poll_list);
			clear_bit(NAPI_STATE_SCHED, &n->state);
			local_irq_restore(flags);
			break;
		}
		local_irq_restore(flags);
		netif_receive_skb(skb);
		work++;
	}
	return work;
}

void netif_receive_skb(struct sk_buff *skb)
{
	NET_INC(softnet_processed);
	if (!netif_running(skb->dev)) {
		dev_stat_inc(&skb->dev->stats.rx_dropped);
		kfree_skb(skb);
		return;
	}
	if (!eth_type_trans(skb))	/* counted and freed */
		return;
	switch (skb->protocol) {
	case ETH_P_IP:
		ip_rcv(skb);
		break;
	case ETH_P_ARP:
		arp_rcv(skb);
		break;
	default:
		NET_INC(eth_in_unknown_type);
		kfree_skb(skb);
	}
}

static void net_rx_action(void)
{
	struct softnet_data *sd = this_cpu_ptr(&softnet_data);
	unsigned long start = jiffies;
	long budget = netdev_budget;

	local_irq_disable();
	while (!list_empty(&sd->poll_list)) {
		struct napi_struct *n;
		int work;

		if (budget <= 0 || time_after(jiffies, start + 1)) {
			NET_INC(softnet_time_squeeze);
			/* Again at the next pass, or in ksoftirqd. */
			__raise_softirq_irqoff(NET_RX_SOFTIRQ);
			break;
		}
		n = list_first_entry(&sd->poll_list, struct napi_struct, poll_list);
		local_irq_enable();
		work = n->poll(n, n->weight);
		budget -= work;
		local_irq_disable();
		/* Used its whole weight: it did not complete; others' turn first. */
		if (work >= n->weight && test_bit(NAPI_STATE_SCHED, &n->state) &&
		    !list_empty(&n->poll_list))
			list_move_tail(&n->poll_list, &sd->poll_list);
	}
	local_irq_enable();
}

void net_dev_init(void)
{
	unsigned int cpu;

	for_each_online_cpu(cpu) {
		struct softnet_data *sd = &per_cpu(softnet_data, cpu);

		INIT_LIST_HEAD(&sd->poll_list);
		skb_queue_head_init(&sd->input_pkt_queue, "backlog");
		netif_napi_add(NULL, &sd->backlog, process_backlog, NAPI_POLL_WEIGHT);
		sd->output_queue = NULL;
	}
	open_softirq(NET_TX_SOFTIRQ, net_tx_action);
	open_softirq(NET_RX_SOFTIRQ, net_rx_action);
}
