/* The x86 side of user mode (kernel/arch/x86/syscall*.{c,asm}, uaccess.asm). */
#ifndef _ARCH_USER_H
#define _ARCH_USER_H

#include <types.h>
#include <compiler.h>

struct pt_regs;

/* MSRs for syscall/sysret, SMEP and SMAP; every CPU, from gdt_init_cpu(). */
void syscall_init_cpu(void);
/* Enter user mode with the registers in *frame (a kernel copy). */
__noreturn void user_enter(const struct pt_regs *frame);
/* pt_regs.vector of a frame saved by syscall_entry. */
#define SYSCALL_VECTOR	0x100

/* Raw copies with exception fix-up; range checks are the caller's. */
unsigned long __copy_user(void *dst, const void *src, unsigned long n);
long __strncpy_from_user(char *dst, const char *src, long n);

#endif
