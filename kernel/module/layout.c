/*
 * Where each section of a module goes. The module gets one virtual range
 * in the module area (area.c) in three page-aligned parts, each mapped
 * with only the rights it needs (W^X):
 *
 *   text       SHF_EXECINSTR sections             read + execute
 *   read-only  the other sections, not SHF_WRITE  read, no execute
 *              + the module's symbol table and names (symbols.c)
 *   read-write SHF_WRITE sections, .bss included  read + write, no execute
 *              + struct module itself
 *
 * Within a part, sections follow in file order at their own alignment.
 * Sections that are not SHF_ALLOC (debug information, the symbol table,
 * relocations) and .modinfo (read from the file) are not loaded.
 */
#include "internal.h"
#include <kmalloc.h>
#include <errno.h>
#include <string.h>

static enum mod_region region_of(const struct load_info *li, unsigned int i)
{
	const struct elf64_shdr *s = &li->sh[i];

	if (!(s->flags & SHF_ALLOC) || s->type == SHT_NOTE || s->size == 0 || i == li->modinfo_idx)
		return REGION_NONE;
	if (s->flags & SHF_EXECINSTR)
		return REGION_TEXT;
	return s->flags & SHF_WRITE ? REGION_RW : REGION_RO;
}

/* Add n bytes aligned to align at the end of region r: the offset, or -1. */
static long region_add(struct load_info *li, enum mod_region r, unsigned long n,
		       unsigned long align)
{
	unsigned long off = ALIGN_UP(li->region_size[r], MAX(align, 1UL));

	if (off > MOD_MAX_SIZE || n > MOD_MAX_SIZE - off)
		return -1;
	li->region_size[r] = off + n;
	return off;
}

int layout_sections(struct load_info *li)
{
	unsigned long total = 0;
	long off;

	li->sec_region = kzalloc(li->shnum);
	li->sec_off = kzalloc(li->shnum * sizeof(*li->sec_off));
	if (!li->sec_region || !li->sec_off)
		return load_fail(li, -ENOMEM, "out of memory");
	for (unsigned int i = 1; i < li->shnum; i++) {
		enum mod_region r = region_of(li, i);

		if (r == REGION_NONE)
			continue;
		off = region_add(li, r, li->sh[i].size, li->sh[i].addralign);
		if (off < 0)
			return load_fail(li, -ENOEXEC, "too large (sections over %lu MiB)",
					 MOD_MAX_SIZE >> 20);
		li->sec_region[i] = r;
		li->sec_off[i] = off;
	}
	module_count_symbols(li);
	off = region_add(li, REGION_RO, li->modsym_count * sizeof(struct module_sym), 8);
	li->modsym_off = off;
	if (off >= 0)
		off = region_add(li, REGION_RO, li->modstr_size, 1);
	li->modstr_off = off;
	if (off >= 0)
		off = region_add(li, REGION_RW, sizeof(struct module), 64);
	li->mod_off = off;
	if (off < 0)
		return load_fail(li, -ENOEXEC, "too large (symbols over %lu MiB)", MOD_MAX_SIZE >> 20);
	for (int r = REGION_TEXT; r < NR_REGIONS; r++) {
		li->region_base[r] = total;
		li->region_size[r] = ALIGN_UP(li->region_size[r], PAGE_SIZE);
		total += li->region_size[r];
	}
	if (total > MOD_MAX_SIZE)
		return load_fail(li, -ENOEXEC, "too large (%lu KiB)", total >> 10);
	li->total_size = total;
	return 0;
}

/* The section's final address (0 if it is not loaded). */
unsigned long sec_addr(const struct load_info *li, unsigned int i)
{
	enum mod_region r = li->sec_region[i];

	if (r == REGION_NONE)
		return 0;
	return li->base + li->region_base[r] + li->sec_off[i];
}

void *mod_buf(const struct load_info *li, unsigned long va, size_t n)
{
	unsigned long base = li->base;

	if (va < base || va - base > li->total_size || n > li->total_size - (va - base))
		return NULL;
	return li->buf + (va - base);
}

const char *mod_str(const struct load_info *li, unsigned long va)
{
	const char *s = mod_buf(li, va, 1);
	const char *end = (const char *)li->buf + li->total_size;

	if (!s)
		return NULL;
	return strnlen(s, end - s) < (size_t)(end - s) ? s : NULL;
}
