/*
 * Sleepable RCU (SRCU): a separate API beside call_rcu(), as in Linux
 * (docs/rcu/srcu.md; the design of Linux's classic kernel/rcu/srcu.c and
 * of srcutree.c's per-CPU counters, in our own smaller code).
 *
 * Readers may sleep:
 *   idx = srcu_read_lock(&ss);
 *   p = srcu_dereference(gp, &ss);  ... may block ...
 *   srcu_read_unlock(&ss, idx);
 * Updaters:
 *   rcu_assign_pointer(gp, new); synchronize_srcu(&ss); kfree(old);
 *   or call_srcu(&ss, &old->rh, free_it, old);
 *
 * Each srcu_struct is a domain of its own: a grace period of one waits
 * only for that domain's readers, so a reader that sleeps for a second in
 * one domain delays no other domain and no call_rcu(). SRCU does not use
 * the configured RCU variant at all (it works even under rcu-busted).
 *
 * Readers count themselves into one of two ranks, chosen by the low bit of
 * srcu_idx, on their own CPU's counters; a grace period flips srcu_idx and
 * waits until the old rank's locks and unlocks, summed over all CPUs, are
 * equal (kernel/rcu/srcu.c says which barrier pairs with which).
 */
#ifndef _SRCU_H
#define _SRCU_H

#include <compiler.h>
#include <rcupdate.h>
#include <mutex.h>
#include <spinlock.h>
#include <sched.h>
#include <wait.h>
#include <list.h>

/* One CPU's counters, on a cache line of its own: readers write only
 * their own CPU's line (an unlock after migration writes the new CPU's). */
struct srcu_data {
	unsigned long srcu_lock_count[2];
	unsigned long srcu_unlock_count[2];
} __aligned(64);

/* srcu_gp_phase: the steps of srcu_gp() (kernel/rcu/srcu.c). */
enum {
	SRCU_GP_IDLE,		/* no grace period running */
	SRCU_GP_DRAIN_INACTIVE,	/* step 1: waiting for the rank readers no longer use */
	SRCU_GP_DRAIN_FLIPPED,	/* step 3: flipped; waiting for the rank readers were in */
};

struct srcu_struct {
	unsigned long srcu_idx;		/* readers use rank srcu_idx & 1 */
	unsigned long srcu_gp_seq;	/* grace periods * 2, +1 while one runs */
	struct mutex srcu_gp_mutex;	/* one grace period at a time */
	spinlock_t srcu_cb_lock;	/* srcu_cblist */
	struct list_head srcu_cblist;	/* call_srcu() callbacks not yet taken */
	struct wait_queue_head srcu_gp_wq;	/* the domain's kthread waits here */
	struct task *srcu_gp_kthread;	/* runs grace periods for call_srcu() */
	const char *name;
	unsigned long srcu_gp_count;	/* grace periods completed (statistics) */
	unsigned long srcu_gp_req;	/* start_poll_synchronize_srcu()'s cookie */
	int srcu_gp_phase;		/* SRCU_GP_*: where the grace period is (gdb) */
	struct list_head srcu_domains;	/* on srcu_domain_list (srcu.c; gdb's qs-srcu) */
	struct srcu_data sda[CONFIG_NR_CPUS];
};

/* Process context. 0, or -ENOMEM if the domain's kthread cannot start. */
int init_srcu_struct(struct srcu_struct *ss, const char *name);
/* After the last reader and callback: warns if readers or callbacks remain. */
void cleanup_srcu_struct(struct srcu_struct *ss);

/* ---- Readers: any context but NMI; the section may sleep (process context). */

/*
 * Why an asm incq: the counter is this CPU's, so no lock prefix is needed,
 * but the increment must be one instruction so that an interrupt handler's
 * reader on this CPU cannot fall between a load and a store (Linux's
 * this_cpu_inc() on x86).
 */
static __always_inline void srcu_cpu_inc(unsigned long *c)
{
	__asm__ __volatile__("incq %0" : "+m"(*c) :: "memory");
}

/* PROVE_RCU: which task holds which domain (srcu_read_lock_held()). */
#ifdef CONFIG_PROVE_RCU
void srcu_prove_acquire(struct srcu_struct *ss);
void srcu_prove_release(struct srcu_struct *ss);
struct task;
void srcu_prove_print_held(struct task *t);	/* in a PROVE_RCU report */
#else
static inline void srcu_prove_acquire(struct srcu_struct *ss) { }
static inline void srcu_prove_release(struct srcu_struct *ss) { }
#endif

/*
 * The task's read-side depth, in every domain: CPU hotplug asks it
 * (srcu_task_may_freeze()), for a task frozen inside a section on a CPU
 * that went offline would hold every grace period until the CPU came
 * back. Changed with preemption off, beside the count, so a task switched
 * out is inside exactly when its depth is nonzero; an interrupt handler's
 * reader adds and takes away its own before it returns.
 */
static __always_inline void srcu_task_nesting(int d)
{
	struct task *t = get_current();

	if (t)
		t->srcu_read_nesting += d;
}

static inline int srcu_read_lock(struct srcu_struct *ss)
{
	int idx;

	preempt_disable();
	idx = READ_ONCE(ss->srcu_idx) & 1;
	srcu_cpu_inc(&ss->sda[smp_processor_id()].srcu_lock_count[idx]);
	srcu_task_nesting(1);
	/*
	 * B: the lock count before the section's loads. Pairs with A in the
	 * scan (srcu_readers_active_idx()): a scan that missed this increment
	 * ran its smp_mb() before it, so the section sees every store the
	 * updater made before its grace period (the unlink included).
	 */
	smp_mb();
	preempt_enable();
	srcu_prove_acquire(ss);
	return idx;
}

static inline void srcu_read_unlock(struct srcu_struct *ss, int idx)
{
	srcu_prove_release(ss);
	preempt_disable();
	/*
	 * C: the section's loads before the unlock count. Pairs with A: a
	 * scan that counts this unlock sees a reader that is done with
	 * everything it loaded, so freeing it after the scan is safe.
	 */
	smp_mb();
	srcu_cpu_inc(&ss->sda[smp_processor_id()].srcu_unlock_count[idx]);
	srcu_task_nesting(-1);
	preempt_enable();
}

/* ---- Updaters: process context. */

void synchronize_srcu(struct srcu_struct *ss);
/* No faster path here: the same grace period (docs/rcu/srcu.md says why). */
static inline void synchronize_srcu_expedited(struct srcu_struct *ss) { synchronize_srcu(ss); }
/* Run func(arg) after a grace period of ss, in the domain's kthread. Any context but NMI. */
void call_srcu(struct srcu_struct *ss, struct rcu_head *head, void (*func)(void *arg), void *arg);
/* Wait until every call_srcu() on ss queued before the call has run. */
void srcu_barrier(struct srcu_struct *ss);
/* Polled grace periods, as get_state_synchronize_rcu()/poll_state_...():
 * get_state starts no grace period, start_poll does. */
unsigned long get_state_synchronize_srcu(struct srcu_struct *ss);
unsigned long start_poll_synchronize_srcu(struct srcu_struct *ss);
bool poll_state_synchronize_srcu(struct srcu_struct *ss, unsigned long cookie);
/* Print ss's grace-period state, rank sums and kthread (a report's detail). */
void srcu_show(struct srcu_struct *ss);

/* ---- Checking (CONFIG_PROVE_RCU; docs/rcu/checking.md). */

/*
 * srcu_read_lock_held(ss): the calling task is inside a read-side section
 * of ss (CONFIG_PROVE_RCU keeps, per task, the domains it holds, so a
 * section of another domain, or another task's section of this one, does
 * not count). Also true where there is no current task yet (early boot)
 * or the task nests deeper than it keeps, and always true without
 * CONFIG_PROVE_RCU, so that a condition built on it passes.
 *
 * srcu_readers_active(ss): some task is inside a section of ss now (the
 * sums of the counters; statistics and tests, not a check).
 */
bool srcu_read_lock_held(struct srcu_struct *ss);
bool srcu_readers_active(struct srcu_struct *ss);
/* p is an __rcu pointer (sparse checks it through rcu_dereference_raw()). */
#define srcu_dereference_check(p, ss, c)				\
	({ __rcu_prove((c) || srcu_read_lock_held(ss), "srcu_dereference_check"); \
	   rcu_dereference_raw(p); })
#define srcu_dereference(p, ss)		srcu_dereference_check(p, ss, 0)

#endif
