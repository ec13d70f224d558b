/*
 * NMI handlers (seed 001, "RCU Synchronizing with NMIs"; docs/modules.md).
 *
 * No lock can be taken in an NMI handler (the interrupted code may hold
 * it), and nothing can keep an NMI out. So the chain of handlers is read
 * the RCU way: the NMI path walks it with list_for_each_entry_rcu() and
 * no lock; register_nmi_handler() publishes with list_add_tail_rcu();
 * unregister_nmi_handler() unlinks and waits for a grace period before it
 * returns (seed 001 Listing 4's unset_nmi_callback(); synchronize_kernel()),
 * so that the caller may then free the handler's code and data: a module
 * that registered one can be unloaded.
 *
 *	static int my_nmi(struct pt_regs *regs, void *arg) { ...; return NMI_HANDLED; }
 *	static struct nmi_handler h = { .handler = my_nmi, .name = "mine" };
 *	register_nmi_handler(&h);  ...  unregister_nmi_handler(&h); kfree(data);
 *
 * A handler runs in NMI context: interrupts off, any code interrupted,
 * possibly a lock holder. It may read RCU-protected data and per-CPU
 * data it owns; it must not take locks, allocate, printk (except to
 * report a fatal error), or sleep. Every registered handler is called on
 * every NMI; it says whether the NMI was its own.
 */
#ifndef _NMI_H
#define _NMI_H

#include <types.h>
#include <list.h>

struct pt_regs;

#define NMI_DONE	0	/* not mine */
#define NMI_HANDLED	1

struct nmi_handler {
	struct list_head list;		/* the chain (RCU readers in NMI context) */
	int (*handler)(struct pt_regs *regs, void *arg);
	void *arg;
	const char *name;
};

/* kernel/module/nmi_handler.c. Process context. */
int register_nmi_handler(struct nmi_handler *h);
void unregister_nmi_handler(struct nmi_handler *h);
/* The module unloader: unregister (and report) handlers left in a module's memory. */
void nmi_handlers_release_range(unsigned long base, unsigned long size, const char *owner);
unsigned long nmi_handlers_registered(void);
unsigned long nmi_unregister_count(void);
unsigned long nmi_gp_violations(void);

/*
 * Every CPU counts its NMI entries and exits (kernel/arch/x86/nmi.c):
 * odd while it is inside an NMI handler. unregister_nmi_handler() reads
 * them to check that the grace period it waited for covered every NMI
 * that was running when it unlinked the handler.
 */
unsigned long nmi_seq(unsigned int cpu);
unsigned long nmi_count(unsigned int cpu);

/*
 * The periodic NMI source (kernel/arch/x86/nmi_timer.c): the PIT's
 * channel 0 at `hz`, routed by the IOAPIC as an NMI to every CPU at once.
 * -EBUSY if already running, -EINVAL for a rate outside 20..10000 Hz.
 * nmi_timer_stop() returns once no timer NMI can still be on its way.
 */
int nmi_timer_start(unsigned int hz);
void nmi_timer_stop(void);
unsigned int nmi_timer_hz(void);		/* 0 when stopped */
/* From the NMI path, for an NMI nobody claimed: true (and counted) if
 * the timer may have sent it, so that it is not reported as unknown. */
bool nmi_timer_note_unclaimed(void);
unsigned long nmi_timer_unclaimed(void);

#endif
