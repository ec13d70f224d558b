/*
 * System-call registration. Each subsystem defines its calls where they
 * belong (kernel/proc/ for processes and files, kernel/ipc/ for
 * semaphores, kernel/net/ for sockets, ...) and registers each with
 *
 *	static long sys_getpid(struct pt_regs *r) { ... }
 *	SYSCALL_DEFINE(SYS_getpid, sys_getpid);
 *
 * which puts a struct syscall_def in the .syscalls section. At boot
 * syscall_table_init() (kernel/proc/syscall.c) turns the section into the
 * table syscall_dispatch() indexes, and refuses a number out of range or
 * registered twice, so no central list has to name every call.
 *
 * The numbers are in include/uapi/quiescent.h (and the uapi header of each
 * subsystem), in the ranges that file reserves.
 */
#ifndef _SYSCALL_H
#define _SYSCALL_H

#include <compiler.h>
#include <types.h>
#include <arch/irq.h>

typedef long (*syscall_fn)(struct pt_regs *regs);

struct syscall_def {
	unsigned long nr;
	syscall_fn fn;
	const char *name;
};

#define SYSCALL_DEFINE(nr_, fn_)						\
	static const struct syscall_def __syscall_def_##fn_			\
	__section(".syscalls") __used __aligned(8) = { nr_, fn_, #fn_ }

/* The arguments, in the registers the `syscall` convention puts them. */
#define SYSCALL_ARG0(r)	((r)->rdi)
#define SYSCALL_ARG1(r)	((r)->rsi)
#define SYSCALL_ARG2(r)	((r)->rdx)
#define SYSCALL_ARG3(r)	((r)->r10)
#define SYSCALL_ARG4(r)	((r)->r8)
#define SYSCALL_ARG5(r)	((r)->r9)

void syscall_table_init(void);
/* The registered name of call nr ("sys_getpid"), or NULL. */
const char *syscall_name(unsigned long nr);

#endif
