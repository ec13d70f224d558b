/*
 * Notifier chains read under SRCU (kernel/lib/notifier.c; Linux's
 * srcu_notifier_head, in our own smaller code): a list of callbacks that
 * one subsystem calls when something happens to it, and that others
 * register on. The callbacks may sleep (allocate, wait for I/O, take a
 * mutex), so the chain cannot be walked under rcu_read_lock(); a
 * reader-writer lock would make every caller wait for a registration.
 * SRCU lets callers walk it concurrently and sleep inside, and gives the
 * chain a domain of its own: a callback that sleeps for long holds up only
 * this chain's unregistrations, nobody's call_rcu().
 *
 *	static int my_cb(struct notifier_block *nb, unsigned long action, void *data);
 *	static struct notifier_block my_nb = { .notifier_call = my_cb };
 *	srcu_notifier_chain_register(&some_chain, &my_nb);
 *	...
 *	srcu_notifier_chain_unregister(&some_chain, &my_nb);
 *	(no caller is inside my_cb now: the block and my_cb's module may go)
 *
 * Users: the module notifier chain (register_module_notifier(),
 * include/module.h), told of every module coming, live and going.
 */
#ifndef _NOTIFIER_H
#define _NOTIFIER_H

#include <compiler.h>
#include <mutex.h>
#include <srcu.h>

#define NOTIFY_DONE		0x0000	/* not interested */
#define NOTIFY_OK		0x0001	/* handled */
#define NOTIFY_STOP_MASK	0x8000	/* no later callback is called */
#define NOTIFY_STOP		(NOTIFY_OK | NOTIFY_STOP_MASK)

struct notifier_block {
	int (*notifier_call)(struct notifier_block *nb, unsigned long action, void *data);
	struct notifier_block __rcu *next;	/* SRCU readers; the chain's mutex */
	int priority;				/* higher is called first */
};

struct srcu_notifier_head {
	struct mutex mutex;			/* registrations */
	struct srcu_struct srcu;		/* the chain's own domain */
	struct notifier_block __rcu *head;
};

/* Process context. 0, or -ENOMEM. */
int srcu_init_notifier_head(struct srcu_notifier_head *nh, const char *name);
void srcu_cleanup_notifier_head(struct srcu_notifier_head *nh);
/* Process context; -EEXIST if nb is already on the chain. */
int srcu_notifier_chain_register(struct srcu_notifier_head *nh, struct notifier_block *nb);
/* Process context. Waits for every caller that may still be inside
 * nb->notifier_call: afterwards nb may be freed. -ENOENT if not on it. */
int srcu_notifier_chain_unregister(struct srcu_notifier_head *nh, struct notifier_block *nb);
/* Process context (the callbacks may sleep). The last callback's answer
 * without NOTIFY_STOP_MASK, or NOTIFY_DONE if none was called. */
int srcu_notifier_call_chain(struct srcu_notifier_head *nh, unsigned long action, void *data);

#endif
