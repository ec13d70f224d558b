/*
 * The upcalls: every place where a lower layer (docs/layers.md)
 * calls a function that a layer above it provides, other than the RCU
 * hooks (include/rcu_hooks.h). Each names who calls it, in what context,
 * who provides it, and what it may do.
 *
 * Every build links all the layers, so each hook has exactly one
 * provider, with no default: a missing one is a link error, not a
 * silent no-op. A lower layer includes this header, never the provider's
 * own header, and knows nothing else about the layer above.
 *
 * Two more calls go up from inline functions of core headers that every
 * file includes, and are declared beside their callers:
 * preempt_schedule() (include/preempt.h) and local_bh_enable()
 * (include/bottom_half.h), both provided by kernel/sched.
 * docs/layers.md lists these seams and the weak symbols that remain.
 */
#ifndef _UPCALLS_H
#define _UPCALLS_H

#include <types.h>
#include <tick.h>

struct pt_regs;
struct ksym_info;

/* ---- Arch and core call the scheduler (kernel/sched). */

/*
 * Around every hardware interrupt handler (kernel/arch/x86/idt.c),
 * interrupts off. irq_enter() counts the hard IRQ in preempt_count;
 * irq_exit() uncounts it, runs pending softirqs if this was the outermost
 * interrupt, then on the way back to the interrupted code reschedules
 * (CONFIG_KPREEMPT, kernel code) or calls user_return_work() (user mode).
 * kernel/sched/preempt.c.
 */
void irq_enter(void);
void irq_exit(struct pt_regs *regs);
/*
 * The per-CPU tick (kernel/time/tick.c), hard IRQ, before
 * rcu_hook_tick(). Runs the kernel timers' tick, then, once this CPU has
 * a scheduler, the sleepers' deadlines, the time slice and the load
 * balancer. May raise softirqs and set need_resched; never switches.
 * kernel/sched/core.c.
 */
void scheduler_tick(enum tick_context ctx);
/*
 * The reschedule IPI's handler (kernel/arch/x86/ipi.c), hard IRQ. The
 * sender already set need_resched; the interrupt return or the idle loop
 * acts on it. kernel/sched/core.c (it does nothing more today).
 */
void scheduler_ipi(void);
/*
 * The idle loop (kernel/core/idle.c), interrupts off: is there something
 * to run here? If so, idle_exit() switches to it (and comes back here
 * when this CPU is idle again). kernel/sched/core.c.
 */
bool idle_should_exit(void);
void idle_exit(void);
/*
 * An AP starting (kernel/arch/x86/smp.c), on itself, interrupts off,
 * before its tick and before it is online: its boot context becomes its
 * idle task. kernel/sched/core.c.
 */
void sched_init_ap(unsigned int cpu);
/*
 * Is this CPU parked by CPU hotplug (offline, in its halt loop)? Any
 * context, NMI included: it only reads. The IPI senders
 * (kernel/arch/x86/ipi.c) stop waiting for a parked CPU; the NMI handler
 * (kernel/arch/x86/nmi.c) lets a parked CPU's NMI pass quietly.
 * kernel/sched/hotplug.c.
 */
bool cpu_is_parked(unsigned int cpu);
/* The park loop's hlt instruction (one byte), which an NMI may step over. */
extern const char cpu_park_hlt[];
/*
 * A console request key was pressed (kernel/core/sysrq.c, from the
 * serial receive interrupt): call sysrq_run() soon in process context,
 * since some reports take locks an interrupt must not wait for. False
 * before the work queues run; the key is then dropped.
 * kernel/sched/stats.c.
 */
bool sysrq_schedule(void);

/* ---- Arch and core call the module layer (kernel/module). */

/*
 * Every NMI (kernel/arch/x86/nmi.c), NMI context: run the registered
 * handlers (an RCU list, seed 001), taking no lock. NMI_HANDLED if one
 * was. kernel/module/nmi_handler.c.
 */
int nmi_handle_chain(struct pt_regs *regs);
/*
 * Backtraces (kernel/core/ksyms.c), any context: the symbol of an address
 * inside a loaded module, copied into *info, and whether an address is a
 * module's code. They only read, under rcu_read_lock().
 * kernel/module/symbols.c.
 */
bool module_address_lookup(unsigned long addr, struct ksym_info *info);
bool module_text_address(unsigned long addr);

/* ---- Arch, core and the scheduler call the process layer (kernel/proc). */

/*
 * The serial receive interrupt (kernel/arch/x86/serial.c), hard IRQ:
 * input arrived; wake a reader of the console. kernel/proc/tty.c.
 */
void console_input_notify(void);
/*
 * An exception in user mode (kernel/arch/x86/traps.c), interrupts off:
 * end the process, never the kernel. kernel/proc/process.c.
 */
void user_exception(struct pt_regs *regs, const char *what);
/*
 * Before an interrupt (irq_exit(), kernel/sched/preempt.c) or a system
 * call (kernel/proc/syscall.c) returns to user mode, interrupts possibly
 * off: reschedule if asked, and end a killed process or deliver its
 * signals. kernel/proc/signal.c.
 */
void user_return_work(struct pt_regs *regs);

#endif
