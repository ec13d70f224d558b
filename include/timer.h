/*
 * Kernel timers: run a function in softirq context (TIMER_SOFTIRQ) once
 * jiffies has reached `expires`, on the CPU whose timer wheel holds it.
 *
 *   add_timer(t)            on this CPU's wheel
 *   add_timer_on(t, cpu)    on cpu's wheel (X-rcu's per-CPU timers need it)
 *   mod_timer(t, expires)   (re)arm, on the wheel it was last on, else this CPU's
 *   del_timer(t)            disarm; the handler may still be running elsewhere
 *   del_timer_sync(t)       disarm and wait until the handler is not running
 *
 * Never early: a timer runs at the first tick of its CPU at which jiffies
 * >= expires. It may be late by up to one tick of that CPU plus softirq
 * delays; the timer-lateness benchmark (kernel/test/test_timer.c) measures it.
 */
#ifndef _TIMER_H
#define _TIMER_H

#include <list.h>

struct timer_base;

struct timer_list {
	struct list_head entry;		/* empty when not pending */
	unsigned long expires;		/* in jiffies */
	void (*function)(unsigned long data);
	unsigned long data;
	struct timer_base *base;	/* wheel it is (or was last) on */
};

#define TIMER_INITIALIZER(name, fn, d) \
	{ LIST_HEAD_INIT((name).entry), 0, fn, d, NULL }
#define DEFINE_TIMER(name, fn, d) \
	struct timer_list name = TIMER_INITIALIZER(name, fn, d)

void init_timer(struct timer_list *t);
void setup_timer(struct timer_list *t, void (*fn)(unsigned long), unsigned long data);
void add_timer(struct timer_list *t);
void add_timer_on(struct timer_list *t, unsigned int cpu);
/* Returns true if the timer was pending. */
bool mod_timer(struct timer_list *t, unsigned long expires);
bool del_timer(struct timer_list *t);
bool del_timer_sync(struct timer_list *t);
bool timer_pending(const struct timer_list *t);
/* The CPU whose wheel holds t, -1 if it never was queued. */
int timer_cpu(const struct timer_list *t);

/* From the tick: raise TIMER_SOFTIRQ if this CPU has a timer due. */
void timer_tick(void);
void timers_init(void);
/* CPU hotplug: from's timers move to to's wheel (kernel/sched/hotplug.c). */
void timers_migrate(unsigned int from, unsigned int to);

struct timer_stats {
	unsigned long fired, added, cascades, softirqs;
	unsigned long pending;
};
void timer_get_stats(unsigned int cpu, struct timer_stats *out);

/* Nanosecond time (ktime_get_ns) at which jiffies last advanced. */
extern volatile u64 jiffies_stamp_ns;

#endif
