/* The kernel's embedded symbol table (made by tools/mksyms.py). */
#ifndef _KSYMS_H
#define _KSYMS_H

#include <types.h>

struct ksym {
	unsigned long addr;
	unsigned int name_off;
};

/* Name of the function holding addr and the offset into it; NULL if none. */
const char *ksym_lookup(unsigned long addr, unsigned long *offset, unsigned long *size);
unsigned long ksym_address(const char *name);
/* "func+0x1a/0x80" or "0xffff..." */
void ksym_format(unsigned long addr, char *buf, size_t size);

#endif
