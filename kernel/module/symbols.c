/*
 * A module's own symbols, so that a backtrace or a profile through a
 * module names the function and the module: "hello_spin+0x1c/0x60 [hello]"
 * (kernel/core/ksyms.c asks here when the kernel's table has no answer).
 *
 * At load, the module's functions (STT_FUNC, and untyped labels in its
 * text) are copied from its ELF symbol table into a compact table sorted
 * by address, with their names, in the module's read-only part: they go
 * when the module goes.
 *
 * The lookup is one of the module list's readers (seed 000 section 2.5):
 * it walks the list under rcu_read_lock() with no lock, from any context
 * (a panic, an NMI backtrace, a profiler's histogram), and copies what it
 * found out before rcu_read_unlock(). An unload that races with it waits
 * in synchronize_kernel() (list.c) before the memory it reads is freed.
 */
#include "internal.h"
#include <ksyms.h>
#include <upcalls.h>
#include <rculist.h>
#include <string.h>

static bool keep(const struct load_info *li, const struct elf64_sym *s)
{
	int type = ELF64_ST_TYPE(s->info);

	if (!s->name || !li->strtab[s->name] || s->shndx == SHN_UNDEF || s->shndx >= SHN_LORESERVE)
		return false;
	if (li->sec_region[s->shndx] != REGION_TEXT)
		return false;
	return type == STT_FUNC || (type == STT_NOTYPE && li->strtab[s->name] != '.');
}

/* For layout.c: how many symbols, and how many bytes of names. */
void module_count_symbols(struct load_info *li)
{
	li->modsym_count = 0;
	li->modstr_size = 1;		/* offset 0: "" */
	for (unsigned int k = 1; k < li->nsyms; k++) {
		if (!keep(li, &li->syms[k]))
			continue;
		li->modsym_count++;
		li->modstr_size += strlen(li->strtab + li->syms[k].name) + 1;
	}
}

/* module_init() and friends name the same code twice: say the author's name. */
static bool entry_alias(const char *name)
{
	return !strcmp(name, "init_module") || !strcmp(name, "cleanup_module") ||
	       !strcmp(name, "module_ctl");
}

/* a before b? By address; at one address the aliases first, so that the
 * lookup (the last symbol at or below an address) finds the real name. */
static bool sym_before(const struct module_sym *a, const struct module_sym *b, const char *names)
{
	if (a->addr != b->addr)
		return a->addr < b->addr;
	return entry_alias(names + a->name_off) && !entry_alias(names + b->name_off);
}

/* Insertion sort: modules have tens of functions, and this runs once. */
static void sort_syms(struct module_sym *s, unsigned long n, const char *names)
{
	for (unsigned long i = 1; i < n; i++) {
		struct module_sym x = s[i];
		unsigned long j = i;

		for (; j > 0 && sym_before(&x, &s[j - 1], names); j--)
			s[j] = s[j - 1];
		s[j] = x;
	}
}

/* Relocation done: write the table and the names into the read-only part. */
void module_build_symtab(struct load_info *li, const unsigned long *values)
{
	unsigned long ro = li->region_base[REGION_RO];
	struct module_sym *out = (void *)(li->buf + ro + li->modsym_off);
	char *names = (char *)li->buf + ro + li->modstr_off;
	unsigned long n = 0, pos = 1;

	names[0] = 0;
	for (unsigned int k = 1; k < li->nsyms; k++) {
		const struct elf64_sym *s = &li->syms[k];
		size_t len;

		if (!keep(li, s))
			continue;
		len = strlen(li->strtab + s->name) + 1;
		memcpy(names + pos, li->strtab + s->name, len);
		out[n++] = (struct module_sym){ values[k], s->size, pos };
		pos += len;
	}
	sort_syms(out, n, names);
	/* Untyped labels have no size: up to the next symbol or the text's end. */
	for (unsigned long i = 0; i < n; i++)
		if (!out[i].size)
			out[i].size = (i + 1 < n ? out[i + 1].addr :
				       li->base + li->region_size[REGION_TEXT]) - out[i].addr;
	li->mod->syms = (void *)(li->base + ro + li->modsym_off);
	li->mod->nsyms = n;
	li->mod->strtab = (void *)(li->base + ro + li->modstr_off);
}

static const struct module_sym *mod_find_sym(const struct module *mod, unsigned long addr)
{
	unsigned long lo = 0, hi = mod->nsyms;

	if (!hi || addr < mod->syms[0].addr)
		return NULL;
	while (hi - lo > 1) {
		unsigned long mid = (lo + hi) / 2;

		if (mod->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return addr < mod->syms[lo].addr + mod->syms[lo].size ? &mod->syms[lo] : NULL;
}

bool module_address_lookup(unsigned long addr, struct ksym_info *info)
{
	const struct module_sym *sym = NULL;
	struct module *mod;

	if (addr < MODULE_AREA_START || addr >= MODULE_AREA_END)
		return false;
	rcu_read_lock();
	list_for_each_entry_rcu(mod, &modules, list) {
		if (addr - mod->text >= mod->text_size)
			continue;
		sym = mod_find_sym(mod, addr);
		if (sym) {
			info->start = sym->addr;
			info->size = sym->size;
			info->offset = addr - sym->addr;
			strlcpy(info->name, mod->strtab + sym->name_off, sizeof(info->name));
			strlcpy(info->module, mod->name, sizeof(info->module));
		}
		break;
	}
	rcu_read_unlock();
	return sym;
}

bool module_text_address(unsigned long addr)
{
	struct ksym_info info;

	return module_address_lookup(addr, &info);
}

/* The address of function `sym` in loaded module `modname`, or 0 (tests, gdb). */
unsigned long module_symbol_address(const char *modname, const char *sym)
{
	unsigned long addr = 0;
	struct module *mod;

	rcu_read_lock();
	mod = find_module(modname);
	for (unsigned int i = 0; mod && i < mod->nsyms && !addr; i++)
		if (!strcmp(mod->strtab + mod->syms[i].name_off, sym))
			addr = mod->syms[i].addr;
	rcu_read_unlock();
	return addr;
}
