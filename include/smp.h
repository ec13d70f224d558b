/*
 * SMP: which CPUs exist and are online, and cross-CPU calls (IPIs).
 * CPU numbers are dense, 0 .. nr_cpu_ids-1, the boot CPU is 0; APIC IDs
 * may be sparse and are kept in cpu_apic_id[].
 */
#ifndef _SMP_H
#define _SMP_H

#include <cpumask.h>
#include <percpu.h>
#include <barrier.h>

extern unsigned int nr_cpu_ids;		/* CPUs found by ACPI/MP table (capped) */
extern cpumask_t cpu_online_mask;
extern unsigned int cpu_apic_id[CONFIG_NR_CPUS];

#define for_each_online_cpu(cpu)	for_each_cpu(cpu, &cpu_online_mask)
#define for_each_possible_cpu(cpu)	for ((cpu) = 0; (cpu) < nr_cpu_ids; (cpu)++)

static inline unsigned int num_online_cpus(void)
{
	return cpumask_weight(&cpu_online_mask);
}

static inline bool cpu_online(unsigned int cpu)
{
	return cpumask_test(cpu, &cpu_online_mask);
}

typedef void (*smp_call_func_t)(void *arg);

/*
 * Run fn(arg) on `cpu` in interrupt context (the call-function IPI), or
 * directly if cpu is this CPU. With wait, return only after fn has run.
 * Must not be called with interrupts disabled when waiting (the target
 * may be waiting on us: deadlock), except during early boot.
 */
int smp_call_function_single(unsigned int cpu, smp_call_func_t fn, void *arg, bool wait);
/* fn on every online CPU but this one. */
void smp_call_function(smp_call_func_t fn, void *arg, bool wait);
/* fn on every online CPU, this one included. */
void on_each_cpu(smp_call_func_t fn, void *arg, bool wait);

/* CPU hotplug: a CPU back from its park flushes the TLB shootdowns it missed
 * (the calls whose senders gave up on it are never run: ipi.c). */
void smp_call_unparked(void);

void smp_send_reschedule(unsigned int cpu);
void smp_send_nmi_allbutself(void);
void smp_send_nmi(unsigned int cpu);

void smp_prepare_boot_cpu(void);	/* the boot CPU in cpu_online_mask, first of all */
void smp_boot_aps(void);
void ipi_init(void);
/* Ask CPUs for a register dump and backtrace by NMI (stall warnings). */
void nmi_trigger_backtrace(const cpumask_t *mask);
unsigned long nmi_backtraces_done(unsigned int cpu);

#endif
