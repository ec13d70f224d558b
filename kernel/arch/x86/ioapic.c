/*
 * The IOAPIC: routes device interrupt lines (global system interrupts,
 * GSIs) to a vector on a chosen CPU. ISA IRQs map to GSIs one to one
 * unless the MADT gives an override (QEMU: IRQ 0 -> GSI 2).
 * We use it for the serial port's receive interrupt (ISA IRQ 4); the
 * ticks come from the LAPIC timers.
 */
#include <arch/apic.h>
#include <arch/io.h>
#include <arch/irq.h>
#include <mm.h>
#include <printk.h>
#include <spinlock.h>
#include <errno.h>

#define IOREGSEL	0x00
#define IOWIN		0x10
#define IOAPIC_VER	0x01
#define IOREDTBL(pin)	(0x10 + 2 * (pin))
#define RTE_MASKED	(1U << 16)
#define RTE_LEVEL	(1U << 15)
#define RTE_LOW		(1U << 13)
#define RTE_DM_NMI	(4U << 8)

#define MAX_IOAPICS	8

struct ioapic {
	volatile u32 __iomem *base;
	u32 id, gsi_base, pins;
};

struct isa_override {
	u32 gsi;
	u16 flags;
	bool set;
};

static struct ioapic ioapics[MAX_IOAPICS];
static int nr_ioapics;
static struct isa_override isa_over[16];
static DEFINE_SPINLOCK(ioapic_lock);

static u32 io_read(struct ioapic *io, u32 reg)
{
	mmio_write32(&io->base[IOREGSEL / 4], reg);
	return mmio_read32(&io->base[IOWIN / 4]);
}

static void io_write(struct ioapic *io, u32 reg, u32 v)
{
	mmio_write32(&io->base[IOREGSEL / 4], reg);
	mmio_write32(&io->base[IOWIN / 4], v);
}

void ioapic_add(u32 id, u64 phys, u32 gsi_base)
{
	struct ioapic *io;

	if (nr_ioapics >= MAX_IOAPICS)
		return;
	io = &ioapics[nr_ioapics++];
	io->base = ioremap(phys, 4096);
	io->id = id;
	io->gsi_base = gsi_base;
	io->pins = ((io_read(io, IOAPIC_VER) >> 16) & 0xff) + 1;
	for (u32 pin = 0; pin < io->pins; pin++) {	/* everything off until asked */
		io_write(io, IOREDTBL(pin) + 1, 0);
		io_write(io, IOREDTBL(pin), RTE_MASKED);
	}
	printk("ioapic: id %u at %#lx, GSIs %u-%u\n", id, phys, gsi_base, gsi_base + io->pins - 1);
}

void ioapic_add_override(u8 isa_irq, u32 gsi, u16 flags)
{
	if (isa_irq < 16)
		isa_over[isa_irq] = (struct isa_override){ gsi, flags, true };
}

static int route_isa(unsigned int irq, u32 lo, u32 dest);

int ioapic_route_isa(unsigned int irq, unsigned int vector, u32 dest)
{
	return route_isa(irq, vector, dest);
}

/*
 * An ISA line delivered as an NMI to every CPU (physical destination
 * 0xff is the xAPIC broadcast): the periodic NMI source of
 * kernel/arch/x86/nmi_timer.c. NMI delivery ignores the vector and must
 * be edge-triggered. on = false masks the line again.
 */
int ioapic_route_isa_nmi_all(unsigned int irq, bool on)
{
	return route_isa(irq, RTE_DM_NMI | (on ? 0 : RTE_MASKED), 0xff);
}

static int route_isa(unsigned int irq, u32 lo, u32 dest)
{
	u32 gsi = irq;

	if (irq < 16 && isa_over[irq].set) {
		gsi = isa_over[irq].gsi;
		if ((isa_over[irq].flags & 3) == 3)
			lo |= RTE_LOW;
		if (((isa_over[irq].flags >> 2) & 3) == 3 && !(lo & RTE_DM_NMI))
			lo |= RTE_LEVEL;
	}
	for (int i = 0; i < nr_ioapics; i++) {
		struct ioapic *io = &ioapics[i];
		if (gsi < io->gsi_base || gsi >= io->gsi_base + io->pins)
			continue;
		unsigned long flags = spin_lock_irqsave(&ioapic_lock);
		io_write(io, IOREDTBL(gsi - io->gsi_base) + 1, dest << 24);
		io_write(io, IOREDTBL(gsi - io->gsi_base), lo);	/* unmasks (unless lo masks) */
		(void)io_read(io, IOREDTBL(gsi - io->gsi_base));	/* the write has landed */
		spin_unlock_irqrestore(&ioapic_lock, flags);
		return 0;
	}
	return -ENODEV;
}

int irq_request_isa(unsigned int irq, irq_handler_t fn, void *arg, const char *name)
{
	unsigned int vector = VEC_IRQ_BASE + irq;
	int err;

	irq_set_handler(vector, fn, arg, name);
	err = ioapic_route_isa(irq, vector, lapic_id());
	if (err)
		printk("ioapic: cannot route ISA IRQ %u (%s): no IOAPIC has it\n", irq, name);
	return err;
}
