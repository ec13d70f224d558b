/*
 * Probes (kernel/trace/probe.c, docs/rcu/tasks.md): a probe site is a
 * point in kernel code where one handler, typically a module's, may be
 * attached, in the manner of Linux's ftrace and kprobe trampolines:
 *
 *	static struct probe_site my_site = PROBE_SITE_INIT("my_site");
 *	...
 *	probe_hit(&my_site, arg);		(in the probed code)
 *
 *	static struct probe my_probe = { .handler = my_handler };
 *	probe_attach(&my_site, &my_probe);	(a module's init)
 *	probe_detach(&my_site, &my_probe);	(its exit: waits)
 *
 * probe_hit() costs one load and a not-taken branch while nothing is
 * attached, and marks no read-side section: a probe may sit where
 * rcu_read_lock() cannot (the probed code may be RCU's own, or the
 * handler may run long with preemption on), and counting readers as SRCU
 * does would cost every hit two fences. So a task may be preempted inside
 * the handler, in module text, and stay switched out for a long time.
 *
 * Tasks RCU is what makes detaching safe (include/rcupdate_tasks.h):
 * probe_detach() unpublishes the probe, then synchronize_rcu_tasks()
 * waits until every task that was runnable has switched voluntarily, run
 * in user mode or blocked, none of which a task does inside a handler.
 * After it, the module's text and the struct probe may be freed. An RCU
 * grace period would not do under a preemptible kernel: a task preempted
 * in the handler is in no read-side section, so rcu_preempt does not wait
 * for it.
 *
 * Handlers must not sleep or call cond_resched() (a voluntary switch
 * would end the wait while the task is still inside).
 */
#ifndef _PROBE_H
#define _PROBE_H

#include <compiler.h>
#include <rcupdate.h>

struct probe {
	void (*handler)(struct probe *p, unsigned long arg);
	struct module *owner;		/* who to blame in a report; may be NULL */
};

struct probe_site {
	struct probe __rcu *probe;	/* Tasks RCU readers; probe_mutex */
	const char *name;
};

#define PROBE_SITE_INIT(n)	{ .probe = NULL, .name = (n) }

/*
 * The probed code: call the attached handler, if any. True if one ran.
 * The load is rcu_dereference_raw(): Tasks RCU readers are implicit, so
 * there is no section for PROVE_RCU to check.
 */
static __always_inline bool probe_hit(struct probe_site *site, unsigned long arg)
{
	struct probe *p = rcu_dereference_raw(site->probe);

	if (likely(!p))
		return false;
	p->handler(p, arg);
	return true;
}

/* Process context. 0, or -EBUSY if the site has a probe already. */
int probe_attach(struct probe_site *site, struct probe *p);
/* Process context; sleeps for a Tasks RCU grace period when p was attached. */
void probe_detach(struct probe_site *site, struct probe *p);

#endif
