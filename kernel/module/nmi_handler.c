/*
 * The chain of NMI handlers (include/nmi.h), an RCU user: seed 001's
 * "RCU Synchronizing with NMIs" (Listing 4, oprofile's timer_stop():
 * unset_nmi_callback(); synchronize_kernel();) made into a list.
 *
 * The NMI path (kernel/arch/x86/nmi.c -> nmi_handle_chain()) walks the
 * list with list_for_each_entry_rcu() inside rcu_read_lock(): an NMI can
 * take no lock, since the code it interrupted may hold it.
 * register_nmi_handler() publishes with list_add_tail_rcu();
 * unregister_nmi_handler() unlinks with list_del_rcu() and waits for a
 * grace period, so that when it returns no CPU is still running the
 * handler or reading its data, and the caller may free both (a module
 * may be unloaded).
 *
 * Does synchronize_kernel() wait for an NMI handler? An NMI handler is not
 * an ordinary read-side critical section: it interrupts anything,
 * interrupts-off regions and the RCU variant's own bookkeeping included,
 * and rcu_read_lock() may be nothing at all. What makes it covered is
 * that a CPU inside an NMI handler executes nothing else until the
 * handler returns: no context switch, no idle loop, no return to user
 * mode, no tick. Every variant here counts a CPU's quiescent state only
 * when that CPU itself executes a quiescent-state hook after the grace
 * period began (rcu-preempt: a voluntary switch; the others: any switch,
 * the idle loop, or a tick that interrupted user mode or idle), and none
 * infers one from another CPU's state (an "idle" flag, as Linux's
 * dyntick-idle does, which is why Linux needs rcu_nmi_enter()). So a
 * grace period that began after the unlink cannot end while an NMI that
 * began before it still runs. docs/modules.md goes through each variant.
 *
 * That argument is checked at run time, not trusted: each CPU counts its
 * NMI entries and exits (nmi_seq(), odd inside one). After unlinking,
 * unregister_nmi_handler() notes which CPUs are inside an NMI; after the
 * grace period, any of those still inside the same NMI began before the
 * unlink and may still be running the handler: the grace period did not
 * cover it. That is an RCU bug (the busted variant does it at once): it
 * is counted and reported, and unregister_nmi_handler() then waits for
 * that NMI itself, so the caller's free is still safe (docs/design.md:
 * warn, never corrupt).
 */
#include "internal.h"
#include <nmi.h>
#include <upcalls.h>
#include <rculist.h>
#include <smp.h>
#include <errno.h>
#include <arch/cpu.h>
#include <panic.h>

static LIST_HEAD(nmi_handlers);
static DEFINE_MUTEX(nmi_mutex);
static atomic_long_t registered, unregisters, violations;

int register_nmi_handler(struct nmi_handler *h)
{
	struct nmi_handler *i;

	if (!h || !h->handler)
		return -EINVAL;
	mutex_lock(&nmi_mutex);
	list_for_each_entry(i, &nmi_handlers, list)
		if (i == h) {
			mutex_unlock(&nmi_mutex);
			return -EEXIST;
		}
	list_add_tail_rcu(&h->list, &nmi_handlers);	/* publish: the NMI path may call it now */
	atomic_long_inc(&registered);
	mutex_unlock(&nmi_mutex);
	return 0;
}

/* A CPU was still inside an NMI that the grace period should have waited for. */
static void gp_violation(struct nmi_handler *h, unsigned int cpu, unsigned long seq)
{
	long n = atomic_long_inc_return(&violations);

	if (n <= 3)
		printk("nmi: BUG: synchronize_kernel() returned while CPU %u was still inside an NMI "
		       "that began before unregister_nmi_handler(%s): %s does not wait for NMI "
		       "handlers; waiting for that NMI before the handler may be freed\n", cpu,
		       h->name ? h->name : "?", rcu_variant_name());
	while (nmi_seq(cpu) == seq)
		cpu_relax();
}

void unregister_nmi_handler(struct nmi_handler *h)
{
	unsigned long seq[CONFIG_NR_CPUS];
	struct nmi_handler *i;
	unsigned int cpu;

	mutex_lock(&nmi_mutex);
	list_for_each_entry(i, &nmi_handlers, list)
		if (i == h)
			break;
	if (i != h) {
		mutex_unlock(&nmi_mutex);
		printk("nmi: unregister_nmi_handler(%s): not registered\n", h->name ? h->name : "?");
		WARN_ON(1);
		return;
	}
	list_del_rcu(&h->list);
	atomic_long_dec(&registered);
	mutex_unlock(&nmi_mutex);
	/* The unlink before the counters are read; pairs with the full
	 * barrier at NMI entry: either that NMI's walk misses h, or we see
	 * its count odd. */
	smp_mb();
	for_each_online_cpu(cpu)
		seq[cpu] = nmi_seq(cpu);
	/* Seed 001 Listing 4: any NMI running the old handler has finished. */
	synchronize_kernel();
	smp_mb();
	for_each_online_cpu(cpu)
		if ((seq[cpu] & 1) && nmi_seq(cpu) == seq[cpu])
			gp_violation(h, cpu, seq[cpu]);
	atomic_long_inc(&unregisters);
}

/*
 * A module being unloaded left a handler registered whose code or data is
 * in [base, base + size): its exit() forgot unregister_nmi_handler(). Say
 * so and unregister it (with its grace period), or the next NMI would run
 * freed code. Called by the unloader after exit().
 */
void nmi_handlers_release_range(unsigned long base, unsigned long size, const char *owner)
{
	struct nmi_handler *h;

	for (;;) {
		mutex_lock(&nmi_mutex);
		list_for_each_entry(h, &nmi_handlers, list)
			if ((unsigned long)h->handler - base < size || (unsigned long)h - base < size)
				break;
		mutex_unlock(&nmi_mutex);
		if (&h->list == &nmi_handlers)
			return;
		printk("nmi: BUG: module %s left its NMI handler %s registered at unload; "
		       "unregistering it\n", owner, h->name ? h->name : "?");
		unregister_nmi_handler(h);
	}
}

/* NMI context: every handler, no lock (include/nmi.h). */
int nmi_handle_chain(struct pt_regs *regs)
{
	struct nmi_handler *h;
	int handled = NMI_DONE;

	if (list_empty(&nmi_handlers))
		return NMI_DONE;	/* boot, before any task exists for rcu_read_lock() */
	rcu_read_lock();
	list_for_each_entry_rcu(h, &nmi_handlers, list)
		handled |= h->handler(regs, h->arg);
	rcu_read_unlock();
	return handled;
}

unsigned long nmi_handlers_registered(void)
{
	return atomic_long_read(&registered);
}

unsigned long nmi_unregister_count(void)
{
	return atomic_long_read(&unregisters);
}

unsigned long nmi_gp_violations(void)
{
	return atomic_long_read(&violations);
}
