/*
 * kernel/module internals: what the loader's steps share.
 *
 *   elf_check.c   validate the file (nothing in it is trusted before)
 *   layout.c      place the sections: text | read-only | read-write
 *   area.c        the module area: virtual ranges, pages, W^X mappings
 *   reloc.c       resolve symbols (exports only) and apply relocations
 *   params.c      .modinfo and the parameters
 *   loader.c      load_module(): the steps in order
 *   list.c        the RCU-protected module list, references, unloading
 *   symbols.c     address -> "func+off [module]" for backtraces
 *   syscalls.c    init_module, delete_module, query_modules, module_ctl, ...
 *   exports.c     the kernel's exported symbols
 *   nmi_handler.c the NMI handler chain (seed 001)
 *   notifier.c    the module notifier chain (SRCU: callbacks may sleep)
 */
#ifndef _KERNEL_MODULE_INTERNAL_H
#define _KERNEL_MODULE_INTERNAL_H

#include <module.h>
#include <mutex.h>
#include <printk.h>
#include <arch/layout.h>
#include "elf.h"

/* Tell the module notifier chain (notifier.c); outside module_mutex. */
void module_notify(struct module *mod, enum module_state state);

/* Limits on what a module may be: anything beyond is refused. */
#define MOD_MAX_SECTIONS	256
#define MOD_MAX_SYMBOLS		8192
#define MOD_MAX_SIZE		(4UL << 20)	/* bytes of memory, all parts */

enum mod_region { REGION_NONE, REGION_TEXT, REGION_RO, REGION_RW, NR_REGIONS };

/* Everything the loader learns about one image on its way in. */
struct load_info {
	const u8 *image;
	size_t len;
	char *err;
	size_t errlen;

	const struct elf64_ehdr *eh;
	const struct elf64_shdr *sh;
	unsigned int shnum;
	const char *secstrings;
	unsigned int symtab_idx;
	const struct elf64_sym *syms;
	unsigned int nsyms;
	const char *strtab;
	size_t strtab_size;

	/* .modinfo (pointers into the image, NUL-terminated, checked). */
	const char *name, *vermagic, *license, *description, *author;
	/* Special sections, 0 if absent. */
	unsigned int modinfo_idx, params_idx, exports_idx;

	/* Layout (layout.c): per section, its region and offset in it. */
	u8 *sec_region;			/* enum mod_region */
	unsigned long *sec_off;
	unsigned long region_size[NR_REGIONS];	/* page-rounded */
	unsigned long region_base[NR_REGIONS];	/* offset of the region in the block */
	unsigned long total_size;
	unsigned long modsym_off, modsym_count, modstr_off, modstr_size;	/* RO: our symtab */
	unsigned long mod_off;		/* RW: struct module */

	/* Memory (area.c). */
	unsigned long base;		/* the module's virtual range */
	phys_addr_t pa;			/* its physical block, 2^order pages */
	unsigned int order;
	u8 *buf;			/* the block through the direct map (writes) */
	struct module *mod;		/* at its final address (in the RW part) */
};

/* mod uses target's exports (reloc.c): one in mod->uses per target. */
struct module_use {
	struct list_head list;
	struct module *target;
};

extern struct mutex module_mutex;
extern struct list_head modules;

/* Say why in li->err; returns err. */
__printf(3, 4) int load_fail(struct load_info *li, int err, const char *fmt, ...);

/* elf_check.c */
int elf_check(struct load_info *li);
const char *sec_name(const struct load_info *li, unsigned int i);

/* layout.c */
int layout_sections(struct load_info *li);
unsigned long sec_addr(const struct load_info *li, unsigned int i);
/* The block's bytes for [va, va + n), if all inside the module; else NULL. */
void *mod_buf(const struct load_info *li, unsigned long va, size_t n);
/* A NUL-terminated string wholly inside the module at va, or NULL. */
const char *mod_str(const struct load_info *li, unsigned long va);

/* area.c */
/* Pages, a virtual range and its W^X mappings for li's layout. */
int module_mem_alloc(struct load_info *li);
/* Poison, unmap (every CPU's TLB), free. No reader may still use it. */
void module_mem_free(unsigned long base, unsigned long size, phys_addr_t pa, unsigned int order);
unsigned long module_pages_alive(void);
unsigned long module_va_pages(void);

/* reloc.c */
int resolve_symbols(struct load_info *li, unsigned long *values);
int apply_relocations(struct load_info *li, const unsigned long *values);
void module_drop_uses(struct module *mod);

/* params.c */
int parse_modinfo(struct load_info *li);
int parse_params(struct load_info *li, const char *params);
const struct module_param *module_params(const struct load_info *li, unsigned int *n);

/* list.c */
struct module *find_module(const char *name);	/* module_mutex or rcu_read_lock() */
unsigned long module_export_lookup(const char *name, struct module **owner);
void module_note_load(bool ok);
/* Refcount 0 -> DYING, sleeping while references are held (no module_mutex). */
void module_wait_unreferenced(struct module *mod);
/* list_del_rcu(), synchronize_kernel(), free (module_mutex held; dropped meanwhile). */
void module_free(struct module *mod, u64 *gp_ns);

/* symbols.c: the module's own symbol table, for backtraces */
void module_count_symbols(struct load_info *li);
void module_build_symtab(struct load_info *li, const unsigned long *values);

#endif
