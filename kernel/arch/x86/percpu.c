/*
 * Per-CPU areas (see include/percpu.h).
 *
 * The .percpu section is a template that nobody writes. Each CPU gets a
 * private copy in percpu_space[cpu], made when the CPU is set up, and its
 * GS base points at that copy. The space is static (in .bss) so that the
 * boot CPU has its area before any allocator exists; the build fails if
 * the template outgrows a slot (boot/linker.ld has no say: the check is
 * the STATIC size compare below at run time and the link-time ASSERT).
 */
#include <percpu.h>
#include <string.h>
#include <panic.h>
#include <arch/cpu.h>

#define PERCPU_SLOT	(128 * 1024)

static char percpu_space[CONFIG_NR_CPUS][PERCPU_SLOT] __aligned(4096);
unsigned long __per_cpu_offset[CONFIG_NR_CPUS];

/* First in every area: %gs:0 is the area's own address. */
__section(".percpu.first") struct cpu_local cpu_local_template;

void percpu_setup_cpu(unsigned int cpu, unsigned int apic_id)
{
	size_t size = __percpu_end - __percpu_start;
	char *area = percpu_space[cpu];
	struct cpu_local *cl = (struct cpu_local *)area;

	if (size > PERCPU_SLOT)
		panic("per-CPU data is %lu bytes, more than the %u-byte slot",
		      (unsigned long)size, PERCPU_SLOT);
	memcpy(area, __percpu_start, size);
	__per_cpu_offset[cpu] = area - __percpu_start;
	cl->self = cl;
	cl->offset = __per_cpu_offset[cpu];
	cl->cpu = cpu;
	cl->apic_id = apic_id;
}

void percpu_load(unsigned int cpu)
{
	wrmsr(MSR_GS_BASE, (u64)percpu_space[cpu]);
	wrmsr(MSR_KERNEL_GS_BASE, 0);
}

/* The boot CPU, before anything else runs: APIC ID filled in later. */
void percpu_init_boot_cpu(void)
{
	percpu_setup_cpu(0, 0);
	percpu_load(0);
}
