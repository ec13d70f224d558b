/*
 * load_module(): from a .ko image to a running module, in the order of
 * docs/modules.md's walk-through:
 *
 *   1. check the file (elf_check.c) and its .modinfo (params.c): nothing
 *      is allocated and nothing trusted before this passes;
 *   2. lay the sections out (layout.c), take pages and a virtual range
 *      and map them W^X (area.c);
 *   3. copy the sections in (through the direct map), resolve symbols
 *      against the exports only and apply the relocations (reloc.c);
 *   4. check and set the parameters (params.c), check the module's own
 *      exports, find its init/exit/ctl, build its symbol table;
 *   5. publish it: list_add_rcu() onto the module list, state COMING;
 *   6. run its init without module_mutex; on success it is LIVE, on
 *      failure it waits until no reference is held and takes the
 *      refcount to DYING (as an unload does), then it is unlinked and
 *      freed after a grace period (a reader may have seen it while it
 *      was COMING), and the load fails with init's error. No module can
 *      have linked against it meanwhile: the loader refuses to link
 *      against a COMING module (reloc.c).
 * Every failure before step 5 frees all it took; refusals are counted
 * (module_get_stats()) and said in `err` and on the console.
 */
#include "internal.h"
#include <rculist.h>
#include <kmalloc.h>
#include <string.h>
#include <errno.h>
#include <time.h>
#include <nmi.h>
#include <panic.h>

int load_fail(struct load_info *li, int err, const char *fmt, ...)
{
	va_list ap;

	if (li->err && li->errlen) {
		va_start(ap, fmt);
		vsnprintf(li->err, li->errlen, fmt, ap);
		va_end(ap);
	}
	return err;
}

/* Refusals on the console, at most a few a second (the fuzzer makes many). */
static void report_refusal(const struct load_info *li, int err)
{
	static unsigned long window, shown, hidden;
	unsigned long now = jiffies;

	if (now - window >= HZ) {
		if (hidden)
			printk("module: %lu more refusals not shown\n", hidden);
		window = now;
		shown = hidden = 0;
	}
	if (shown++ >= 5) {
		hidden++;
		return;
	}
	printk("module: %.31s refused (%d): %s\n", li->name ? li->name : "image", err, li->err);
}

static void copy_sections(struct load_info *li)
{
	for (unsigned int i = 1; i < li->shnum; i++) {
		enum mod_region r = li->sec_region[i];

		if (r != REGION_NONE && li->sh[i].type != SHT_NOBITS)
			memcpy(li->buf + li->region_base[r] + li->sec_off[i],
			       li->image + li->sh[i].offset, li->sh[i].size);
	}
}

/* The module's .exports: each entry names a string and an address inside it. */
static int check_exports(struct load_info *li)
{
	const struct kernel_symbol *e;
	struct module *owner;
	unsigned long n;

	if (!li->exports_idx)
		return 0;
	n = li->sh[li->exports_idx].size / sizeof(*e);
	e = mod_buf(li, sec_addr(li, li->exports_idx), li->sh[li->exports_idx].size);
	if (!e || li->sh[li->exports_idx].size % sizeof(*e))
		return load_fail(li, -ENOEXEC, ".exports is not an array of symbols");
	for (unsigned long i = 0; i < n; i++) {
		const char *name = mod_str(li, (unsigned long)e[i].name);

		if (!name || !mod_buf(li, e[i].addr, 1))
			return load_fail(li, -ENOEXEC, ".exports: entry %lu points outside the module", i);
		if (kernel_export_lookup(name) || module_export_lookup(name, &owner))
			return load_fail(li, -EEXIST, "exports %s, which %s already exports", name,
					 kernel_export_lookup(name) ? "the kernel" : owner->name);
	}
	li->mod->exports = (const void *)sec_addr(li, li->exports_idx);
	li->mod->nexports = n;
	return 0;
}

/* init_module, cleanup_module, module_ctl: global functions in the text. */
static unsigned long entry_point(const struct load_info *li, const unsigned long *values,
				 const char *name)
{
	for (unsigned int k = 1; k < li->nsyms; k++) {
		const struct elf64_sym *s = &li->syms[k];

		if (ELF64_ST_BIND(s->info) == STB_GLOBAL && ELF64_ST_TYPE(s->info) == STT_FUNC &&
		    s->shndx && s->shndx < li->shnum && li->sec_region[s->shndx] == REGION_TEXT &&
		    !strcmp(li->strtab + s->name, name))
			return values[k];
	}
	return 0;
}

static void fill_module(struct load_info *li)
{
	struct module *mod = li->mod;	/* in the read-write part, mapped RW */

	INIT_LIST_HEAD(&mod->uses);
	/* Bounded copies: strlcpy() would read each string to its end. The
	 * name fits (parse_modinfo() refused it otherwise); the others are
	 * cut to their fields. */
	strscpy(mod->name, li->name, sizeof(mod->name));
	mod->state = MODULE_STATE_COMING;
	atomic_set(&mod->refcnt, 0);
	mod->base = li->base;
	mod->size = li->total_size;
	mod->text = li->base + li->region_base[REGION_TEXT];
	mod->text_size = li->region_size[REGION_TEXT];
	mod->ro = li->base + li->region_base[REGION_RO];
	mod->ro_size = li->region_size[REGION_RO];
	mod->rw = li->base + li->region_base[REGION_RW];
	mod->rw_size = li->region_size[REGION_RW];
	mod->pa = li->pa;
	mod->order = li->order;
	strscpy(mod->description, li->description ? li->description : "", sizeof(mod->description));
	strscpy(mod->author, li->author ? li->author : "", sizeof(mod->author));
	strscpy(mod->license, li->license ? li->license : "", sizeof(mod->license));
}

/* Steps 2-4, module_mutex held. On failure the caller frees li's memory. */
static int link_module(struct load_info *li, const char *params)
{
	unsigned long *values;
	int err;

	if ((err = layout_sections(li)) || (err = module_mem_alloc(li)))
		return err;
	copy_sections(li);
	fill_module(li);
	values = kmalloc(li->nsyms * sizeof(*values));
	if (!values)
		return load_fail(li, -ENOMEM, "out of memory");
	err = resolve_symbols(li, values);
	if (!err)
		err = apply_relocations(li, values);
	if (!err)
		err = parse_params(li, params);
	if (!err)
		err = check_exports(li);
	if (!err) {
		li->mod->init = (void *)entry_point(li, values, "init_module");
		li->mod->exit = (void *)entry_point(li, values, "cleanup_module");
		li->mod->ctl = (void *)entry_point(li, values, "module_ctl");
		module_build_symtab(li, values);
	}
	kfree(values);
	return err;
}

/* Undo link_module() for a module that was never published. */
static void unlink_failed(struct load_info *li)
{
	if (!li->mod)
		return;
	module_drop_uses(li->mod);
	kfree(li->mod->args);
	module_mem_free(li->base, li->total_size, li->pa, li->order);
}

static int run_init(struct module *mod, struct load_info *li)
{
	int ret;

	module_notify(mod, MODULE_STATE_COMING);
	ret = mod->init ? mod->init() : 0;
	if (ret) {
		nmi_handlers_release_range(mod->base, mod->size, mod->name);	/* a sloppy init */
		module_notify(mod, MODULE_STATE_GOING);
	} else {
		/* Before the state says LIVE: until then no unload can begin
		 * (it wants LIVE), so GOING cannot overtake this, nor free mod
		 * under it. */
		module_notify(mod, MODULE_STATE_LIVE);
	}
	mutex_lock(&module_mutex);
	if (ret) {
		if (ret > 0)
			ret = -EINVAL;		/* init must return 0 or -errno */
		load_fail(li, ret, "%s's init failed with %d", mod->name, ret);
		mod->state = MODULE_STATE_GOING;
		mutex_unlock(&module_mutex);
		/* No module links against a COMING one (reloc.c), so only
		 * references can remain: wait them out, then no new one. */
		module_wait_unreferenced(mod);
		mutex_lock(&module_mutex);
		WARN_ON(mod->nusers);
		module_free(mod, NULL);		/* it was on the list: a grace period */
	} else {
		mod->state = MODULE_STATE_LIVE;
		printk("module: %s loaded at %#lx (%lu KiB)\n", mod->name, mod->base, mod->size >> 10);
	}
	mutex_unlock(&module_mutex);
	return ret;
}

int load_module(const void *image, size_t len, const char *params, char *err, size_t errlen)
{
	char local[QS_MODULE_ERRLEN];
	struct load_info li = { .image = image, .len = len, .err = err, .errlen = errlen };
	struct module *mod = NULL;
	int ret;

	if (!err || !errlen) {
		li.err = local;
		li.errlen = sizeof(local);
	}
	li.err[0] = 0;
	ret = elf_check(&li);
	if (!ret)
		ret = parse_modinfo(&li);
	if (ret)
		goto out;
	mutex_lock(&module_mutex);
	if (find_module(li.name)) {
		ret = load_fail(&li, -EEXIST, "a module named %s is already loaded", li.name);
	} else if ((ret = link_module(&li, params))) {
		unlink_failed(&li);
	} else {
		/* Step 5: publish. Readers may find it from here on. */
		mod = li.mod;
		list_add_tail_rcu(&mod->list, &modules);
	}
	mutex_unlock(&module_mutex);
	if (!ret)
		ret = run_init(mod, &li);
out:
	kfree(li.sec_region);
	kfree(li.sec_off);
	module_note_load(!ret);
	if (ret)
		report_refusal(&li, ret);
	return ret;
}
