/*
 * Attaching and detaching probes (include/probe.h). The handler pointer
 * is published with rcu_assign_pointer() (the struct probe filled in
 * before any site can call through it) and withdrawn under probe_mutex;
 * probe_detach() then waits for a Tasks RCU grace period, the only wait
 * that covers a task preempted inside the handler (docs/rcu/tasks.md).
 */
#include <probe.h>
#include <rcupdate_tasks.h>
#include <mutex.h>
#include <sched.h>
#include <errno.h>
#include <export.h>
#include <lockdep.h>

static DEFINE_MUTEX(probe_mutex);

int probe_attach(struct probe_site *site, struct probe *p)
{
	int err = 0;

	mutex_lock(&probe_mutex);
	if (rcu_dereference_protected(site->probe, lockdep_is_held(&probe_mutex)))
		err = -EBUSY;
	else
		rcu_assign_pointer(site->probe, p);
	mutex_unlock(&probe_mutex);
	return err;
}
EXPORT_SYMBOL(probe_attach);

void probe_detach(struct probe_site *site, struct probe *p)
{
	bool was = false;

	might_sleep();
	mutex_lock(&probe_mutex);
	if (rcu_dereference_protected(site->probe, lockdep_is_held(&probe_mutex)) == p) {
		RCU_INIT_POINTER(site->probe, NULL);
		was = true;
	}
	mutex_unlock(&probe_mutex);
	/* Every task that may have loaded p, or be inside p->handler (in
	 * module text, perhaps preempted there), has left it after this. */
	if (was)
		synchronize_rcu_tasks();
}
EXPORT_SYMBOL(probe_detach);
