/*
 * A driver for the Intel 82540EM (e1000), the NIC QEMU emulates with
 * -device e1000. Registers and descriptors: e1000_hw.h.
 *
 * Two rings of 16-byte descriptors in one page each, shared with the
 * device by DMA (no IOMMU: the device is given physical addresses).
 *
 * Receive: each of the RX_RING_SIZE descriptors points at a 2048-byte
 * packet buffer. The device owns the descriptors from RDH up to (not
 * including) RDT: it writes a frame into the buffer, the length and
 * status into the descriptor (DD: done, EOP: last of the frame), and
 * raises RXT0. The interrupt handler only reads (and so clears) ICR,
 * masks every interrupt and schedules the NAPI poll; the poll, in
 * NET_RX_SOFTIRQ, takes finished descriptors up to its budget, hands each
 * buffer up the stack and puts a fresh one in its place, gives the
 * refilled descriptors back by moving RDT, and, with work to spare,
 * completes and unmasks. Frames that span descriptors (longer than a
 * buffer: RCTL.LPE lets them in so that they are seen and counted), that
 * are longer than 1514 bytes, or that have frame errors are dropped and
 * counted as length or receive errors. If no fresh buffer can be had,
 * the old one is reused and the frame dropped (rx_dropped): the ring
 * never loses a buffer.
 *
 * Transmit: start_xmit() fills the descriptor at tx_next with the packet's
 * physical address and EOP|IFCS|RS, and moves TDT past it. The device
 * sends it, writes DD back and raises TXDW; the poll frees the buffers
 * of done descriptors (transmit completion) and wakes the queue if
 * start_xmit() had stopped it on a full ring. One slot stays empty so
 * that a full ring (tx_next + 1 == tx_clean) differs from an empty one.
 *
 * Link: STATUS.LU at probe, then every LSC interrupt (QEMU: set_link on
 * its monitor) turns the carrier on or off; without carrier the device
 * layer refuses to transmit.
 *
 * The device model in QEMU (hw/net/e1000.c) stalls receive for a second
 * after RCTL is written (a flush timer), so an interface hears nothing
 * for about a second after it is brought up.
 */
#include <net/netdevice.h>
#include <net/e1000_hw.h>
#include <net/eth.h>
#include <pci.h>
#include <mm.h>
#include <kmalloc.h>
#include <time.h>
#include <string.h>
#include <printk.h>
#include <barrier.h>
#include <errno.h>
#include <arch/io.h>

#define RX_RING_SIZE	256
#define TX_RING_SIZE	256
#define RX_BUF_SIZE	2048	/* RCTL.BSIZE */
#define TX_WAKE_THRESH	32	/* free slots before a stopped queue restarts */

#define E1000_IMS_ENABLE (E1000_ICR_RXT0 | E1000_ICR_RXO | E1000_ICR_RXDMT0 | E1000_ICR_RXSEQ | \
			  E1000_ICR_LSC | E1000_ICR_TXDW)

struct e1000 {
	struct net_device netdev;
	struct pci_dev *pdev;
	volatile u8 __iomem *regs;
	struct napi_struct napi;
	unsigned long flags;		/* E1000_LINK_CHECK */

	struct e1000_rx_desc *rx_ring;
	struct sk_buff *rx_skb[RX_RING_SIZE];
	unsigned int rx_next;		/* next descriptor the poll looks at */
	bool rx_discarding;		/* inside a frame that spans descriptors */

	struct e1000_tx_desc *tx_ring;
	struct sk_buff *tx_skb[TX_RING_SIZE];
	unsigned int tx_next;		/* next free descriptor (TDT) */
	unsigned int tx_clean;		/* oldest descriptor not yet reclaimed */
	spinlock_t tx_lock;
};
#define E1000_LINK_CHECK	0

static u32 rd(struct e1000 *e, unsigned int reg)
{
	return mmio_read32(e->regs + reg);
}

static void wr(struct e1000 *e, unsigned int reg, u32 v)
{
	mmio_write32(e->regs + reg, v);
}

static unsigned int tx_free(const struct e1000 *e)
{
	return TX_RING_SIZE - 1 - ((e->tx_next - e->tx_clean) % TX_RING_SIZE);
}

/* ---- Interrupt and poll */

static bool e1000_intr(void *arg)
{
	struct e1000 *e = arg;
	u32 icr = rd(e, E1000_ICR);	/* reading clears it: the line drops */

	if (!icr)
		return false;		/* the other device on a shared line */
	e->netdev.stats.interrupts++;
	if (icr & E1000_ICR_LSC)
		set_bit(E1000_LINK_CHECK, &e->flags);
	wr(e, E1000_IMC, ~0u);		/* quiet until the poll has run */
	napi_schedule(&e->napi);
	return true;
}

static void e1000_check_link(struct e1000 *e)
{
	u32 status = rd(e, E1000_STATUS);
	unsigned int speed = (status >> E1000_STATUS_SPEED_SHIFT) & 3;

	if (status & E1000_STATUS_LU) {
		if (!netif_carrier_ok(&e->netdev))
			printk("e1000: %s: link up, %u Mb/s %s duplex\n", e->netdev.name,
			       speed == 0 ? 10 : speed == 1 ? 100 : 1000,
			       status & E1000_STATUS_FD ? "full" : "half");
		netif_carrier_on(&e->netdev);
	} else {
		if (netif_carrier_ok(&e->netdev))
			printk("e1000: %s: link down\n", e->netdev.name);
		netif_carrier_off(&e->netdev);
	}
}

/* Transmit completion: free what the device has sent. */
static void e1000_clean_tx(struct e1000 *e)
{
	unsigned long flags = spin_lock_irqsave(&e->tx_lock);
	bool wake;

	while (e->tx_clean != e->tx_next &&
	       (READ_ONCE(e->tx_ring[e->tx_clean].status) & E1000_TXD_STAT_DD)) {
		kfree_skb(e->tx_skb[e->tx_clean]);
		e->tx_skb[e->tx_clean] = NULL;
		e->tx_clean = (e->tx_clean + 1) % TX_RING_SIZE;
	}
	wake = netif_queue_stopped(&e->netdev) && tx_free(e) >= TX_WAKE_THRESH;
	spin_unlock_irqrestore(&e->tx_lock, flags);
	if (wake)
		netif_wake_queue(&e->netdev);
}

/* Hand rx_skb[i]'s buffer (back) to the device. */
static void rx_give(struct e1000 *e, unsigned int i)
{
	e->rx_ring[i].addr = virt_to_phys(e->rx_skb[i]->data);
	e->rx_ring[i].status = 0;
}

/* The frame in descriptor i: up the stack with a fresh buffer in its place, or dropped. */
static void rx_one(struct e1000 *e, unsigned int i, unsigned int len, u8 status, u8 errors)
{
	struct net_device *dev = &e->netdev;
	struct sk_buff *skb, *fresh;

	if (!(status & E1000_RXD_STAT_EOP)) {	/* the first pieces of a long frame */
		if (!e->rx_discarding)
			dev->stats.rx_length_errors++;
		e->rx_discarding = true;
		return;
	}
	if (e->rx_discarding) {			/* its last piece */
		e->rx_discarding = false;
		return;
	}
	if (errors & E1000_RXD_ERR_FRAME) {
		dev->stats.rx_errors++;
		return;
	}
	if (len > ETH_FRAME_LEN) {
		dev->stats.rx_length_errors++;
		return;
	}
	fresh = alloc_skb(RX_BUF_SIZE);
	if (!fresh) {
		dev->stats.rx_dropped++;
		return;
	}
	skb = e->rx_skb[i];
	e->rx_skb[i] = fresh;
	skb_put(skb, len);
	skb->dev = dev;
	dev->stats.rx_packets++;
	dev->stats.rx_bytes += len;
	netif_receive_skb(skb);
}

static int e1000_clean_rx(struct e1000 *e, int budget)
{
	unsigned int last = RX_RING_SIZE;
	int work = 0;

	while (work < budget) {
		unsigned int i = e->rx_next;
		struct e1000_rx_desc *d = &e->rx_ring[i];
		u8 status = READ_ONCE(d->status);

		if (!(status & E1000_RXD_STAT_DD))
			break;
		rmb();			/* DD before the length and the buffer */
		rx_one(e, i, d->length, status, d->errors);
		rx_give(e, i);
		last = i;
		e->rx_next = (i + 1) % RX_RING_SIZE;
		work++;
	}
	if (last != RX_RING_SIZE) {
		wmb();			/* the refilled descriptors before the tail moves */
		wr(e, E1000_RDT, last);
	}
	return work;
}

static int e1000_poll(struct napi_struct *napi, int budget)
{
	struct e1000 *e = container_of(napi, struct e1000, napi);
	int work;

	e->netdev.stats.polls++;
	if (test_and_clear_bit(E1000_LINK_CHECK, &e->flags))
		e1000_check_link(e);
	e1000_clean_tx(e);
	work = e1000_clean_rx(e, budget);
	/* Causes that came while masked are still in ICR: unmasking raises
	 * the interrupt again at once. Those a shared line's handler read
	 * meanwhile made napi_complete() keep us for another poll instead.
	 * A device taken down stays masked (e1000_stop). */
	if (work < budget && napi_complete(napi) && netif_running(&e->netdev))
		wr(e, E1000_IMS, E1000_IMS_ENABLE);
	return work;
}

/* ---- Transmit */

static enum netdev_tx e1000_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct e1000 *e = dev->priv;
	struct e1000_tx_desc *d;
	unsigned long flags;
	unsigned int i;

	if (skb->len > ETH_FRAME_LEN) {
		dev->stats.tx_dropped++;
		kfree_skb(skb);
		return NETDEV_TX_OK;
	}
	flags = spin_lock_irqsave(&e->tx_lock);
	if (!tx_free(e)) {
		netif_stop_queue(dev);
		spin_unlock_irqrestore(&e->tx_lock, flags);
		return NETDEV_TX_BUSY;
	}
	i = e->tx_next;
	d = &e->tx_ring[i];
	d->addr = virt_to_phys(skb->data);
	d->length = skb->len;
	d->cmd = E1000_TXD_CMD_EOP | E1000_TXD_CMD_IFCS | E1000_TXD_CMD_RS;
	d->status = 0;
	e->tx_skb[i] = skb;
	e->tx_next = (i + 1) % TX_RING_SIZE;
	dev->stats.tx_packets++;
	dev->stats.tx_bytes += skb->len;
	wmb();				/* the descriptor before the doorbell */
	wr(e, E1000_TDT, e->tx_next);
	if (!tx_free(e))
		netif_stop_queue(dev);
	spin_unlock_irqrestore(&e->tx_lock, flags);
	return NETDEV_TX_OK;
}

/* ---- Bring-up */

static void e1000_rx_enable(struct e1000 *e, bool on)
{
	wr(e, E1000_RCTL, on ? E1000_RCTL_EN | E1000_RCTL_BAM | E1000_RCTL_LPE |
			       E1000_RCTL_BSIZE_2048 | E1000_RCTL_SECRC : 0);
}

static int e1000_open(struct net_device *dev)
{
	struct e1000 *e = dev->priv;

	e1000_rx_enable(e, true);
	wr(e, E1000_IMS, E1000_IMS_ENABLE);
	return 0;
}

static void e1000_stop(struct net_device *dev)
{
	struct e1000 *e = dev->priv;

	wr(e, E1000_IMC, ~0u);
	e1000_rx_enable(e, false);
	/* A poll still scheduled runs once more and leaves the mask alone:
	 * dev_close() cleared IFF_UP first. */
}

static void e1000_get_stats(struct net_device *dev, struct qs_ifreq *r)
{
	struct e1000 *e = dev->priv;
	u32 status = rd(e, E1000_STATUS);
	unsigned int speed = (status >> E1000_STATUS_SPEED_SHIFT) & 3;

	r->rx_missed = rd(e, E1000_MPC);	/* QEMU never clears it; a real 82540 does on read */
	r->speed_mbps = !(status & E1000_STATUS_LU) ? 0 : speed == 0 ? 10 : speed == 1 ? 100 : 1000;
}

static const struct net_device_ops e1000_ops = {
	.open		= e1000_open,
	.stop		= e1000_stop,
	.start_xmit	= e1000_xmit,
	.get_stats	= e1000_get_stats,
};

/* A word of the EEPROM through EERD; false if the device never answers. */
static bool eeprom_read(struct e1000 *e, unsigned int addr, u16 *out)
{
	wr(e, E1000_EERD, E1000_EERD_START | addr << E1000_EERD_ADDR_SHIFT);
	for (int i = 0; i < 1000; i++) {
		u32 v = rd(e, E1000_EERD);

		if (v & E1000_EERD_DONE) {
			*out = v >> E1000_EERD_DATA_SHIFT;
			return true;
		}
		udelay(1);
	}
	return false;
}

static void e1000_read_mac(struct e1000 *e, u8 *mac)
{
	u16 w[3];
	u32 lo, hi;

	if (eeprom_read(e, 0, &w[0]) && eeprom_read(e, 1, &w[1]) && eeprom_read(e, 2, &w[2])) {
		for (int i = 0; i < 3; i++) {
			mac[2 * i] = w[i] & 0xff;
			mac[2 * i + 1] = w[i] >> 8;
		}
		return;
	}
	lo = rd(e, E1000_RAL);		/* no EEPROM answer: what the device was given */
	hi = rd(e, E1000_RAH);
	for (int i = 0; i < 4; i++)
		mac[i] = lo >> (8 * i);
	mac[4] = hi;
	mac[5] = hi >> 8;
}

static int e1000_rings_init(struct e1000 *e)
{
	e->rx_ring = page_alloc_zeroed();
	e->tx_ring = page_alloc_zeroed();
	if (!e->rx_ring || !e->tx_ring)
		return -ENOMEM;
	for (unsigned int i = 0; i < RX_RING_SIZE; i++) {
		e->rx_skb[i] = alloc_skb(RX_BUF_SIZE);
		if (!e->rx_skb[i])
			return -ENOMEM;
		rx_give(e, i);
	}
	wr(e, E1000_RDBAL, (u32)virt_to_phys(e->rx_ring));
	wr(e, E1000_RDBAH, (u32)(virt_to_phys(e->rx_ring) >> 32));
	wr(e, E1000_RDLEN, RX_RING_SIZE * sizeof(struct e1000_rx_desc));
	wr(e, E1000_RDH, 0);
	wr(e, E1000_RDT, RX_RING_SIZE - 1);
	wr(e, E1000_RDTR, 0);
	e->rx_next = 0;

	wr(e, E1000_TDBAL, (u32)virt_to_phys(e->tx_ring));
	wr(e, E1000_TDBAH, (u32)(virt_to_phys(e->tx_ring) >> 32));
	wr(e, E1000_TDLEN, TX_RING_SIZE * sizeof(struct e1000_tx_desc));
	wr(e, E1000_TDH, 0);
	wr(e, E1000_TDT, 0);
	e->tx_next = e->tx_clean = 0;
	return 0;
}

static void e1000_hw_init(struct e1000 *e)
{
	u8 *mac = e->netdev.dev_addr;

	wr(e, E1000_IMC, ~0u);
	wr(e, E1000_CTRL, rd(e, E1000_CTRL) | E1000_CTRL_RST);
	mdelay(1);
	wr(e, E1000_IMC, ~0u);		/* the reset turned nothing on, but be sure */
	wr(e, E1000_CTRL, rd(e, E1000_CTRL) | E1000_CTRL_SLU | E1000_CTRL_ASDE);
	e1000_read_mac(e, mac);
	wr(e, E1000_RAL, mac[0] | mac[1] << 8 | mac[2] << 16 | (u32)mac[3] << 24);
	wr(e, E1000_RAH, mac[4] | mac[5] << 8 | 1u << 31);	/* address valid */
	for (int i = 0; i < 128; i++)
		wr(e, E1000_MTA + 4 * i, 0);		/* no multicast groups */
	wr(e, E1000_TCTL, E1000_TCTL_EN | E1000_TCTL_PSP | 0x10 << E1000_TCTL_CT_SHIFT |
			  0x40 << E1000_TCTL_COLD_SHIFT);
	wr(e, E1000_TIPG, 10 | 8 << 10 | 6 << 20);	/* the manual's values for copper */
}

static int e1000_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct e1000 *e = kzalloc(sizeof(*e));
	struct net_device *dev;
	char pn[8], macs[18];
	int err;

	if (!e)
		return -ENOMEM;
	dev = &e->netdev;
	e->pdev = pdev;
	pci_enable_device(pdev);
	pci_set_master(pdev);
	e->regs = pci_ioremap_bar(pdev, 0);
	if (!e->regs) {
		kfree(e);
		return -ENODEV;
	}
	spin_lock_init(&e->tx_lock, "e1000_tx");
	e1000_hw_init(e);
	err = e1000_rings_init(e);
	if (err) {
		printk("e1000: %s: no memory for the rings\n", pci_name(pdev, pn));
		return err;		/* the device stays quiet: nothing enabled */
	}
	dev_alloc_name(dev, "eth%d");
	dev->driver = "e1000";
	dev->flags = IFF_BROADCAST;
	dev->mtu = ETH_DATA_LEN;
	dev->ops = &e1000_ops;
	dev->priv = e;
	netif_napi_add(dev, &e->napi, e1000_poll, NAPI_POLL_WEIGHT);
	err = register_netdev(dev);
	if (err)
		return err;
	e1000_check_link(e);
	err = pci_request_irq(pdev, e1000_intr, e, dev->name);
	if (err)
		printk("e1000: %s: no interrupt line: it will neither send nor receive\n", dev->name);
	printk("e1000: %s at %s: %s, irq %u, %u rx and %u tx descriptors\n", dev->name,
	       pci_name(pdev, pn), mac_str(dev->dev_addr, macs), pdev->irq_line, RX_RING_SIZE,
	       TX_RING_SIZE);
	if (!err)
		dev_open(dev);
	return 0;
}

static const struct pci_device_id e1000_ids[] = {
	{ E1000_VENDOR_INTEL, E1000_DEV_82540EM },
	{ 0, 0 },
};

static const struct pci_driver e1000_driver = {
	.name	= "e1000",
	.ids	= e1000_ids,
	.probe	= e1000_probe,
};

void e1000_init(void)
{
	pci_register_driver(&e1000_driver);
}
