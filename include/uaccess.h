/*
 * Copying between the kernel and the current process's memory
 * (kernel/proc/uaccess.c). A user pointer is checked against the user
 * half of the address space; then the copy runs with exception fix-up
 * (kernel/arch/x86/uaccess.asm), so an unmapped or read-only page, or a
 * pointer into the kernel, gives -EFAULT and never a kernel fault.
 */
#ifndef _UACCESS_H
#define _UACCESS_H

#include <types.h>
#include <compiler.h>

/* 0 or -EFAULT (nothing partial is reported). */
int copy_from_user(void *dst, const void __user *src, size_t n);
int copy_to_user(void __user *dst, const void *src, size_t n);
/* The string's length (< n), -ENAMETOOLONG if no NUL within n, or -EFAULT. */
long strncpy_from_user(char *dst, const char __user *src, long n);
bool access_ok(const void __user *p, size_t n);

#endif
