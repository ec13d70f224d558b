/*
 * Symbolizing kernel addresses with the table the build embeds in .ksymtab
 * (tools/mksyms.py, second link pass). Sorted by address: binary search.
 * Addresses in loaded modules are looked up in the module's own table
 * (kernel/module/symbols.c, under rcu_read_lock()): a backtrace through
 * a module prints "function+off/size [module]".
 */
#include <ksyms.h>
#include <string.h>
#include <upcalls.h>

extern const struct ksym ksymtab[];
extern const unsigned long ksymtab_count;
extern const char ksymtab_names[];

const char *ksym_lookup(unsigned long addr, unsigned long *offset, unsigned long *size)
{
	unsigned long lo = 0, hi = ksymtab_count;
	extern char _text_end[];

	if (!ksymtab_count || addr < ksymtab[0].addr || addr >= (unsigned long)_text_end)
		return NULL;
	while (hi - lo > 1) {
		unsigned long mid = (lo + hi) / 2;
		if (ksymtab[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	if (offset)
		*offset = addr - ksymtab[lo].addr;
	if (size)
		*size = (lo + 1 < ksymtab_count ? ksymtab[lo + 1].addr
			 : (unsigned long)_text_end) - ksymtab[lo].addr;
	return &ksymtab_names[ksymtab[lo].name_off];
}

unsigned long ksym_address(const char *name)
{
	for (unsigned long i = 0; i < ksymtab_count; i++)
		if (!strcmp(&ksymtab_names[ksymtab[i].name_off], name))
			return ksymtab[i].addr;
	return 0;
}

bool ksym_resolve(unsigned long addr, struct ksym_info *info)
{
	unsigned long off, sz;
	const char *name = ksym_lookup(addr, &off, &sz);

	if (!name)
		return module_address_lookup(addr, info);
	info->start = addr - off;
	info->size = sz;
	info->offset = off;
	strlcpy(info->name, name, sizeof(info->name));
	info->module[0] = 0;
	return true;
}

bool ksym_is_text(unsigned long addr)
{
	return ksym_lookup(addr, NULL, NULL) || module_text_address(addr);
}

void ksym_format(unsigned long addr, char *buf, size_t size)
{
	struct ksym_info i;

	if (!ksym_resolve(addr, &i))
		snprintf(buf, size, "0x%016lx", addr);
	else if (i.module[0])
		snprintf(buf, size, "%s+0x%lx/0x%lx [%s]", i.name, i.offset, i.size, i.module);
	else
		snprintf(buf, size, "%s+0x%lx/0x%lx", i.name, i.offset, i.size);
}
