/*
 * Finding the CPUs and interrupt controllers: ACPI's MADT, with the
 * Intel MultiProcessor table as the fallback (acpi=off forces it).
 */
#ifndef _ARCH_ACPI_H
#define _ARCH_ACPI_H

#include <types.h>

void acpi_init(void);
u64 acpi_lapic_phys(void);
u64 acpi_hpet_phys(void);
u32 acpi_pm1a_cnt(void);		/* PM1a control port from the FADT, 0 if none */		/* 0 if no HPET table */
const char *acpi_source(void);		/* "ACPI MADT" or "MP table" */

/* Filled in by the MADT or MP-table parser (kernel/arch/x86/cpus.c). */
void cpus_add(u32 apic_id, bool bsp);
void cpus_set_lapic(u64 phys);
extern unsigned int cpus_found;		/* before the NR_CPUS cap */

bool acpi_checksum_ok(const void *p, size_t n);

/* kernel/arch/x86/mptable.c */
bool mptable_parse(void);

#endif
