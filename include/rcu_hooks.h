/*
 * The RCU hooks (docs/design.md, "The RCU contract"): the one place where
 * lower layers call up into kernel/rcu. The scheduler, the timer tick and
 * the idle loop call these and know nothing else about RCU. Every build
 * has exactly one variant (the Kconfig choice), which provides them with
 * kernel/rcu/update.c.
 */
#ifndef _RCU_HOOKS_H
#define _RCU_HOOKS_H

#include <types.h>
#include <tick.h>

struct task;

/*
 * A context switch on this CPU; voluntary if the task blocked or yielded.
 * Also called (voluntary) from cond_resched() when it finds nothing to
 * switch to: a voluntary scheduling point is a quiescent state either way.
 * Interrupts are off in both callers.
 */
void rcu_hook_context_switch(bool voluntary);
/* The per-CPU tick, with what it interrupted (user, kernel, idle). */
void rcu_hook_tick(enum tick_context ctx);
/* Each pass of this CPU's idle loop, interrupts enabled. */
void rcu_hook_idle(void);
/* This CPU has come online (called on that CPU). */
void rcu_hook_cpu_online(unsigned int cpu);
/*
 * Tasks RCU (kernel/rcu/rcu_tasks.c), under every variant: the current
 * task passed a voluntary switch, cond_resched() or a tick in user mode.
 */
void rcu_tasks_hook_qs(void);
/*
 * This CPU is going offline (CPU hotplug, kernel/sched/hotplug.c): called
 * on it, interrupts off, after it left cpu_online_mask and stopped its
 * tick, with no reader running on it (the stopper thread preempted
 * whatever ran). The variant takes it out of what a grace period waits
 * on and hands its callbacks to a live CPU. When it comes back,
 * rcu_hook_cpu_online() is called again, on it, before its tick.
 *
 * The rule: after this call the CPU runs nothing with interrupts on
 * until rcu_hook_cpu_online() has made it known to RCU again. It is
 * reported offline after the last code that could run there with
 * interrupts enabled (its softirqs run before it leaves the mask), as
 * Linux reports a CPU dead from the outgoing CPU's last steps: a tick
 * or IPI latched before it left cpu_online_mask, or a softirq, taken
 * after the report would run a reader that no grace period waits for,
 * since every variant drops the CPU here and a grace period that starts
 * later copies cpu_online_mask without it (Tree RCU's expedited path
 * answers for it too). What is latched runs after it returns.
 */
void rcu_hook_cpu_offline(unsigned int cpu);
/*
 * The CPU is parked; called on the CPU that ran cpu_down() (a task,
 * interrupts on, hotplug lock held): the variant adopts the dead CPU's
 * callbacks here, so that an rcu_barrier() that waits for the hotplug
 * lock finds them on a live CPU's lists, behind nothing it queues.
 */
void rcu_hook_cpu_dead(unsigned int cpu);
/*
 * CPU hotplug: p, a kernel thread, is queued on the dying CPU and
 * allowed on no other; may it stay there, frozen, until the CPU returns?
 * Called on the dying CPU after rcu_hook_cpu_offline(), p not running,
 * its run queue locked (a user task is not asked: it moves anyway, its
 * affinity broken). No: a grace period of some flavour would wait for it
 * (rcu-preempt: it was preempted inside a reader; SRCU: it is inside
 * srcu_read_lock()), so it must run elsewhere. (Tasks RCU counts a task
 * frozen after a voluntary switch as quiescent, and per-CPU kernel
 * threads park at one before the CPU goes: kernel/sched/hotplug.c.)
 */
bool rcu_hook_task_may_freeze(struct task *p);
/* Can the variant built in lose a CPU? cpu_down() refuses if not. */
bool rcu_hotplug_supported(void);
/* Boot: before any other CPU or thread runs, and once threads can run. */
void rcu_hook_init(void);
void rcu_hook_late_init(void);
/* The variant built in, for the boot banner ("ltimer", ...). */
const char *rcu_variant_name(void);

#endif
