/*
 * panic: one CPU says what went wrong, stops the others with an NMI (each
 * prints that it stopped and why), then ends the run: QEMU exits with the
 * panic status so that the test runner reports a failure, not a time-out.
 */
#include <panic.h>
#include <printk.h>
#include <smp.h>
#include <arch/irq.h>
#include <arch/cpu.h>
#include <arch/qemu.h>
#include <string.h>
#include <time.h>

volatile int panic_cpu = -1;
char panic_reason[160];

static __noreturn void halt_forever(void)
{
	for (;;) {
		local_irq_disable();
		halt();
	}
}

static __noreturn void vpanic(const struct pt_regs *regs, const char *fmt, va_list ap)
{
	int me = smp_processor_id();
	int expected = -1;

	local_irq_disable();
	if (!__atomic_compare_exchange_n(&panic_cpu, &expected, me, false,
					 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
		/* Someone panicked first (or we panicked inside panic). */
		if (expected != me)
			halt_forever();
		printk_bust_lock();
		printk("recursive panic on CPU %d\n", me);
		qemu_exit(QEMU_EXIT_PANIC);
	}
	vsnprintf(panic_reason, sizeof(panic_reason), fmt, ap);
	printk("Kernel panic on CPU %d: %s\n", me, panic_reason);
	if (regs) {
		show_regs(regs);
		show_backtrace_regs(regs);
	} else {
		dump_stack();
	}
	smp_send_nmi_allbutself();
	mdelay(50);			/* let the others print that they stopped */
	printk_bust_lock();
	printk("---[ end Kernel panic on CPU %d: %s ]---\n", me, panic_reason);
	qemu_exit(QEMU_EXIT_PANIC);
}

void panic(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vpanic(NULL, fmt, ap);
}

void panic_regs(const struct pt_regs *regs, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vpanic(regs, fmt, ap);
}

void warn_slowpath(const char *file, int line, const char *cond)
{
	printk("WARNING: CPU %u at %s:%d: %s\n", smp_processor_id(), file, line, cond);
	dump_stack();
}
