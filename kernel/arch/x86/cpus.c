/*
 * The table of CPUs: APIC IDs found by ACPI or the MP table, numbered
 * densely with the boot CPU as CPU 0. CPUs beyond CONFIG_NR_CPUS stay
 * offline, with a message.
 */
#include <arch/acpi.h>
#include <arch/apic.h>
#include <arch/cpu.h>
#include <smp.h>
#include <printk.h>

unsigned int nr_cpu_ids = 1;
unsigned int cpus_found;
unsigned int cpu_apic_id[CONFIG_NR_CPUS];
cpumask_t cpu_online_mask;

/* The initial APIC ID from CPUID, usable before the LAPIC is mapped. */
u32 lapic_id_early(void)
{
	u32 a, b, c, d;
	cpuid(1, 0, &a, &b, &c, &d);
	return b >> 24;
}

void cpus_add(u32 apic_id, bool bsp_hint)
{
	static bool bsp_seen;

	cpus_found++;
	if (apic_id == lapic_id_early()) {
		if (bsp_seen)
			return;
		bsp_seen = true;
		cpu_apic_id[0] = apic_id;
		return;
	}
	if (nr_cpu_ids >= CONFIG_NR_CPUS) {
		printk("smp: CPU with APIC ID %u ignored: CONFIG_NR_CPUS=%d\n",
		       apic_id, CONFIG_NR_CPUS);
		return;
	}
	for (unsigned int i = 1; i < nr_cpu_ids; i++)
		if (cpu_apic_id[i] == apic_id)
			return;			/* listed twice */
	cpu_apic_id[nr_cpu_ids++] = apic_id;
}
