/*
 * The idle loop (kernel/core/idle.c). The scheduler's hooks into it,
 * idle_should_exit() and idle_exit(), are in include/upcalls.h.
 */
#ifndef _IDLE_H
#define _IDLE_H

#include <compiler.h>

__noreturn void cpu_idle(void);

#endif
