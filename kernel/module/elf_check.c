/*
 * Checking a module file before anything in it is used. The image comes
 * from user space (init_module()) and may be truncated, corrupted or
 * hostile: every header field, offset, size, index and string offset
 * that a later step will follow is checked here against the file's
 * length and the tables it points into, so that layout.c, reloc.c and
 * params.c can index without checking again. A bad file is refused with
 * a sentence (load_fail()) and -ENOEXEC; nothing has been allocated yet.
 *
 * What a module must be (the System V gABI, x86-64 psABI):
 *   - ELF64, little-endian, ET_REL (a relocatable object, `ld -r`),
 *     EM_X86_64, with 64-byte headers;
 *   - one symbol table, its string table, RELA relocation sections;
 *   - no SHT_REL (x86-64 uses RELA), no thread-local storage, no COMMON
 *     symbols (-fno-common), no section both writable and executable,
 *     and none of the kernel image's own special sections (.percpu,
 *     __ex_table, ...), which would mean nothing in a module.
 */
#include "internal.h"
#include <string.h>
#include <errno.h>

/* Sections the kernel image gathers at link time: in a module nobody
 * would read them, so a module that has one was built wrongly. */
static const char *const kernel_only_sections[] = {
	".percpu", ".percpu.first", "__ex_table", ".ktests", ".cmdline_params",
	".syscalls", ".ksymtab", ".multiboot", ".boot.text",
#ifndef CONFIG_KASAN
	/* With KASAN every module has them: GCC registers its globals from a
	 * constructor, which the loader runs (loader.c); the destructor that
	 * unregisters them is never called (the module's shadow goes with it). */
	".init_array", ".fini_array",
#endif
	".ctors", ".dtors",
};

/* KASAN's constructor arrays are loaded as data (the list above). */
#ifdef CONFIG_KASAN
#define CTOR_TYPE(t)	((t) == SHT_INIT_ARRAY || (t) == SHT_FINI_ARRAY)
#else
#define CTOR_TYPE(t)	false
#endif

static bool in_file(const struct load_info *li, u64 off, u64 size)
{
	return off <= li->len && size <= li->len - off;
}

const char *sec_name(const struct load_info *li, unsigned int i)
{
	return li->secstrings + li->sh[i].name;
}

static int check_header(struct load_info *li)
{
	const struct elf64_ehdr *eh = (const void *)li->image;

	if (li->len < sizeof(*eh))
		return load_fail(li, -ENOEXEC, "truncated: %zu bytes, less than an ELF header (64)",
				 li->len);
	if (memcmp(eh->ident, "\177ELF", 4))
		return load_fail(li, -ENOEXEC, "not an ELF file (bad magic)");
	if (eh->ident[EI_CLASS] != ELFCLASS64 || eh->ident[EI_DATA] != ELFDATA2LSB ||
	    eh->ident[EI_VERSION] != EV_CURRENT || eh->version != EV_CURRENT)
		return load_fail(li, -ENOEXEC, "not a little-endian ELF64 version 1 file");
	if (eh->type != ET_REL)
		return load_fail(li, -ENOEXEC, "ELF type %u: a module is a relocatable object (ET_REL)",
				 eh->type);
	if (eh->machine != EM_X86_64)
		return load_fail(li, -ENOEXEC, "machine %u: this kernel runs x86-64 code (EM_X86_64, 62)",
				 eh->machine);
	if (eh->ehsize != sizeof(*eh) || eh->shentsize != sizeof(struct elf64_shdr))
		return load_fail(li, -ENOEXEC, "header sizes %u/%u, not ELF64's 64/64",
				 eh->ehsize, eh->shentsize);
	if (eh->shnum == 0 || eh->shnum > MOD_MAX_SECTIONS)
		return load_fail(li, -ENOEXEC, "%u sections (1 to %u allowed)", eh->shnum,
				 MOD_MAX_SECTIONS);
	if (eh->shoff % 8 || !in_file(li, eh->shoff, (u64)eh->shnum * sizeof(struct elf64_shdr)))
		return load_fail(li, -ENOEXEC, "section headers at %#lx (%u of them) lie outside the "
				 "%zu-byte file", (unsigned long)eh->shoff, eh->shnum, li->len);
	if (eh->shstrndx == 0 || eh->shstrndx >= eh->shnum)
		return load_fail(li, -ENOEXEC, "section-name table index %u out of range", eh->shstrndx);
	li->eh = eh;
	li->sh = (const void *)(li->image + eh->shoff);
	li->shnum = eh->shnum;
	return 0;
}

static int check_section(struct load_info *li, unsigned int i)
{
	const struct elf64_shdr *s = &li->sh[i];

	if (s->type != SHT_NOBITS && s->type != SHT_NULL && !in_file(li, s->offset, s->size))
		return load_fail(li, -ENOEXEC, "section %u: offset %#lx size %#lx lie outside the "
				 "%zu-byte file", i, (unsigned long)s->offset,
				 (unsigned long)s->size, li->len);
	if (s->addralign & (s->addralign - 1))
		return load_fail(li, -ENOEXEC, "section %u: alignment %lu is not a power of two", i,
				 (unsigned long)s->addralign);
	if (s->type == SHT_REL)
		return load_fail(li, -ENOEXEC, "section %u: SHT_REL relocations (x86-64 uses SHT_RELA)",
				 i);
	if (!(s->flags & SHF_ALLOC) || s->type == SHT_NOTE)
		return 0;		/* not loaded (notes: build properties) */
	if (s->type != SHT_PROGBITS && s->type != SHT_NOBITS && !CTOR_TYPE(s->type))
		return load_fail(li, -ENOEXEC, "section %u: type %u cannot be loaded", i, s->type);
	if (s->addralign > PAGE_SIZE || s->size > MOD_MAX_SIZE)
		return load_fail(li, -ENOEXEC, "section %u: alignment %lu or size %#lx too large", i,
				 (unsigned long)s->addralign, (unsigned long)s->size);
	if ((s->flags & SHF_WRITE) && (s->flags & SHF_EXECINSTR))
		return load_fail(li, -ENOEXEC, "section %u is writable and executable (W^X)", i);
	if (s->flags & SHF_TLS)
		return load_fail(li, -ENOEXEC, "section %u: thread-local storage is not supported", i);
	return 0;
}

static int check_names(struct load_info *li)
{
	const struct elf64_shdr *ss = &li->sh[li->eh->shstrndx];

	if (ss->type != SHT_STRTAB || ss->size == 0 || li->image[ss->offset + ss->size - 1])
		return load_fail(li, -ENOEXEC, "the section-name table is not a NUL-terminated "
				 "string table");
	li->secstrings = (const char *)li->image + ss->offset;
	for (unsigned int i = 0; i < li->shnum; i++) {
		if (li->sh[i].name >= ss->size)
			return load_fail(li, -ENOEXEC, "section %u: name offset %u outside the name table",
					 i, li->sh[i].name);
		if (!strcmp(sec_name(li, i), ".modinfo") && li->sh[i].type == SHT_PROGBITS) {
			li->modinfo_idx = i;	/* read from the file, never loaded */
			continue;
		}
		if (!(li->sh[i].flags & SHF_ALLOC) || li->sh[i].size == 0)
			continue;
		for (unsigned int k = 0; k < ARRAY_SIZE(kernel_only_sections); k++)
			if (!strcmp(sec_name(li, i), kernel_only_sections[k]))
				return load_fail(li, -ENOEXEC, "section %s only means something in the "
						 "kernel image", sec_name(li, i));
		if (!strcmp(sec_name(li, i), ".modparams"))
			li->params_idx = i;
		else if (!strcmp(sec_name(li, i), ".exports"))
			li->exports_idx = i;
	}
	return 0;
}

static int check_symbol(struct load_info *li, unsigned int k)
{
	const struct elf64_sym *sym = &li->syms[k];
	const char *name;

	if (sym->name >= li->strtab_size)
		return load_fail(li, -ENOEXEC, "symbol %u: name offset %u outside the string table",
				 k, sym->name);
	name = li->strtab + sym->name;
	if (sym->shndx == SHN_COMMON)
		return load_fail(li, -ENOEXEC, "symbol %s is COMMON (build modules with -fno-common)",
				 name);
	if (sym->shndx == SHN_UNDEF || sym->shndx == SHN_ABS)
		return 0;
	if (sym->shndx >= SHN_LORESERVE)
		return load_fail(li, -ENOEXEC, "symbol %s: reserved section index %#x", name,
				 sym->shndx);
	if (sym->shndx >= li->shnum)
		return load_fail(li, -ENOEXEC, "symbol %s: section index %u out of range (%u sections)",
				 name, sym->shndx, li->shnum);
	if ((li->sh[sym->shndx].flags & SHF_ALLOC) &&
	    (sym->value > li->sh[sym->shndx].size ||
	     sym->size > li->sh[sym->shndx].size - sym->value))
		return load_fail(li, -ENOEXEC, "symbol %s at %#lx+%#lx lies outside its section %s",
				 name, (unsigned long)sym->value, (unsigned long)sym->size,
				 sec_name(li, sym->shndx));
	return 0;
}

static int check_symtab(struct load_info *li)
{
	const struct elf64_shdr *st = NULL, *str;
	int err;

	for (unsigned int i = 1; i < li->shnum; i++) {
		if (li->sh[i].type != SHT_SYMTAB)
			continue;
		if (st)
			return load_fail(li, -ENOEXEC, "two symbol tables");
		st = &li->sh[i];
		li->symtab_idx = i;
	}
	if (!st)
		return load_fail(li, -ENOEXEC, "no symbol table (was it stripped?)");
	if (st->entsize != sizeof(struct elf64_sym) || st->size % sizeof(struct elf64_sym) ||
	    st->offset % 8 || st->size == 0 || st->size / sizeof(struct elf64_sym) > MOD_MAX_SYMBOLS)
		return load_fail(li, -ENOEXEC, "symbol table: entry size %lu, size %#lx",
				 (unsigned long)st->entsize, (unsigned long)st->size);
	if (st->link == 0 || st->link >= li->shnum)
		return load_fail(li, -ENOEXEC, "symbol table: string table index %u out of range",
				 st->link);
	str = &li->sh[st->link];
	if (str->type != SHT_STRTAB || str->size == 0 || li->image[str->offset + str->size - 1])
		return load_fail(li, -ENOEXEC, "symbol table: section %u is not a NUL-terminated "
				 "string table", st->link);
	li->syms = (const void *)(li->image + st->offset);
	li->nsyms = st->size / sizeof(struct elf64_sym);
	li->strtab = (const char *)li->image + str->offset;
	li->strtab_size = str->size;
	/* ELF: entry 0 is the null symbol, all zero. A relocation may still
	 * name it (the later steps treat it as undefined and unnamed), so a
	 * file that gives it a name or a section is refused here, before
	 * either is used. */
	if (li->syms[0].name || li->syms[0].shndx || li->syms[0].info || li->syms[0].value ||
	    li->syms[0].size)
		return load_fail(li, -ENOEXEC, "symbol 0 is not the null symbol (name offset %#x, "
				 "section index %u)", li->syms[0].name, li->syms[0].shndx);
	for (unsigned int k = 1; k < li->nsyms; k++)
		if ((err = check_symbol(li, k)))
			return err;
	return 0;
}

static int check_relocations(struct load_info *li)
{
	for (unsigned int i = 1; i < li->shnum; i++) {
		const struct elf64_shdr *s = &li->sh[i];

		if (s->type != SHT_RELA)
			continue;
		if (s->entsize != sizeof(struct elf64_rela) || s->size % sizeof(struct elf64_rela) ||
		    s->offset % 8)
			return load_fail(li, -ENOEXEC, "relocation section %s: entry size %lu, size %#lx",
					 sec_name(li, i), (unsigned long)s->entsize,
					 (unsigned long)s->size);
		if (s->link != li->symtab_idx)
			return load_fail(li, -ENOEXEC, "relocation section %s uses section %u as its "
					 "symbol table", sec_name(li, i), s->link);
		if (s->info == 0 || s->info >= li->shnum)
			return load_fail(li, -ENOEXEC, "relocation section %s applies to section %u, "
					 "out of range", sec_name(li, i), s->info);
	}
	return 0;
}

int elf_check(struct load_info *li)
{
	int err;

	if ((err = check_header(li)))
		return err;
	for (unsigned int i = 1; i < li->shnum; i++)
		if ((err = check_section(li, i)))
			return err;
	if ((err = check_names(li)) || (err = check_symtab(li)) || (err = check_relocations(li)))
		return err;
	if (!li->modinfo_idx)
		return load_fail(li, -ENOEXEC, "no .modinfo section (not built as a module?)");
	return 0;
}
