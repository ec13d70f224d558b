/*
 * SRCU notifier chains (include/notifier.h): a singly linked list in
 * priority order, changed under the chain's mutex and walked under its
 * SRCU domain, whose callbacks may sleep.
 *
 * Registration publishes a block with rcu_assign_pointer() (its fields set
 * before a caller can reach it). Unregistration unlinks it, then waits
 * for a grace period of the chain's domain before returning: a caller
 * that loaded the block (or is asleep inside its callback) holds a read
 * lock of that domain, so the wait covers it, and the block, its callback
 * and the module that holds them may go afterwards. The walk loads the
 * next pointer before the callback runs, as Linux's notifier_call_chain()
 * does, so a callback may unregister its own block from another thread.
 */
#include <notifier.h>
#include <sched.h>
#include <errno.h>
#include <export.h>
#include <lockdep.h>

int srcu_init_notifier_head(struct srcu_notifier_head *nh, const char *name)
{
	mutex_init(&nh->mutex, "srcu_notifier_mutex");
	RCU_INIT_POINTER(nh->head, NULL);
	return init_srcu_struct(&nh->srcu, name);
}
EXPORT_SYMBOL(srcu_init_notifier_head);

void srcu_cleanup_notifier_head(struct srcu_notifier_head *nh)
{
	cleanup_srcu_struct(&nh->srcu);
}
EXPORT_SYMBOL(srcu_cleanup_notifier_head);

#define nb_protected(nh, p)	rcu_dereference_protected(p, lockdep_is_held(&(nh)->mutex))

int srcu_notifier_chain_register(struct srcu_notifier_head *nh, struct notifier_block *nb)
{
	struct notifier_block __rcu **pp;
	struct notifier_block *cur;
	int err = 0;

	might_sleep();
	mutex_lock(&nh->mutex);
	for (pp = &nh->head; (cur = nb_protected(nh, *pp)) != NULL; pp = &cur->next) {
		if (cur == nb) {
			err = -EEXIST;
			goto out;
		}
		if (nb->priority > cur->priority)
			break;
	}
	RCU_INIT_POINTER(nb->next, cur);
	rcu_assign_pointer(*pp, nb);	/* nb's fields before a caller finds it */
out:
	mutex_unlock(&nh->mutex);
	return err;
}
EXPORT_SYMBOL(srcu_notifier_chain_register);

int srcu_notifier_chain_unregister(struct srcu_notifier_head *nh, struct notifier_block *nb)
{
	struct notifier_block __rcu **pp;
	struct notifier_block *cur;

	might_sleep();
	mutex_lock(&nh->mutex);
	for (pp = &nh->head; (cur = nb_protected(nh, *pp)) != NULL; pp = &cur->next) {
		if (cur == nb) {
			/* Callers inside nb may still follow nb->next: leave it. */
			rcu_assign_pointer(*pp, nb_protected(nh, nb->next));
			break;
		}
	}
	mutex_unlock(&nh->mutex);
	if (!cur)
		return -ENOENT;
	/* Every caller that could have found nb has left it. */
	synchronize_srcu(&nh->srcu);
	return 0;
}
EXPORT_SYMBOL(srcu_notifier_chain_unregister);

int srcu_notifier_call_chain(struct srcu_notifier_head *nh, unsigned long action, void *data)
{
	struct notifier_block *nb, *next;
	int ret = NOTIFY_DONE;
	int idx;

	might_sleep();
	idx = srcu_read_lock(&nh->srcu);
	for (nb = srcu_dereference(nh->head, &nh->srcu); nb; nb = next) {
		next = srcu_dereference(nb->next, &nh->srcu);
		ret = nb->notifier_call(nb, action, data);	/* may sleep */
		if (ret & NOTIFY_STOP_MASK)
			break;
	}
	srcu_read_unlock(&nh->srcu, idx);
	return ret & ~NOTIFY_STOP_MASK;
}
EXPORT_SYMBOL(srcu_notifier_call_chain);
