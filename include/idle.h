/* The idle loop (kernel/core/idle.c) and the scheduler's hooks into it. */
#ifndef _IDLE_H
#define _IDLE_H

#include <compiler.h>

__noreturn void cpu_idle(void);
/* Provided by kernel/sched (weak defaults: never leave idle). */
bool idle_should_exit(void);	/* called with interrupts disabled */
void idle_exit(void);		/* run what there is to run, then come back */

#endif
