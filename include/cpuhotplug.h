/*
 * CPU hotplug (kernel/sched/hotplug.c, docs/hotplug.md): take an
 * application CPU out of service and bring it back. The boot CPU never
 * goes down (it owns the IOAPIC's interrupts, jiffies and the console).
 */
#ifndef _CPUHOTPLUG_H
#define _CPUHOTPLUG_H

#include <types.h>
#include <upcalls.h>

/* 0, -EBUSY (the boot CPU), -EINVAL (no such CPU, or already in that
 * state), -EOPNOTSUPP (the RCU variant built in cannot lose a CPU). */
int cpu_down(unsigned int cpu);
int cpu_up(unsigned int cpu);

/*
 * Hold CPUs where they are (no cpu_down()/cpu_up() until the unlock):
 * for code that walks cpu_online_mask and needs every CPU it found to
 * stay (rcu_barrier(), the barrier tester). May sleep.
 */
void cpus_read_lock(void);
void cpus_read_unlock(void);

/* cpu_is_parked(): include/upcalls.h (the IPI and NMI code ask it). */

/* Why no CPU can go offline in this boot (one CPU, or an RCU variant
 * without hotplug), for a test to skip with; NULL if one can. */
const char *cpu_hotplug_unavailable(void);

struct cpu_hotplug_stats {
	unsigned long downs, ups;
	u64 down_ns_total, up_ns_total, down_ns_max, up_ns_max;
	unsigned long unbound;	/* bound tasks moved anyway (rcu_hook_task_may_freeze()) */
};
void cpu_hotplug_get_stats(struct cpu_hotplug_stats *out);

#endif
