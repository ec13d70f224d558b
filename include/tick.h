/*
 * The per-CPU timer tick (kernel/time/tick.c).
 *
 * Every CPU's LAPIC timer interrupts it CONFIG_HZ times a second. The tick
 * handler classifies what it interrupted, because RCU's quiescent-state
 * detection needs exactly that (seed 000 Figures 21-22: a tick from user
 * mode or from the idle loop proves the CPU holds no RCU reference):
 *
 *   TICK_USER    the CPU was running user-mode code;
 *   TICK_IDLE    the CPU was in the idle loop, and the tick is the only
 *                interrupt in progress and no softirq was running (an
 *                interrupt nested inside idle is not idle);
 *   TICK_KERNEL  anything else.
 *
 * It then calls, in order: scheduler_tick(ctx) (kernel/sched, which runs
 * the kernel timers' tick first; include/upcalls.h) and rcu_hook_tick(ctx)
 * (kernel/rcu, include/rcu_hooks.h).
 */
#ifndef _TICK_H
#define _TICK_H

#include <types.h>

enum tick_context {
	TICK_USER,
	TICK_KERNEL,
	TICK_IDLE,
	NR_TICK_CONTEXTS
};

struct tick_stats {
	unsigned long ticks;
	unsigned long by_context[NR_TICK_CONTEXTS];
};

/*
 * make replay STOP=T (kernel/time/replay_stop.c, docs/replay.md): every
 * tick and every printk compare the time with replay_stop_ns, whatever
 * its value, so that a run stopped this way is the run it replays up to
 * the stop. replay_nmi() is nmi_handler()'s: the stopping CPU's NMI parks
 * the CPU it reaches.
 */
struct pt_regs;
extern u64 replay_stop_ns;
void replay_stop(u64 now_ns);
bool replay_nmi(struct pt_regs *regs);
static inline void replay_stop_check(u64 now_ns)
{
	if (now_ns >= *(volatile u64 *)&replay_stop_ns)
		replay_stop(now_ns);
}

unsigned long cpu_ticks(unsigned int cpu);
const struct tick_stats *cpu_tick_stats(unsigned int cpu);
void time_init(void);
void tick_start_this_cpu(void);

#endif
