/*
 * PCI (include/pci.h): configuration space through the two x86 ports
 * (configuration mechanism #1), a bus scan, BARs and shared INTx lines.
 *
 * Configuration space: write bus/slot/function/register to CONFIG_ADDRESS
 * (0xcf8), then read or write the 32-bit register through CONFIG_DATA
 * (0xcfc). The pair is one transaction, so one lock covers both.
 *
 * The scan starts at bus 0 and follows PCI-to-PCI bridges to their
 * secondary buses (the firmware numbered them); a function 0 with the
 * multi-function bit has functions 1-7 too. Every function found is kept
 * on pci_devices and printed.
 *
 * BARs are sized the classic way: write all ones, read back which bits
 * stuck, restore; with memory and I/O decoding off meanwhile, so the
 * device does not answer at the all-ones address.
 *
 * Interrupts: without MSI (QEMU's 82540EM has no MSI capability) a device
 * raises its INTx pin; the chipset (QEMU's ICH9) routes it to a PIRQ line
 * and from there to the ISA IRQ the firmware chose and wrote into
 * PCI_INTERRUPT_LINE. We route that ISA IRQ through the IOAPIC, with the
 * trigger mode and polarity the MADT's override gives (QEMU: level,
 * active high for the PCI IRQs 5, 9, 10, 11). Several devices can share
 * one line, so each line has a list of handlers and every one is asked.
 */
#include <pci.h>
#include <arch/io.h>
#include <arch/irq.h>
#include <mm.h>
#include <kmalloc.h>
#include <spinlock.h>
#include <printk.h>
#include <string.h>
#include <errno.h>

#define PCI_CONFIG_ADDRESS	0xcf8
#define PCI_CONFIG_DATA		0xcfc

static DEFINE_SPINLOCK(pci_config_lock);
static LIST_HEAD(pci_devices);
static unsigned int nr_pci_devices;

static u32 config_addr(u8 bus, u8 slot, u8 func, unsigned int off)
{
	return 0x80000000u | (u32)bus << 16 | (u32)slot << 11 | (u32)func << 8 | (off & 0xfc);
}

static u32 raw_read32(u8 bus, u8 slot, u8 func, unsigned int off)
{
	unsigned long flags = spin_lock_irqsave(&pci_config_lock);
	u32 v;

	outl(PCI_CONFIG_ADDRESS, config_addr(bus, slot, func, off));
	v = inl(PCI_CONFIG_DATA);
	spin_unlock_irqrestore(&pci_config_lock, flags);
	return v;
}

static void raw_write32(u8 bus, u8 slot, u8 func, unsigned int off, u32 v)
{
	unsigned long flags = spin_lock_irqsave(&pci_config_lock);

	outl(PCI_CONFIG_ADDRESS, config_addr(bus, slot, func, off));
	outl(PCI_CONFIG_DATA, v);
	spin_unlock_irqrestore(&pci_config_lock, flags);
}

u32 pci_read32(const struct pci_dev *d, unsigned int off)
{
	return raw_read32(d->bus, d->slot, d->func, off);
}

u16 pci_read16(const struct pci_dev *d, unsigned int off)
{
	return pci_read32(d, off) >> ((off & 2) * 8);
}

u8 pci_read8(const struct pci_dev *d, unsigned int off)
{
	return pci_read32(d, off) >> ((off & 3) * 8);
}

void pci_write32(const struct pci_dev *d, unsigned int off, u32 v)
{
	raw_write32(d->bus, d->slot, d->func, off, v);
}

/* Read-modify-write of the 32-bit register: the other half is written back as read. */
void pci_write16(const struct pci_dev *d, unsigned int off, u16 v)
{
	unsigned int shift = (off & 2) * 8;
	u32 old = pci_read32(d, off);

	pci_write32(d, off, (old & ~(0xffffu << shift)) | (u32)v << shift);
}

const char *pci_name(const struct pci_dev *d, char *buf)
{
	snprintf(buf, 8, "%02x:%02x.%x", d->bus, d->slot, d->func);
	return buf;
}

/* ---- BARs */

static u64 bar_size(struct pci_dev *d, unsigned int off, u32 mask)
{
	u32 orig = pci_read32(d, off), probe;

	pci_write32(d, off, 0xffffffff);
	probe = pci_read32(d, off);
	pci_write32(d, off, orig);
	probe &= mask;
	return probe ? (u64)(~probe + 1) & mask : 0;
}

static int read_bar(struct pci_dev *d, int n)
{
	unsigned int off = PCI_BAR0 + 4 * n;
	u32 lo = pci_read32(d, off);
	struct pci_bar *b = &d->bar[n];

	if (lo & 1) {				/* I/O space */
		b->io = true;
		b->addr = lo & ~3u;
		b->size = bar_size(d, off, 0xfffffffc) & 0xffff;
		return n + 1;
	}
	b->prefetch = lo & 8;
	b->addr = lo & ~0xfu;
	b->size = bar_size(d, off, 0xfffffff0);
	if (((lo >> 1) & 3) == 2 && n + 1 < PCI_NUM_BARS) {	/* 64-bit */
		u32 hi = pci_read32(d, off + 4);
		u64 size_hi = bar_size(d, off + 4, 0xffffffff);

		b->is64 = true;
		b->addr |= (u64)hi << 32;
		/* The upper half's size bits matter only above 4 GiB. */
		if (!b->size && size_hi)
			b->size = (u64)(~(u32)size_hi + 1) << 32;
		return n + 2;
	}
	return n + 1;
}

static void read_bars(struct pci_dev *d)
{
	u16 cmd = pci_read16(d, PCI_COMMAND);
	int nbars = (d->header_type & 0x7f) == 0 ? 6 : (d->header_type & 0x7f) == 1 ? 2 : 0;

	/* No decoding while a BAR holds all ones. */
	pci_write16(d, PCI_COMMAND, cmd & ~(PCI_COMMAND_IO | PCI_COMMAND_MEMORY));
	for (int n = 0; n < nbars;)
		n = read_bar(d, n);
	pci_write16(d, PCI_COMMAND, cmd);
}

/* ---- The scan */

static const char *class_name(u8 class, u8 sub)
{
	switch (class) {
	case 0x01: return sub == 0x06 ? "SATA controller" : "storage controller";
	case 0x02: return "Ethernet controller";
	case 0x03: return "display controller";
	case 0x04: return "multimedia device";
	case 0x06:
		switch (sub) {
		case 0x00: return "host bridge";
		case 0x01: return "ISA bridge";
		case 0x04: return "PCI bridge";
		default:   return "bridge";
		}
	case 0x0c: return sub == 0x05 ? "SMBus" : sub == 0x03 ? "USB controller" : "serial bus";
	default:   return "device";
	}
}

static void print_dev(struct pci_dev *d)
{
	char name[8], bars[160];
	int n = 0;

	bars[0] = 0;
	for (int i = 0; i < PCI_NUM_BARS; i++) {
		struct pci_bar *b = &d->bar[i];

		if (!b->size)
			continue;
		n += snprintf(bars + n, sizeof(bars) - n, " bar%d=%s%#lx/%#lx", i,
			      b->io ? "io:" : "", (unsigned long)b->addr, (unsigned long)b->size);
	}
	printk("pci: %s %04x:%04x %s (class %02x.%02x)%s%s irq %u pin %c\n",
	       pci_name(d, name), d->vendor, d->device, class_name(d->class, d->subclass),
	       d->class, d->subclass, bars, n ? "" : " no BARs", d->irq_line,
	       d->irq_pin ? 'A' + d->irq_pin - 1 : '-');
}

static void scan_bus(u8 bus, int depth);

static void add_function(u8 bus, u8 slot, u8 func, int depth)
{
	struct pci_dev *d = kzalloc(sizeof(*d));
	u32 id = raw_read32(bus, slot, func, PCI_VENDOR_ID);
	u32 cls;

	if (!d) {
		printk("pci: no memory for %02x:%02x.%x\n", bus, slot, func);
		return;
	}
	d->bus = bus;
	d->slot = slot;
	d->func = func;
	d->vendor = id & 0xffff;
	d->device = id >> 16;
	cls = pci_read32(d, PCI_CLASS_REVISION);
	d->class = cls >> 24;
	d->subclass = cls >> 16;
	d->prog_if = cls >> 8;
	d->revision = cls;
	d->header_type = pci_read8(d, PCI_HEADER_TYPE);
	d->irq_line = pci_read8(d, PCI_INTERRUPT_LINE);
	d->irq_pin = pci_read8(d, PCI_INTERRUPT_PIN);
	read_bars(d);
	list_add_tail(&d->list, &pci_devices);
	nr_pci_devices++;
	print_dev(d);
	if ((d->header_type & 0x7f) == 1 && depth < 8) {	/* PCI-to-PCI bridge */
		u8 secondary = pci_read8(d, PCI_SECONDARY_BUS);

		if (secondary > bus)		/* numbered by the firmware; never loop */
			scan_bus(secondary, depth + 1);
	}
}

static void scan_slot(u8 bus, u8 slot, int depth)
{
	u32 id = raw_read32(bus, slot, 0, PCI_VENDOR_ID);
	u8 htype;

	if ((id & 0xffff) == 0xffff)
		return;
	add_function(bus, slot, 0, depth);
	htype = raw_read32(bus, slot, 0, PCI_HEADER_TYPE & ~3) >> 16;
	if (!(htype & 0x80))
		return;
	for (u8 func = 1; func < 8; func++)
		if ((raw_read32(bus, slot, func, PCI_VENDOR_ID) & 0xffff) != 0xffff)
			add_function(bus, slot, func, depth);
}

static void scan_bus(u8 bus, int depth)
{
	for (u8 slot = 0; slot < 32; slot++)
		scan_slot(bus, slot, depth);
}

void pci_init(void)
{
	scan_bus(0, 0);
	printk("pci: %u functions found\n", nr_pci_devices);
}

unsigned int pci_nr_devices(void)
{
	return nr_pci_devices;
}

void pci_for_each_dev(void (*fn)(struct pci_dev *d, void *arg), void *arg)
{
	struct pci_dev *d;

	list_for_each_entry(d, &pci_devices, list)
		fn(d, arg);
}

int pci_register_driver(const struct pci_driver *drv)
{
	struct pci_dev *d;
	int bound = 0;

	list_for_each_entry(d, &pci_devices, list) {
		if (d->driver)
			continue;
		for (const struct pci_device_id *id = drv->ids; id->vendor; id++) {
			char name[8];
			int err;

			if (id->vendor != d->vendor || id->device != d->device)
				continue;
			err = drv->probe(d, id);
			if (err) {
				printk("pci: %s: %s did not take it (error %d)\n", pci_name(d, name),
				       drv->name, err);
				break;
			}
			d->driver = drv;
			bound++;
			break;
		}
	}
	return bound;
}

void pci_enable_device(struct pci_dev *d)
{
	u16 cmd = pci_read16(d, PCI_COMMAND);

	cmd |= PCI_COMMAND_MEMORY | PCI_COMMAND_IO;
	cmd &= ~PCI_COMMAND_INTX_DISABLE;
	pci_write16(d, PCI_COMMAND, cmd);
}

void pci_set_master(struct pci_dev *d)
{
	pci_write16(d, PCI_COMMAND, pci_read16(d, PCI_COMMAND) | PCI_COMMAND_MASTER);
}

void __iomem *pci_ioremap_bar(struct pci_dev *d, int n)
{
	struct pci_bar *b;

	if (n < 0 || n >= PCI_NUM_BARS)
		return NULL;
	b = &d->bar[n];
	if (!b->size || b->io || !b->addr)
		return NULL;
	return ioremap(b->addr, b->size);
}

/* ---- Shared INTx lines */

#define PCI_IRQ_LINES		16	/* the ISA IRQs the firmware hands out */
#define PCI_IRQ_SHARERS		4

struct pci_irq_action {
	pci_irq_handler_t fn;
	void *arg;
};

struct pci_irq_line {
	struct pci_irq_action action[PCI_IRQ_SHARERS];
	unsigned int nr;		/* published after the action is filled in */
	unsigned long unhandled;	/* no handler claimed it */
};

static struct pci_irq_line irq_lines[PCI_IRQ_LINES];
static DEFINE_SPINLOCK(pci_irq_lock);

static void pci_intx_interrupt(struct pt_regs *regs, void *arg)
{
	struct pci_irq_line *line = arg;
	unsigned int nr = smp_load_acquire(&line->nr);
	bool handled = false;

	for (unsigned int i = 0; i < nr; i++)
		handled |= line->action[i].fn(line->action[i].arg);
	if (!handled)
		line->unhandled++;
}

int pci_request_irq(struct pci_dev *d, pci_irq_handler_t fn, void *arg, const char *name)
{
	unsigned int irq = d->irq_line;
	struct pci_irq_line *line;
	unsigned long flags;
	char dn[8];
	int err = 0;

	if (!d->irq_pin || irq == 0 || irq >= PCI_IRQ_LINES) {
		printk("pci: %s: no usable interrupt line (line %u pin %u)\n", pci_name(d, dn),
		       irq, d->irq_pin);
		return -ENODEV;
	}
	line = &irq_lines[irq];
	flags = spin_lock_irqsave(&pci_irq_lock);
	if (line->nr == PCI_IRQ_SHARERS) {
		err = -EBUSY;
	} else {
		line->action[line->nr] = (struct pci_irq_action){ fn, arg };
		smp_store_release(&line->nr, line->nr + 1);	/* the action before the count */
		if (line->nr == 1)
			err = irq_request_isa(irq, pci_intx_interrupt, line, name);
	}
	spin_unlock_irqrestore(&pci_irq_lock, flags);
	if (!err)
		printk("pci: %s: %s on IRQ %u (%u sharing)\n", pci_name(d, dn), name, irq, line->nr);
	return err;
}
