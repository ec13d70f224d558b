/*
 * Symbolizing kernel addresses with the table the build embeds in .ksymtab
 * (tools/mksyms.py, second link pass). Sorted by address: binary search.
 */
#include <ksyms.h>
#include <string.h>
#include <string.h>

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

void ksym_format(unsigned long addr, char *buf, size_t size)
{
	unsigned long off, sz;
	const char *name = ksym_lookup(addr, &off, &sz);

	if (name)
		snprintf(buf, size, "%s+0x%lx/0x%lx", name, off, sz);
	else
		snprintf(buf, size, "0x%016lx", addr);
}
