/*
 * Interrupts and exceptions: the saved register frame, the vector map,
 * and handler registration.
 */
#ifndef _ARCH_IRQ_H
#define _ARCH_IRQ_H

#include <types.h>

/* What kernel/arch/x86/isr.asm pushes, lowest address first. */
struct pt_regs {
	u64 r15, r14, r13, r12, r11, r10, r9, r8;
	u64 rbp, rdi, rsi, rdx, rcx, rbx, rax;
	u64 vector, error_code;
	u64 rip, cs, rflags, rsp, ss;	/* pushed by the CPU */
};

static inline bool user_mode(const struct pt_regs *r) { return r->cs & 3; }

/* Vector map. */
#define VEC_EXCEPTIONS		32
#define VEC_IRQ_BASE		0x30	/* IOAPIC: vector = VEC_IRQ_BASE + GSI */
#define VEC_IRQ_MAX		0xdf
#define VEC_TEST		0xe0	/* free for tests */
#define VEC_LOCAL_TIMER		0xf0
#define VEC_RESCHEDULE		0xf1
#define VEC_CALL_FUNCTION	0xf2
#define VEC_APIC_ERROR		0xfe
#define VEC_SPURIOUS		0xff

/* IST slots in every CPU's TSS (kernel/arch/x86/gdt.c). */
#define IST_DOUBLE_FAULT	1
#define IST_NMI			2
#define IST_MACHINE_CHECK	3

typedef void (*irq_handler_t)(struct pt_regs *regs, void *arg);

/* Install a handler for a vector (LAPIC-local sources and IPIs). */
void irq_set_handler(unsigned int vector, irq_handler_t fn, void *arg, const char *name);
/* Route an ISA IRQ through the IOAPIC to the BSP and install a handler. */
int irq_request_isa(unsigned int isa_irq, irq_handler_t fn, void *arg, const char *name);

/* Per-vector counts per CPU, for /proc/interrupts-style output. */
unsigned long irq_count(unsigned int cpu, unsigned int vector);
bool irq_vector_has_handler(unsigned int vector);
void show_interrupts(void);

void idt_init(void);
void idt_load(void);
void show_regs(const struct pt_regs *regs);
void dump_stack(void);
void show_backtrace(unsigned long rip, unsigned long rbp);
void show_backtrace_regs(const struct pt_regs *regs);

/* Exception fix-up (copy_from_user and friends): on a fault at `insn`,
 * resume at `fixup` instead of panicking. */
struct exception_table_entry {
	unsigned long insn, fixup;
};
bool fixup_exception(struct pt_regs *regs);

#endif
