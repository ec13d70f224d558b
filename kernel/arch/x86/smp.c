/*
 * Starting the application processors (APs).
 *
 * For each AP in turn: give it a per-CPU area and a stack, then send the
 * INIT-SIPI-SIPI sequence of the Intel MultiProcessor Specification (INIT,
 * 10 ms, STARTUP, 200 us, STARTUP if it has not answered). The AP starts in
 * real mode in boot/trampoline.asm at 0x8000, reaches ap_entry64
 * (kernel/arch/x86/ap_entry.asm) and then ap_main() below, which sets up
 * its tables, its LAPIC and its tick, marks itself online and idles.
 * APs are started one at a time because they share the ap_boot_* slots.
 */
#include <smp.h>
#include <mm.h>
#include <time.h>
#include <tick.h>
#include <printk.h>
#include <string.h>
#include <panic.h>
#include <rcu_hooks.h>
#include <arch/apic.h>
#include <arch/cpu.h>
#include <arch/gdt.h>
#include <arch/irq.h>
#include <arch/layout.h>
#include <idle.h>
#include <upcalls.h>

#define TRAMPOLINE_PHYS		0x8000
#define AP_STACK_ORDER		2		/* 16 KiB */
#define AP_STACK_SIZE		(PAGE_SIZE << AP_STACK_ORDER)

extern char trampoline_start[], trampoline_end[];
extern void ap_entry64(void);
extern u64 boot_pml4[];

/* Read by ap_entry64 before it has a stack. */
u64 ap_boot_cr3;
u64 ap_boot_stack;
u32 ap_boot_cpu;
static volatile bool ap_started;

/* Each CPU's kernel stack base (for gdb and stack-overflow checks). */
unsigned long cpu_boot_stack[CONFIG_NR_CPUS];

void ap_main(unsigned int cpu);

struct trampoline_params {
	u32 cr3;
	u32 efer_extra;
	u64 entry;
};

void ap_main(unsigned int cpu)
{
	percpu_load(cpu);
	gdt_init_cpu();
	idt_load();
	lapic_init_cpu();
	sched_init_ap(cpu);		/* this boot context becomes the idle task */
	rcu_hook_cpu_online(cpu);	/* before the first tick reaches RCU */
	tick_start_this_cpu();
	cpumask_set(cpu, &cpu_online_mask);
	smp_store_release(&ap_started, true);
	local_irq_enable();
	cpu_idle();
}

static bool start_ap(unsigned int cpu)
{
	u32 apic = cpu_apic_id[cpu];
	phys_addr_t stack = alloc_pages(AP_STACK_ORDER);

	if (!stack) {
		printk("smp: no memory for CPU %u's stack\n", cpu);
		return false;
	}
	percpu_setup_cpu(cpu, apic);
	cpu_boot_stack[cpu] = (unsigned long)phys_to_virt(stack);
	ap_boot_stack = cpu_boot_stack[cpu] + AP_STACK_SIZE;
	ap_boot_cpu = cpu;
	ap_started = false;
	smp_mb();

	lapic_send_init(apic);
	mdelay(10);
	for (int sipi = 0; sipi < 2 && !READ_ONCE(ap_started); sipi++) {
		lapic_send_sipi(apic, TRAMPOLINE_PHYS >> 12);
		for (int us = 0; us < (sipi ? 1000000 : 200) && !READ_ONCE(ap_started); us += 10)
			udelay(10);
	}
	if (!READ_ONCE(ap_started)) {
		printk("smp: CPU %u (APIC ID %u) did not start\n", cpu, apic);
		return false;
	}
	return true;
}

/*
 * The boot CPU is online from the first instruction of kmain: anything
 * that walks cpu_online_mask before the APs come up (RCU's first grace
 * periods, whose CPU masks are copies of it) must at least find the CPU
 * it runs on, or a grace period would wait for nobody.
 */
void smp_prepare_boot_cpu(void)
{
	cpumask_set(0, &cpu_online_mask);
}

void smp_boot_aps(void)
{
	struct trampoline_params *tp;
	size_t size = trampoline_end - trampoline_start;
	u64 t0 = ktime_get_ns();
	u8 *dst = phys_to_virt(TRAMPOLINE_PHYS);

	cpu_boot_stack[0] = 0;
	memcpy(dst, trampoline_start, size);
	tp = (struct trampoline_params *)(dst + size - sizeof(*tp));
	tp->cr3 = virt_to_phys(boot_pml4);		/* identity-maps the trampoline */
	tp->efer_extra = rdmsr(MSR_EFER) & EFER_NXE;
	tp->entry = (u64)ap_entry64;
	ap_boot_cr3 = read_cr3();			/* the kernel's own tables */

	for (unsigned int cpu = 1; cpu < nr_cpu_ids; cpu++)
		start_ap(cpu);

	u64 ns = ktime_get_ns() - t0;
	if (num_online_cpus() == nr_cpu_ids)
		printk("smp: all %u CPUs online in %lu.%03lu ms (%lu.%03lu ms since boot)\n",
		       nr_cpu_ids, (unsigned long)(ns / 1000000), (unsigned long)(ns / 1000 % 1000),
		       (unsigned long)(ktime_get_ns() / 1000000),
		       (unsigned long)(ktime_get_ns() / 1000 % 1000));
	else
		printk("smp: only %u of %u CPUs online\n", num_online_cpus(), nr_cpu_ids);
}
