/*
 * kmain: the boot CPU's C entry, called by boot/entry.asm in long mode on
 * the higher half with the boot page tables. It brings the machine up in
 * layer order (docs/layers.md): per-CPU area, console, boot information,
 * CPU tables, memory, ACPI, APICs, time, the other CPUs; then, in the first
 * kernel thread, runs the tests chosen on the command line or starts the
 * first process.
 */
#include <kasan.h>
#include <kcsan.h>
#include <kcov.h>
#include <printk.h>
#include <percpu.h>
#include <bootinfo.h>
#include <cmdline.h>
#include <ktest.h>
#include <trace.h>
#include <mm.h>
#include <kmalloc.h>
#include <smp.h>
#include <time.h>
#include <string.h>
#include <tick.h>
#include <spinlock.h>
#include <rcu_hooks.h>
#include <sched.h>
#include <panic.h>
#include <idle.h>
#include <softirq.h>
#include <interrupt.h>
#include <timer.h>
#include <workqueue.h>
#include <ipc.h>
#include <fs.h>
#include <arch/irq.h>
#include <arch/gdt.h>
#include <arch/cpu.h>
#include <arch/qemu.h>
#include <arch/acpi.h>
#include <arch/apic.h>
#include <pci.h>
#include <net.h>

void kmain(u32 magic, u32 info);
void start_user_init(void);		/* kernel/proc/init.c */

static bool poweroff_after_boot;

static int set_poweroff(const char *val)
{
	poweroff_after_boot = true;
	return 0;
}
CMDLINE_PARAM("poweroff", set_poweroff,
	      "poweroff: power off once every CPU is online and has ticked (for scripts)");

static void banner(void)
{
	printk("Quiescent: an x86-64 SMP teaching kernel about Read-Copy Update\n");
	printk("config: HZ=%d CPUs=%u (max %d) preemption=%s rcu=%s spinlocks=%s\n",
	       HZ, num_online_cpus(), CONFIG_NR_CPUS, preempt_model_name(), rcu_variant_name(),
	       spinlock_mode_name());
}

/* Let every CPU tick a few times, then say how many ticks each took. */
static void report_ticks(void)
{
	char line[400];
	unsigned int cpu;
	int n = 0;

	local_irq_enable();
	mdelay(200);
	n = snprintf(line, sizeof(line), "ticks:");
	for_each_online_cpu(cpu)
		n += snprintf(line + n, sizeof(line) - n, " cpu%u=%lu", cpu, cpu_ticks(cpu));
	printk("%s\n", line);
}

/* The first kernel thread, bound to CPU 0: a test runs on the boot CPU
 * (docs/testing.md). */
static int kernel_init(void *arg)
{
	ksoftirqd_start();
	workqueues_init();
	rcu_hook_late_init();
	ktest_run_selected();		/* does not return if tests were chosen */
	if (poweroff_after_boot) {
		printk("poweroff: as asked on the command line\n");
		machine_poweroff();
	}
	start_user_init();
	return 0;
}

/*
 * The image's constructors (boot/linker.ld's .init_array). With KASAN,
 * kasan_init() runs them instead, once the shadow they poison exists.
 */
static void run_constructors(void)
{
#ifndef CONFIG_KASAN
	extern void (*const __init_array_start[])(void), (*const __init_array_end[])(void);

	for (void (*const *fn)(void) = __init_array_start; fn < __init_array_end; fn++)
		(*fn)();
#endif
}

/*
 * Not instrumented by KASAN: its frame would be poisoned before
 * kasan_early_init() has mapped anything for the shadow. Nor by KCOV:
 * its hook reads current through %gs, which percpu_init_boot_cpu() sets.
 */
__no_sanitize_address __no_kcov void kmain(u32 magic, u32 info)
{
	kasan_early_init();
	percpu_init_boot_cpu();
	run_constructors();
	smp_prepare_boot_cpu();		/* CPU 0 is online before anything walks the mask */
	serial_init();
	printk("Quiescent: serial console up\n");
	multiboot_parse(magic, info);
	printk("boot: %s (%s), cmdline '%s'\n", boot_info.loader,
	       boot_info.loader_name[0] ? boot_info.loader_name : "?", boot_info.cmdline);
	if (boot_info.cmdline_len >= sizeof(boot_info.cmdline))
		printk("boot: WARNING: the command line is %zu bytes; only the first %zu were kept\n",
		       boot_info.cmdline_len, sizeof(boot_info.cmdline) - 1);
	gdt_init_cpu();
	idt_init();
	idt_load();
	cmdline_parse(boot_info.cmdline);
	spinlock_choose_mode();

	pmm_init();
	paging_init();
	kasan_init();			/* the shadow, before kmalloc's first object */
	kmalloc_init();

	acpi_init();
	lapic_init_bsp(acpi_lapic_phys());
	trace_init();			/* per-CPU trace buffers: the CPUs are counted now */
	ipi_init();
	softirq_init();			/* softirq vectors before the first tick can raise one */
	tasklet_init_softirqs();
	time_init();			/* PIT/TSC/LAPIC timer calibration, jiffies */
	sched_init();			/* this boot context becomes CPU 0's idle task */
	rcu_hook_init();		/* the RCU variant, before any other CPU runs */
	serial_enable_rx_irq();
	pci_init();			/* the bus scan: IOAPIC and ioremap are up */
	local_irq_enable();
	smp_boot_aps();
	timers_init();			/* per-CPU wheels: the other CPUs' areas exist now */
	kcsan_init();			/* every CPU's per-CPU area is there: check accesses */
	net_init();			/* softnet per CPU, ARP timers, then the NICs on PCI */
	ipc_init();			/* SysV semaphore ids, in the mode ipc= chose */
	fs_init();			/* ramfs on /, the initrd unpacked into it (kernel/fs) */
	banner();
	report_ticks();

	/* Tests and what follows may block: they run in a thread, "init". */
	struct task *init = kthread_create_on_cpu(kernel_init, NULL, 0, "init");
	if (!init)
		panic("no memory for the init thread");
	wake_up_process(init);
	put_task(init);
	cpu_idle();
}
