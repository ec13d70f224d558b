/*
 * Linking a module: give every symbol a value, then patch every place a
 * relocation names (x86-64 psABI, section 4.4).
 *
 * Symbol values:
 *   defined in a loaded section   the section's final address + st_value
 *   SHN_ABS                       st_value
 *   undefined                     the kernel's export of that name
 *                                 (exports.c), else a loaded module's
 *                                 (list.c; the module then depends on
 *                                 it and cannot be unloaded first), else
 *                                 0 if the reference is weak, else the
 *                                 load is refused: -ENOENT
 *   __this_module                 the module's own struct module
 *
 * Relocation types (S the symbol's value, A the addend, P the address
 * patched). A module built with -mcmodel=kernel uses only these; every
 * result is checked to fit the field, and one that does not refuses the
 * load instead of truncating an address:
 *   R_X86_64_64     S + A       64 bits (pointers in data)
 *   R_X86_64_32     S + A       32 bits, zero-extended: only below 4 GiB,
 *                               so never a module or kernel address
 *   R_X86_64_32S    S + A       32 bits, sign-extended: the top 2 GiB
 *                               (movq $sym, %reg; mov sym(,%rax,8))
 *   R_X86_64_PC32   S + A - P   32 bits signed (sym(%rip), call, jmp)
 *   R_X86_64_PLT32  S + A - P   the same: everything is within +-2 GiB
 *                               (area.c), so no PLT is needed
 * Anything else is refused as unknown.
 */
#include "internal.h"
#include <string.h>
#include <kmalloc.h>
#include <errno.h>
#include <kasan.h>

/* mod uses target's exports: record it once (module_mutex held). */
static int add_use(struct module *mod, struct module *target)
{
	struct module_use *u;

	list_for_each_entry(u, &mod->uses, list)
		if (u->target == target)
			return 0;
	u = kmalloc(sizeof(*u));
	if (!u)
		return -ENOMEM;
	u->target = target;
	list_add(&u->list, &mod->uses);
	target->nusers++;
	return 0;
}

/* Forget mod's dependencies (module_mutex held). */
void module_drop_uses(struct module *mod)
{
	struct module_use *u, *n;

	list_for_each_entry_safe(u, n, &mod->uses, list) {
		u->target->nusers--;
		list_del(&u->list);
		kfree(u);
	}
}

static int resolve_undefined(struct load_info *li, const struct elf64_sym *sym,
			     unsigned long *value)
{
	const char *name = li->strtab + sym->name;
	struct module *owner;
	unsigned long addr;

	if (!strcmp(name, "__this_module")) {
		*value = (unsigned long)li->mod;
		return 0;
	}
	if ((addr = kernel_export_lookup(name))) {
		*value = addr;
		return 0;
	}
	if ((addr = module_export_lookup(name, &owner))) {
		/* Linux refuses the same: until its init returns 0 the owner
		 * may fail and be freed, and a user would then call freed code. */
		if (owner->state != MODULE_STATE_LIVE)
			return load_fail(li, -EBUSY, "%s is exported by %s, whose init has not "
					 "finished", name, owner->name);
		*value = addr;
		return add_use(li->mod, owner) ? load_fail(li, -ENOMEM, "out of memory") : 0;
	}
	if (ELF64_ST_BIND(sym->info) == STB_WEAK) {
		*value = 0;
		return 0;
	}
	return load_fail(li, -ENOENT, "unresolved symbol %s (exported by neither the kernel nor a "
			 "loaded module)", name);
}

/* Module_mutex held (module_export_lookup, add_use). */
int resolve_symbols(struct load_info *li, unsigned long *values)
{
	values[0] = 0;
	for (unsigned int k = 1; k < li->nsyms; k++) {
		const struct elf64_sym *sym = &li->syms[k];
		int err;

		if (sym->shndx == SHN_UNDEF) {
			if (!sym->name) {
				values[k] = 0;
				continue;
			}
			if ((err = resolve_undefined(li, sym, &values[k])))
				return err;
		} else if (sym->shndx == SHN_ABS) {
			values[k] = sym->value;
		} else {
			/* 0 if its section is not loaded: relocations against it are refused. */
			values[k] = li->sec_region[sym->shndx] ? sec_addr(li, sym->shndx) + sym->value : 0;
		}
	}
	return 0;
}

static int reloc_width(u32 type)
{
	switch (type) {
	case R_X86_64_NONE:	return 0;
	case R_X86_64_64:	return 8;
	case R_X86_64_32:
	case R_X86_64_32S:
	case R_X86_64_PC32:
	case R_X86_64_PLT32:	return 4;
	default:		return -1;
	}
}

static const char *reloc_name(u32 type)
{
	switch (type) {
	case R_X86_64_64:	return "R_X86_64_64";
	case R_X86_64_32:	return "R_X86_64_32";
	case R_X86_64_32S:	return "R_X86_64_32S";
	case R_X86_64_PC32:	return "R_X86_64_PC32";
	case R_X86_64_PLT32:	return "R_X86_64_PLT32";
	default:		return "R_X86_64_NONE";
	}
}

/* The value to store, if it fits the field: S + A (- P), exactly, in 128 bits. */
static bool reloc_value(u32 type, unsigned long S, s64 A, unsigned long P, u64 *out)
{
	__int128 v = (__int128)S + A;

	switch (type) {
	case R_X86_64_64:
		*out = (u64)v;
		return true;
	case R_X86_64_32:
		*out = (u64)v;
		return v >= 0 && v <= 0xffffffffLL;
	case R_X86_64_32S:
		*out = (u64)v;
		return v >= 0 && v < ((__int128)1 << 64) && (s64)(u64)v == (s32)(u64)v;
	case R_X86_64_PC32:
	case R_X86_64_PLT32:
		v -= P;
		*out = (u64)v;
		return v >= INT32_MIN && v <= INT32_MAX;
	}
	return false;
}

static int apply_one(struct load_info *li, unsigned int rs, unsigned int j,
		     const struct elf64_rela *r, const unsigned long *values)
{
	unsigned int t = li->sh[rs].info, symi = ELF64_R_SYM(r->info);
	u32 type = ELF64_R_TYPE(r->info);
	int width = reloc_width(type);
	const struct elf64_sym *sym;
	const char *sname;
	unsigned long P;
	u64 v;

	if (width < 0)
		return load_fail(li, -ENOEXEC, "relocation %u in %s: unknown type %u", j,
				 sec_name(li, rs), type);
	if (symi >= li->nsyms)
		return load_fail(li, -ENOEXEC, "relocation %u in %s: symbol %u out of range (%u "
				 "symbols)", j, sec_name(li, rs), symi, li->nsyms);
	if (r->offset > li->sh[t].size || width > li->sh[t].size - r->offset)
		return load_fail(li, -ENOEXEC, "relocation %u in %s: offset %#lx outside %s (%#lx "
				 "bytes)", j, sec_name(li, rs), (unsigned long)r->offset,
				 sec_name(li, t), (unsigned long)li->sh[t].size);
	if (!width)
		return 0;
	sym = &li->syms[symi];
	sname = sym->name ? li->strtab + sym->name :
		sym->shndx && sym->shndx < li->shnum ? sec_name(li, sym->shndx) : "(none)";
	if (sym->shndx && sym->shndx < SHN_LORESERVE && !li->sec_region[sym->shndx])
		return load_fail(li, -ENOEXEC, "relocation %u in %s: against %s, in section %s, "
				 "which is not loaded", j, sec_name(li, rs), sname,
				 sec_name(li, sym->shndx));
	P = sec_addr(li, t) + r->offset;
	if (!reloc_value(type, values[symi], r->addend, P, &v))
		return load_fail(li, -ENOEXEC, "relocation %u in %s: %s against %s overflows "
				 "(%#lx%+ld does not fit in 32 bits%s)", j, sec_name(li, rs),
				 reloc_name(type), sname, values[symi], (long)r->addend,
				 type == R_X86_64_PC32 || type == R_X86_64_PLT32 ?
				 " from the place patched" : "");
	memcpy(li->buf + li->region_base[li->sec_region[t]] + li->sec_off[t] + r->offset, &v,
	       width);
	return 0;
}

#ifdef CONFIG_KASAN
/* GCC's KASAN registers the module's globals (their redzones) from
 * .init_array, whose pointers are relocated now: run it before anything
 * reads them. */
static void run_ctors(struct load_info *li)
{
	for (unsigned int i = 1; i < li->shnum; i++)
		if (!strcmp(sec_name(li, i), ".init_array") && sec_addr(li, i)) {
			unsigned long a = sec_addr(li, i);

			kasan_run_ctors((void (**)(void))a, (void (**)(void))(a + li->sh[i].size));
		}
}
#endif

int apply_relocations(struct load_info *li, const unsigned long *values)
{
	for (unsigned int rs = 1; rs < li->shnum; rs++) {
		const struct elf64_shdr *s = &li->sh[rs];
		const struct elf64_rela *rel;
		unsigned int t = s->info;
		int err;

		if (s->type != SHT_RELA || !li->sec_region[t])
			continue;		/* relocations of debug info and the like */
		if (li->sh[t].type == SHT_NOBITS)
			return load_fail(li, -ENOEXEC, "relocations against %s, which has no contents",
					 sec_name(li, t));
		rel = (const void *)(li->image + s->offset);
		for (unsigned int j = 0; j < s->size / sizeof(*rel); j++)
			if ((err = apply_one(li, rs, j, &rel[j], values)))
				return err;
	}
#ifdef CONFIG_KASAN
	run_ctors(li);
#endif
	return 0;
}
