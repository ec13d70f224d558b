/* Local APIC (xAPIC, MMIO) and IOAPIC. */
#ifndef _ARCH_APIC_H
#define _ARCH_APIC_H

#include <types.h>

void lapic_init_bsp(u64 lapic_phys);
u32 lapic_id_early(void);		/* CPUID, before the LAPIC is mapped */
void lapic_init_cpu(void);
void lapic_eoi(void);
u32 lapic_id(void);
void lapic_send_ipi(u32 apic_id, u32 vector);
void lapic_send_nmi(u32 apic_id);
void lapic_send_init(u32 apic_id);
void lapic_send_sipi(u32 apic_id, u32 page);
void lapic_timer_calibrate(void);
void lapic_timer_start(void);
void lapic_timer_stop(void);

void ioapic_add(u32 id, u64 phys, u32 gsi_base);
void ioapic_add_override(u8 isa_irq, u32 gsi, u16 flags);
int ioapic_route_isa(unsigned int isa_irq, unsigned int vector, u32 dest_apic_id);
int ioapic_route_isa_nmi_all(unsigned int isa_irq, bool on);

#endif
