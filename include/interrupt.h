/*
 * Tasklets: small deferred functions, run in softirq context on the CPU
 * that scheduled them, never on two CPUs at once.
 *
 * The state word has the two bits of Linux 2.5 that seed 000 Figure 23
 * reads: TASKLET_STATE_SCHED (queued, will run) and TASKLET_STATE_RUN
 * (running now, on some CPU). tasklet_schedule() on a tasklet already
 * SCHED does nothing; scheduled while RUN, it is queued again and runs
 * again after the current run ends. The count disables it: a disabled
 * tasklet stays queued until tasklet_enable().
 */
#ifndef _INTERRUPT_H
#define _INTERRUPT_H

#include <atomic.h>
#include <softirq.h>

enum {
	TASKLET_STATE_SCHED,	/* queued on some CPU's list */
	TASKLET_STATE_RUN,	/* its function is running */
};

struct tasklet_struct {
	struct tasklet_struct *next;
	unsigned long state;
	atomic_t count;		/* > 0: disabled */
	void (*func)(unsigned long data);
	unsigned long data;
};

#define DECLARE_TASKLET(name, f, d) \
	struct tasklet_struct name = { NULL, 0, ATOMIC_INIT(0), f, d }

void tasklet_init(struct tasklet_struct *t, void (*func)(unsigned long), unsigned long data);
void tasklet_schedule(struct tasklet_struct *t);	/* TASKLET_SOFTIRQ */
void tasklet_hi_schedule(struct tasklet_struct *t);	/* HI_SOFTIRQ: before all others */
/* Stop it running (waits for a running instance) / allow it again. */
void tasklet_disable(struct tasklet_struct *t);
void tasklet_enable(struct tasklet_struct *t);
/* Wait until it is neither queued nor running (process context). */
void tasklet_kill(struct tasklet_struct *t);
void tasklet_init_softirqs(void);
/* CPU hotplug: the parked CPU dead's queued tasklets move to this CPU. */
void tasklets_takeover(unsigned int dead);

#endif
