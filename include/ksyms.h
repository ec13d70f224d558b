/* The kernel's embedded symbol table (made by tools/mksyms.py), and loaded modules'. */
#ifndef _KSYMS_H
#define _KSYMS_H

#include <types.h>

struct ksym {
	unsigned long addr;
	unsigned int name_off;
};

/* Name of the function holding addr and the offset into it; NULL if none.
 * The kernel image only: a module's names go when it does (ksym_resolve()). */
const char *ksym_lookup(unsigned long addr, unsigned long *offset, unsigned long *size);
unsigned long ksym_address(const char *name);

/* A symbol, copied out: the kernel's, or a loaded module's (module[] set). */
struct ksym_info {
	unsigned long start, size, offset;
	char name[64];
	char module[32];		/* "" for the kernel image */
};
/* Any context, NMI included (modules are looked up under rcu_read_lock()). */
bool ksym_resolve(unsigned long addr, struct ksym_info *info);
/* Is addr inside a function, of the kernel or of a loaded module? */
bool ksym_is_text(unsigned long addr);
/* "func+0x1a/0x80", "func+0x1a/0x80 [module]" or "0xffff..." */
void ksym_format(unsigned long addr, char *buf, size_t size);

#endif
