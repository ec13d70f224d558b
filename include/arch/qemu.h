/*
 * Ending a run under QEMU: a write of v to the isa-debug-exit device
 * (iobase 0xf4) makes QEMU exit with status (v << 1) | 1. The test runner
 * (tools/qrun.py) reads these statuses.
 */
#ifndef _ARCH_QEMU_H
#define _ARCH_QEMU_H

#include <compiler.h>

#define QEMU_EXIT_PASS	0x10	/* QEMU exit status 33 */
#define QEMU_EXIT_FAIL	0x11	/* 35 */
#define QEMU_EXIT_PANIC	0x12	/* 37 */

__noreturn void qemu_exit(unsigned int code);
/* Power off (ACPI S5 on QEMU's PIIX4/ICH9), then fall back to qemu_exit. */
__noreturn void machine_poweroff(void);

#endif
