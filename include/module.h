/*
 * Loadable kernel modules (kernel/module/, docs/modules.md).
 *
 * For a module's author (a file in modules/, built with -DMODULE):
 *
 *	static int count = 1;
 *	module_param(count, int, "how many greetings");
 *	static int hello_init(void) { printk("hello\n"); return 0; }
 *	static void hello_exit(void) { printk("bye\n"); }
 *	module_init(hello_init);
 *	module_exit(hello_exit);
 *	MODULE_DESCRIPTION("says hello");
 *	MODULE_LICENSE("GPL");
 *
 * A module links only against the kernel's exported symbols
 * (include/export.h) and those of modules loaded before it.
 *
 * For the kernel: the module list is read under rcu_read_lock() and
 * changed under module_mutex with list_add_rcu()/list_del_rcu(); an
 * unloaded module's memory is freed only after synchronize_kernel()
 * (seed 000 section 2.5, Figure 8). Code that calls into a module from
 * outside a read-side critical section holds a reference:
 *
 *	rcu_read_lock(); ops = rcu_dereference(hook);
 *	if (ops && try_module_get(ops->owner)) { rcu_read_unlock(); ops->fn(); module_put(ops->owner); }
 */
#ifndef _MODULE_H
#define _MODULE_H

#include <types.h>
#include <list.h>
#include <atomic.h>
#include <export.h>
#include <uaccess.h>
#include <uapi/module.h>
/*
 * Only a module expands QS_VERMAGIC here (module_init()); the kernel's
 * one reader, kernel/module/params.c, includes it itself. A header from
 * the build directory would put that directory's name into every file
 * that includes this one, and ccache could not share their objects
 * between configurations (Makefile, AUTOCONF_RSP).
 */
#ifdef MODULE
#include <generated/vermagic.h>
#endif

enum module_state {
	MODULE_STATE_COMING = QS_MODULE_COMING,
	MODULE_STATE_LIVE = QS_MODULE_LIVE,
	MODULE_STATE_GOING = QS_MODULE_GOING,
};

/* A module's own symbol, for backtraces ("func+0x12/0x40 [hello]"). */
struct module_sym {
	unsigned long addr, size;
	unsigned int name_off;		/* in the module's strtab */
};

typedef long (*module_ctl_t)(unsigned int cmd, unsigned long arg, void __user *buf, size_t len);

/*
 * A loaded module. It lives in the module's own memory (the start of its
 * read-write part, kernel/module/area.c), so that it goes with the rest
 * when the module is freed: a reader still holding it after that would
 * fault, which is what seed 000's Figure 8 prevents.
 */
struct module {
	struct list_head list;		/* modules (RCU readers; module_mutex) */
	char name[QS_MODULE_NAME_LEN];
	int state;			/* enum module_state */
	atomic_t refcnt;		/* try_module_get() references, MODULE_REF_DYING */
	/* The memory: one virtual range, text RX | read-only R | data RW. */
	unsigned long base, size;
	unsigned long text, text_size;
	unsigned long ro, ro_size;
	unsigned long rw, rw_size;
	phys_addr_t pa;			/* one physically contiguous block */
	unsigned int order;		/* of 2^order pages */
	/* Entry points: the init_module, cleanup_module and module_ctl aliases. */
	int (*init)(void);
	void (*exit)(void);
	module_ctl_t ctl;
	/* Symbols: its own (sorted by address) and its exports. */
	const struct module_sym *syms;
	unsigned int nsyms;
	const char *strtab;
	const struct kernel_symbol *exports;
	unsigned int nexports;
	/* Dependencies (module_mutex): modules whose exports it uses. */
	struct list_head uses;
	int nusers;			/* modules that use this one */
	unsigned int nparams;
	char *args;			/* kmalloc'd copy of the parameters (charp values) */
	char description[80];
	char author[48];
	char license[24];
};

#define MODULE_REF_DYING	(1 << 30)	/* set once unloading began: gets fail */

/* References (kernel/module/list.c). try_module_get() of a module found
 * under rcu_read_lock() is what lets the caller leave the section. */
bool try_module_get(struct module *mod);
void module_put(struct module *mod);

/* ---- For the kernel (kernel/module/). */

/* Load: 0, or a negative errno and a sentence in err. */
int load_module(const void *image, size_t len, const char *params, char *err, size_t errlen);
/* Unload by name: 0, -ENOENT, -EBUSY (referenced or used by another module). */
struct module_unload_times {
	u64 exit_ns;			/* the module's exit() */
	u64 gp_ns;			/* synchronize_kernel() after list_del_rcu() */
	u64 free_ns;			/* poison, unmap, TLB shootdown, free */
};
int unload_module(const char *name, unsigned int flags, struct module_unload_times *t);
/* Call the module's ctl() holding a reference; -ENOENT, -ENOSYS if it has none. */
long module_ctl_call(const char *name, unsigned int cmd, unsigned long arg,
		     void __user *buf, size_t len);
/* The address of function sym in the loaded module modname, or 0. */
unsigned long module_symbol_address(const char *modname, const char *sym);
void module_get_stats(struct qs_module_stats *s);

/*
 * The module notifier chain (kernel/module/notifier.c): nb->notifier_call(nb,
 * MODULE_STATE_COMING/LIVE/GOING, mod) for every module loaded or unloaded.
 * Callbacks may sleep (the chain is read under SRCU); a module that
 * registers one must unregister it in its exit. Process context.
 */
struct notifier_block;
int register_module_notifier(struct notifier_block *nb);
int unregister_module_notifier(struct notifier_block *nb);

/* ---- For modules. */

#define __MODULE_CAT2(a, b)	a##b
#define __MODULE_CAT(a, b)	__MODULE_CAT2(a, b)
#define __MODULE_UNIQUE(p)	__MODULE_CAT(p, __COUNTER__)

#ifdef MODULE
extern struct module __this_module;	/* resolved by the loader */
#define THIS_MODULE		(&__this_module)
#else
#define THIS_MODULE		((struct module *)0)
#endif

/* .modinfo: "tag=value" strings the loader reads from the file. */
#define MODULE_INFO(tag, info)							\
	static const char __MODULE_UNIQUE(__modinfo_)[]				\
	__section(".modinfo") __used __aligned(1) = #tag "=" info

#define MODULE_LICENSE(s)	MODULE_INFO(license, s)
#define MODULE_AUTHOR(s)	MODULE_INFO(author, s)
#define MODULE_DESCRIPTION(s)	MODULE_INFO(description, s)

/*
 * module_init(fn) names fn "init_module" (and stamps the module's name
 * and the kernel configuration it was built for into .modinfo),
 * module_exit(fn) "cleanup_module", module_ctl(fn) "module_ctl": the loader
 * looks these names up in the module's symbol table.
 */
#define module_init(fn)								\
	int init_module(void) __attribute__((alias(#fn)));			\
	static inline int (*__module_init_check(void))(void) { return fn; } \
	MODULE_INFO(name, MODULE_NAME);						\
	MODULE_INFO(vermagic, QS_VERMAGIC)
#define module_exit(fn)								\
	void cleanup_module(void) __attribute__((alias(#fn)));			\
	static inline void (*__module_exit_check(void))(void) { return fn; }
#define module_ctl(fn)								\
	long module_ctl(unsigned int, unsigned long, void __user *, size_t)	\
		__attribute__((alias(#fn)));					\
	static inline module_ctl_t __module_ctl_check(void) { return fn; }

/* Parameters: `insmod m.ko count=3 who=world loud` (bool: name alone = true). */
enum module_param_type {
	MODULE_PARAM_int = 1,
	MODULE_PARAM_uint,
	MODULE_PARAM_bool,
	MODULE_PARAM_charp,
};

struct module_param {
	const char *name;
	void *addr;
	u32 type;			/* enum module_param_type */
	u32 size;			/* sizeof the variable */
	const char *desc;
};

#define __module_param_ctype_int	int
#define __module_param_ctype_uint	unsigned int
#define __module_param_ctype_bool	bool
#define __module_param_ctype_charp	char *

#define module_param(var, type, desc_)						\
	_Static_assert(__builtin_types_compatible_p(__typeof__(var),		\
			__module_param_ctype_##type), #var " is not " #type);	\
	static const struct module_param __module_param_##var			\
	__section(".modparams") __used __aligned(8) =				\
		{ #var, &(var), MODULE_PARAM_##type, sizeof(var), desc_ }

#endif
