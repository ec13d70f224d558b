/*
 * The IDT and the C side of interrupt entry.
 *
 * All 256 vectors get an interrupt gate (interrupts stay disabled in the
 * handler until it enables them). interrupt_dispatch() is called by
 * kernel/arch/x86/isr.asm with the saved registers: vectors below 32 are
 * exceptions (kernel/arch/x86/traps.c), the rest are interrupts, counted
 * per CPU and bracketed by irq_enter()/irq_exit().
 */
#include <arch/irq.h>
#include <arch/gdt.h>
#include <arch/apic.h>
#include <percpu.h>
#include <preempt.h>
#include <printk.h>
#include <smp.h>
#include <panic.h>
#include <string.h>
#include <upcalls.h>

struct idt_entry {
	u16 off_lo, sel;
	u8 ist, type;
	u16 off_mid;
	u32 off_hi, zero;
} __packed;

static struct idt_entry idt[256] __aligned(16);
extern const u64 isr_table[256];

struct irq_desc {
	irq_handler_t fn;
	void *arg;
	const char *name;
};
static struct irq_desc irq_desc[256];
static DEFINE_PER_CPU(unsigned long[256], irq_counts);

void exception_dispatch(struct pt_regs *regs);

static void set_gate(int v, u64 addr, int ist, int dpl)
{
	idt[v].off_lo = addr & 0xffff;
	idt[v].sel = KERNEL_CS;
	idt[v].ist = ist;
	idt[v].type = 0x8e | (dpl << 5);	/* present, 64-bit interrupt gate */
	idt[v].off_mid = (addr >> 16) & 0xffff;
	idt[v].off_hi = addr >> 32;
	idt[v].zero = 0;
}

void idt_init(void)
{
	for (int v = 0; v < 256; v++)
		set_gate(v, isr_table[v], 0, 0);
	set_gate(2, isr_table[2], IST_NMI, 0);
	set_gate(8, isr_table[8], IST_DOUBLE_FAULT, 0);
	set_gate(18, isr_table[18], IST_MACHINE_CHECK, 0);
	set_gate(3, isr_table[3], 0, 3);	/* int3 allowed from user mode */
}

void idt_load(void)
{
	struct {
		u16 limit;
		u64 base;
	} __packed p = { sizeof(idt) - 1, (u64)idt };

	__asm__ __volatile__("lidt %0" :: "m"(p));
}

void irq_set_handler(unsigned int vector, irq_handler_t fn, void *arg, const char *name)
{
	irq_desc[vector].arg = arg;
	irq_desc[vector].name = name;
	WRITE_ONCE(irq_desc[vector].fn, fn);
}

unsigned long irq_count(unsigned int cpu, unsigned int vector)
{
	return per_cpu(irq_counts, cpu)[vector];
}

bool irq_vector_has_handler(unsigned int vector)
{
	return irq_desc[vector].fn != NULL;
}

void show_interrupts(void)
{
	unsigned int cpu;

	for (int v = VEC_EXCEPTIONS; v < 256; v++) {
		if (!irq_desc[v].fn)
			continue;
		char line[256];
		int n = snprintf(line, sizeof(line), "vec %3d %-12s", v, irq_desc[v].name);
		for_each_online_cpu(cpu)
			n += snprintf(line + n, sizeof(line) - n, " %8lu", irq_count(cpu, v));
		printk("%s\n", line);
	}
}

void interrupt_dispatch(struct pt_regs *regs);
void interrupt_dispatch(struct pt_regs *regs)
{
	unsigned int v = regs->vector;

	if (v < VEC_EXCEPTIONS) {
		exception_dispatch(regs);
		return;
	}
	this_cpu(irq_counts)[v]++;
	if (v == VEC_SPURIOUS)
		return;				/* no EOI for spurious */
	irq_enter();
	if (likely(irq_desc[v].fn))
		irq_desc[v].fn(regs, irq_desc[v].arg);
	else
		printk("unexpected interrupt on vector %u\n", v);
	lapic_eoi();
	irq_exit(regs);
}
