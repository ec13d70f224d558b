/*
 * Exported symbols: what a loadable module may link against.
 *
 *	EXPORT_SYMBOL(printk);
 *
 * puts { &printk, "printk" } in the .exports section. The kernel's own
 * entries are gathered by the linker between __exports_start and
 * __exports_end (boot/linker.ld); a module's are in its own .exports
 * section, which the loader reads once the module is relocated. A
 * module's undefined symbols are resolved against these tables only,
 * never against the whole kernel symbol table (.ksymtab, which is for
 * backtraces): what a module may call is a deliberate, short list
 * (kernel/module/exports.c), as Linux's EXPORT_SYMBOL makes it.
 */
#ifndef _EXPORT_H
#define _EXPORT_H

#include <compiler.h>

struct kernel_symbol {
	unsigned long addr;
	const char *name;
};

#define EXPORT_SYMBOL(sym)							\
	static const char __export_name_##sym[] = #sym;			\
	static const struct kernel_symbol __export_##sym			\
	__section(".exports") __used __aligned(8) =				\
		{ (unsigned long)&(sym), __export_name_##sym }

/* The address of the kernel's export `name`, or 0 (kernel/module/exports.c). */
unsigned long kernel_export_lookup(const char *name);

#endif
