/* Ending the run: isa-debug-exit for tests, ACPI power-off for people. */
#include <arch/qemu.h>
#include <arch/io.h>
#include <arch/cpu.h>
#include <arch/acpi.h>
#include <time.h>
#include <kcov.h>

void qemu_exit(unsigned int code)
{
	kcov_all_dump();		/* every way out of a run passes here */
	outb(0xf4, code);
	/* Not under QEMU (or no debug-exit device): stop here. */
	for (;;) {
		local_irq_disable();
		halt();
	}
}

/*
 * ACPI soft-off: write SLP_EN with SLP_TYP = S5 to PM1a_CNT (from the FADT;
 * QEMU's DSDT gives S5 the type 0). QEMU acts on it asynchronously, so we
 * wait a little before falling back to isa-debug-exit.
 */
void machine_poweroff(void)
{
	u32 pm1a = acpi_pm1a_cnt();

	kcov_all_dump();		/* before QEMU acts on the soft-off */
	if (pm1a)
		outw(pm1a, 1 << 13);
	for (int i = 0; i < 1000; i++)
		udelay(1000);
	qemu_exit(QEMU_EXIT_PASS);
}
