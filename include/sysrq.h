/*
 * Ctrl-T reports (kernel/core/sysrq.c). Ctrl-T on the serial console
 * prints the kernel's statistics: the core's own (interrupts, memory),
 * then each report a subsystem above the core registered, in the order
 * they registered (kmain's init order: the scheduler's, then RCU's). The
 * core knows nothing of what they print.
 */
#ifndef _SYSRQ_H
#define _SYSRQ_H

struct sysrq_report {
	const char *name;		/* the subsystem, for gdb */
	void (*show)(void);		/* prints with printk(), in process context */
	struct sysrq_report *next;	/* the core's list */
};

/* At boot, from the subsystem's init: r must live for ever (static). */
void sysrq_register_report(struct sysrq_report *r);
/*
 * Print what the keys pressed since the last call asked for, in process
 * context: the worker that sysrq_schedule() (include/upcalls.h) queued.
 */
void sysrq_run(void);

#endif
