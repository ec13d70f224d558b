/*
 * The module list, an RCU user (seed 000 section 2.5, Figure 8).
 *
 * Readers, with no lock, under rcu_read_lock():
 *   - lsmod (query_modules());
 *   - the address-to-symbol lookup of backtraces, panics and profilers
 *     (symbols.c), from any context, NMI included;
 *   - the loader resolving a module's undefined symbols against the
 *     exports of modules already loaded (module_export_lookup());
 *   - finding a module to call into it (module_ctl_call()).
 * Writers (load, unload) hold module_mutex and use list_add_rcu() and
 * list_del_rcu().
 *
 * Unloading is Figure 8's free_module():
 *
 *	list_del_rcu(&mod->list);	  p->next = mod->next;  (unlink)
 *	synchronize_kernel();		  the one line Figure 8 adds
 *	module_mem_free(...);		  "And free the memory."
 *
 * Linux 2.4 unlinked the module and freed it at once, while another CPU
 * could still be walking the list through it or running its code: an
 * oops. The grace period between the two makes every reader that could
 * have found the module finish first. (The paper: "this doesn't plug all
 * module unload races" in 2.4, where callers also entered modules with
 * no reference at all. Here every entry into a module is either inside
 * a read-side critical section that found it on an RCU-protected pointer
 * (covered by the grace period) or holds a reference (try_module_get(),
 * which fails once unloading has begun, and keeps delete_module() at
 * -EBUSY while held), so the window is closed.)
 *
 * References: mod->refcnt counts try_module_get()s; MODULE_REF_DYING is
 * set, only from zero, by the unloader (one compare-and-swap), after
 * which no get succeeds. So "no references and none can be taken" is
 * decided atomically, without a lock readers would need.
 */
#include "internal.h"
#include <rculist.h>
#include <rcupdate.h>
#include <kmalloc.h>
#include <string.h>
#include <errno.h>
#include <time.h>
#include <nmi.h>
#include <sched.h>

DEFINE_MUTEX(module_mutex);
LIST_HEAD(modules);
static atomic_long_t nr_loads, nr_unloads, nr_refused;

/* Under module_mutex, or rcu_read_lock() (then use it only inside). */
struct module *find_module(const char *name)
{
	struct module *mod;

	list_for_each_entry_rcu(mod, &modules, list, lockdep_is_held(&module_mutex))
		if (!strcmp(mod->name, name))
			return mod;
	return NULL;
}

bool try_module_get(struct module *mod)
{
	if (!mod)
		return true;		/* built into the kernel: never goes */
	for (;;) {
		int v = atomic_read(&mod->refcnt);

		if (v & MODULE_REF_DYING)
			return false;
		if (atomic_cmpxchg(&mod->refcnt, v, v + 1) == v)
			return true;
	}
}

void module_put(struct module *mod)
{
	if (mod)
		atomic_dec(&mod->refcnt);
}

/*
 * A failed init: references taken through what the init published before
 * it failed (and unpublished) may still be held. Wait until the count is
 * zero and exchange it to DYING, as unload_module() does, so that no get
 * succeeds from then on and none is outstanding when the memory goes.
 * Sleeps; module_mutex not held.
 */
void module_wait_unreferenced(struct module *mod)
{
	while (atomic_cmpxchg(&mod->refcnt, 0, MODULE_REF_DYING) != 0)
		msleep(1);
}

/*
 * An export of a loaded module: a reader of the list. The loader calls it
 * with module_mutex held as well, so that the owner it finds cannot begin
 * unloading before the dependency (owner->nusers) is recorded, nor leave
 * COMING: a COMING owner is returned (its name is taken), and the caller
 * that would link against it refuses (reloc.c), since its init may still
 * fail and free it.
 */
unsigned long module_export_lookup(const char *name, struct module **owner)
{
	unsigned long addr = 0;
	struct module *mod;

	rcu_read_lock();
	list_for_each_entry_rcu(mod, &modules, list) {
		if (READ_ONCE(mod->state) == MODULE_STATE_GOING)
			continue;
		for (unsigned int i = 0; i < mod->nexports && !addr; i++)
			if (!strcmp(mod->exports[i].name, name)) {
				*owner = mod;
				addr = mod->exports[i].addr;
			}
		if (addr)
			break;
	}
	rcu_read_unlock();
	return addr;
}

void module_note_load(bool ok)
{
	atomic_long_inc(ok ? &nr_loads : &nr_refused);
}

/*
 * Take mod off the list and free it once no reader can hold it. Called
 * with module_mutex held; drops and retakes it around the grace period
 * so that other loads and unloads need not wait for it.
 */
void module_free(struct module *mod, u64 *gp_ns)
{
	unsigned long base = mod->base, size = mod->size;
	phys_addr_t pa = mod->pa;
	unsigned int order = mod->order;
	char *args = mod->args;
	u64 t0;

	list_del_rcu(&mod->list);
	mutex_unlock(&module_mutex);
	/*
	 * Seed 000 Figure 8: "Wait for all other cpus to go through a
	 * context switch", i.e. a grace period: every reader that found mod
	 * on the list (or a pointer into its code or data that its exit()
	 * has since unpublished) has left its read-side critical section.
	 */
	t0 = ktime_get_ns();
	synchronize_kernel();
	if (gp_ns)
		*gp_ns = ktime_get_ns() - t0;
	/* "And free the memory." Its dependencies too: lsmod's readers walk
	 * them, and the modules it used may be unloaded from now on. */
	kfree(args);
	mutex_lock(&module_mutex);
	module_drop_uses(mod);
	module_mem_free(base, size, pa, order);
}

int unload_module(const char *name, unsigned int flags, struct module_unload_times *t)
{
	struct module_unload_times times = { 0 };
	struct module *mod;
	u64 t0;

	if (flags)
		return -EINVAL;
	mutex_lock(&module_mutex);
	mod = find_module(name);
	if (!mod) {
		mutex_unlock(&module_mutex);
		return -ENOENT;
	}
	if (mod->state != MODULE_STATE_LIVE || mod->nusers || (mod->init && !mod->exit) ||
	    atomic_cmpxchg(&mod->refcnt, 0, MODULE_REF_DYING) != 0) {
		mutex_unlock(&module_mutex);
		return -EBUSY;		/* coming or going, used, permanent, or referenced */
	}
	mod->state = MODULE_STATE_GOING;
	mutex_unlock(&module_mutex);

	/* The module unpublishes what it registered; its code may still run
	 * on other CPUs until the grace period in module_free(). */
	t0 = ktime_get_ns();
	module_notify(mod, MODULE_STATE_GOING);
	if (mod->exit)
		mod->exit();
	nmi_handlers_release_range(mod->base, mod->size, mod->name);	/* a forgetful exit() */
	times.exit_ns = ktime_get_ns() - t0;

	mutex_lock(&module_mutex);
	module_free(mod, &times.gp_ns);
	mutex_unlock(&module_mutex);
	times.free_ns = ktime_get_ns() - t0 - times.exit_ns - times.gp_ns;
	atomic_long_inc(&nr_unloads);
	if (t)
		*t = times;
	return 0;
}

long module_ctl_call(const char *name, unsigned int cmd, unsigned long arg,
		     void __user *buf, size_t len)
{
	struct module *mod;
	long ret;

	rcu_read_lock();
	mod = find_module(name);
	if (!mod || mod->state != MODULE_STATE_LIVE || !try_module_get(mod)) {
		rcu_read_unlock();
		return -ENOENT;
	}
	rcu_read_unlock();
	/* The reference, not the read-side section, keeps it now: ctl may sleep. */
	ret = mod->ctl ? mod->ctl(cmd, arg, buf, len) : -ENOSYS;
	module_put(mod);
	return ret;
}

void module_get_stats(struct qs_module_stats *s)
{
	struct module *mod;

	s->loaded = 0;
	rcu_read_lock();
	list_for_each_entry_rcu(mod, &modules, list)
		s->loaded++;
	rcu_read_unlock();
	s->loads = atomic_long_read(&nr_loads);
	s->unloads = atomic_long_read(&nr_unloads);
	s->refused = atomic_long_read(&nr_refused);
	s->pages = module_pages_alive();
	s->va_pages = module_va_pages();
	s->nmi_handlers = nmi_handlers_registered();
	s->nmi_unregisters = nmi_unregister_count();
	s->nmi_gp_violations = nmi_gp_violations();
}
