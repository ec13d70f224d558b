/*
 * The module notifier chain (include/module.h): whoever registers is told
 * of every module COMING (linked and published, before its init runs),
 * LIVE (its init succeeded) and GOING (before its exit runs, or after its
 * init failed), with the struct module as data.
 *
 * Callbacks may sleep: a subsystem that keeps per-module state allocates
 * it, a tracer reads the module's symbols under a mutex. So the chain is
 * an SRCU notifier chain (include/notifier.h) of its own domain: a
 * callback asleep for a while holds up only unregistrations from this
 * chain, never the module list's grace periods. It is called outside
 * module_mutex, so that a callback may itself look modules up.
 *
 * A module may register a callback of its own (its text is in the chain
 * then); it must unregister in its exit, and the unregistration's
 * synchronize_srcu() is what lets the unload free that text: the unload's
 * RCU grace period would not wait for a caller asleep inside it.
 *
 * LIVE is told just before the module's state becomes LIVE: an unload
 * wants a LIVE module, so none can begin (and tell GOING, or free the
 * module) while the LIVE callbacks run. COMING, LIVE, GOING always come
 * in that order.
 *
 * The chain's domain needs a kthread, so it starts on first use (a
 * registration or a load), in process context, under its own mutex.
 */
#include "internal.h"
#include <notifier.h>
#include <export.h>
#include <errno.h>

static struct srcu_notifier_head module_notify_list;
static DEFINE_MUTEX(module_notify_init_mutex);
static bool module_notify_ready;

static struct srcu_notifier_head *module_notify_head(void)
{
	if (!smp_load_acquire(&module_notify_ready)) {
		mutex_lock(&module_notify_init_mutex);
		if (!module_notify_ready &&
		    srcu_init_notifier_head(&module_notify_list, "module_notify") == 0)
			smp_store_release(&module_notify_ready, true);
		mutex_unlock(&module_notify_init_mutex);
	}
	return module_notify_ready ? &module_notify_list : NULL;
}

int register_module_notifier(struct notifier_block *nb)
{
	struct srcu_notifier_head *nh = module_notify_head();

	return nh ? srcu_notifier_chain_register(nh, nb) : -ENOMEM;
}
EXPORT_SYMBOL(register_module_notifier);

int unregister_module_notifier(struct notifier_block *nb)
{
	struct srcu_notifier_head *nh = module_notify_head();

	return nh ? srcu_notifier_chain_unregister(nh, nb) : -ENOENT;
}
EXPORT_SYMBOL(unregister_module_notifier);

void module_notify(struct module *mod, enum module_state state)
{
	struct srcu_notifier_head *nh = module_notify_head();

	if (nh)
		srcu_notifier_call_chain(nh, state, mod);
}
