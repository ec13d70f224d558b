/*
 * The PCI bus (kernel/arch/x86/pci.c): configuration space, the bus scan,
 * BARs, and the interrupt lines of the devices found.
 *
 * pci_init() walks the buses from bus 0 through PCI-to-PCI bridges, once,
 * at boot, and prints each function it finds. A driver registers with
 * pci_register_driver(): its probe() runs for every device whose vendor
 * and device IDs are in its table. Drivers then map a BAR (pci_ioremap_bar),
 * turn on bus mastering for DMA (pci_set_master) and ask for the device's
 * interrupt line (pci_request_irq), which several devices may share.
 */
#ifndef _PCI_H
#define _PCI_H

#include <types.h>
#include <list.h>

/* Configuration-space registers (type 0 header). */
#define PCI_VENDOR_ID		0x00
#define PCI_DEVICE_ID		0x02
#define PCI_COMMAND		0x04
#define PCI_STATUS		0x06
#define PCI_CLASS_REVISION	0x08	/* class << 24 | subclass << 16 | prog-if << 8 | rev */
#define PCI_HEADER_TYPE		0x0e
#define PCI_BAR0		0x10
#define PCI_SECONDARY_BUS	0x19	/* type 1 (bridge) header */
#define PCI_CAPABILITY_LIST	0x34
#define PCI_INTERRUPT_LINE	0x3c	/* written by the firmware: the ISA IRQ */
#define PCI_INTERRUPT_PIN	0x3d	/* 1 = INTA# .. 4 = INTD#, 0 = none */

#define PCI_COMMAND_IO		0x001
#define PCI_COMMAND_MEMORY	0x002
#define PCI_COMMAND_MASTER	0x004
#define PCI_COMMAND_INTX_DISABLE 0x400

#define PCI_STATUS_CAP_LIST	0x010

#define PCI_NUM_BARS		6

struct pci_bar {
	u64 addr;		/* bus (= physical) address, or I/O port */
	u64 size;		/* 0: not implemented */
	bool io;		/* an I/O-port BAR */
	bool is64;		/* a 64-bit memory BAR (uses the next slot too) */
	bool prefetch;
};

struct pci_dev {
	struct list_head list;		/* pci_devices */
	u8 bus, slot, func;
	u16 vendor, device;
	u8 class, subclass, prog_if, revision;
	u8 header_type;
	u8 irq_line, irq_pin;		/* PCI_INTERRUPT_LINE/PIN */
	struct pci_bar bar[PCI_NUM_BARS];
	const struct pci_driver *driver;	/* bound by a successful probe */
	void *driver_data;
};

struct pci_device_id {
	u16 vendor, device;		/* a table ends with vendor 0 */
};

struct pci_driver {
	const char *name;
	const struct pci_device_id *ids;
	/* 0: the driver took the device; an error: it did not. */
	int (*probe)(struct pci_dev *dev, const struct pci_device_id *id);
};

u8 pci_read8(const struct pci_dev *d, unsigned int off);
u16 pci_read16(const struct pci_dev *d, unsigned int off);
u32 pci_read32(const struct pci_dev *d, unsigned int off);
void pci_write16(const struct pci_dev *d, unsigned int off, u16 v);
void pci_write32(const struct pci_dev *d, unsigned int off, u32 v);

/* Boot: scan the buses, remember and print every function. */
void pci_init(void);
/* Probe every matching device now; returns how many the driver took. */
int pci_register_driver(const struct pci_driver *drv);
/* Call fn for every device found (any order). */
void pci_for_each_dev(void (*fn)(struct pci_dev *d, void *arg), void *arg);
unsigned int pci_nr_devices(void);

/* Memory and bus-master decoding on (a driver's first steps). */
void pci_enable_device(struct pci_dev *d);
void pci_set_master(struct pci_dev *d);
/* BAR n mapped uncached; NULL if it is absent or an I/O BAR. */
void __iomem *pci_ioremap_bar(struct pci_dev *d, int n);

/*
 * The device's INTx line, routed through the IOAPIC to this CPU. The line
 * may be shared with other devices: every handler on it runs for every
 * interrupt and says whether its device had raised it (returns true).
 */
typedef bool (*pci_irq_handler_t)(void *arg);
int pci_request_irq(struct pci_dev *d, pci_irq_handler_t fn, void *arg, const char *name);

/* "00:03.0" into buf (at least 8 bytes). */
const char *pci_name(const struct pci_dev *d, char *buf);

#endif
