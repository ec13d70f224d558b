/*
 * Read-Copy Update: the API every variant implements (docs/design.md,
 * "The RCU contract"; seed 001 Listing 1; seed 000 section 2.3).
 *
 * Readers:
 *   rcu_read_lock(); p = rcu_dereference(gp); ... use p ...; rcu_read_unlock();
 * Updaters:
 *   new = copy-and-modify(old); rcu_assign_pointer(gp, new);
 *   call_rcu(&old->rcu, free_it, old);   (or synchronize_kernel(); free(old);)
 *
 * A grace period is any interval in which every CPU has passed through a
 * quiescent state: a point where it holds no reference obtained inside a
 * read-side critical section (a voluntary context switch, user mode, the
 * idle loop; which ones a variant counts is its defining choice). After a
 * grace period that began after an element was unlinked, no reader can
 * still hold it, so it may be freed.
 *
 * The read side: in a non-preemptive kernel rcu_read_lock() emits no
 * instruction at all (a reader cannot be switched out, so it ends before
 * its CPU's next quiescent state); in a preemptive kernel it disables
 * preemption. rcu-preempt (kernel/rcu/rcu_preempt.c) instead counts readers
 * and lets them be preempted. Which applies is decided in
 * kernel/rcu/read_side.h, so that no variant #ifdef lives outside
 * kernel/rcu/.
 */
#ifndef _RCUPDATE_H
#define _RCUPDATE_H

#include <compiler.h>
#include <barrier.h>
#include <list.h>
#include <preempt.h>
#include <softirq.h>

/*
 * The callback record, as in Linux 2.5 (seed 000 Figure 21): the variants
 * queue it by `list` on their nxtlist/curlist/donelist.
 */
struct rcu_head {
	struct list_head list;
	void (*func)(void *arg);
	void *arg;
#ifdef CONFIG_PROVE_RCU
	/* RCU_HEAD_QUEUED from call_rcu() until just before func runs, so a
	 * second call_rcu() on a queued head is reported, not a corrupt list
	 * (kernel/rcu/prove.c). */
	unsigned long debug_state;
#endif
};

#define RCU_HEAD_INIT(h)	{ LIST_HEAD_INIT((h).list), NULL, NULL }

/* ---- Updaters (kernel/rcu/<variant>.c and kernel/rcu/update.c). */

/* Run func(arg) after a grace period. Never sleeps; any context but NMI
 * (rcu-poll warns from hard IRQ: seed 000 Table 1). */
void call_rcu(struct rcu_head *head, void (*func)(void *arg), void *arg);
/* Wait for a grace period (process context; may sleep). */
void synchronize_kernel(void);
static inline void synchronize_rcu(void) { synchronize_kernel(); }
/*
 * A grace period forced at once, with an IPI to every CPU, for callers
 * that cannot wait ticks and can afford to disturb every CPU. Tree RCU
 * (docs/rcu/tree.md) has its own; every other variant falls back to
 * synchronize_kernel() (kernel/rcu/update.c).
 */
void synchronize_rcu_expedited(void);
/* Wait until every call_rcu() callback queued before the call has run. */
void rcu_barrier(void);
/* Free ptr with kfree() after a grace period, using its rcu_head field. */
#define kfree_rcu(ptr, field)	__kfree_rcu(&(ptr)->field, (ptr))
void __kfree_rcu(struct rcu_head *head, void *obj);
/*
 * call_rcu_rt(): the realtime option of seed 003 Figures 9-12. Without
 * CONFIG_RCU_CALL_RT_DIRECT (docs/rcu/realtime.md) it is call_rcu().
 */
void call_rcu_rt(struct rcu_head *head, void (*func)(void *arg), void *arg);

/*
 * Polled grace periods. A cookie names "the grace periods that must end":
 *   c = get_state_synchronize_rcu();  ... later ...
 *   if (poll_state_synchronize_rcu(c)) -> a full grace period has elapsed
 *   cond_synchronize_rcu(c) waits only if one has not.
 * get_state does not start a grace period; start_poll_synchronize_rcu()
 * does (one callback per CPU, queued again until the newest cookie handed
 * out on that CPU has completed).
 */
unsigned long get_state_synchronize_rcu(void);
unsigned long start_poll_synchronize_rcu(void);
bool poll_state_synchronize_rcu(unsigned long cookie);
void cond_synchronize_rcu(unsigned long cookie);

/* ---- Publication and subscription (seed 000 Appendix B). */

/*
 * rcu_assign_pointer(p, v): initialise *v first, then publish. The write
 * barrier keeps the stores that initialised the element from being seen
 * after the pointer to it (seed 000 Figure 48 line 9). On x86 (TSO) it
 * costs nothing but a compiler barrier.
 */
/*
 * Under sparse (make check) p must be declared __rcu: each accessor checks
 * that (rcu_check_sparse) and casts the address space away on the way out,
 * or in on the way in, so only these macros may touch such a pointer.
 */
#ifdef __CHECKER__
#define rcu_check_sparse(p, space)	((void)(((__typeof__(*(p)) space *)(p)) == (p)))
#else
#define rcu_check_sparse(p, space)	((void)0)
#endif
#define RCU_INITIALIZER(v)		((__typeof__(*(v)) __force __rcu *)(v))

#define rcu_assign_pointer(p, v)					\
	do { rcu_check_sparse(p, __rcu);				\
	     smp_store_release(&(p), RCU_INITIALIZER(v)); } while (0)
#define RCU_INIT_POINTER(p, v)						\
	do { rcu_check_sparse(p, __rcu);				\
	     WRITE_ONCE(p, RCU_INITIALIZER(v)); } while (0)

/*
 * rcu_dereference(p): load p once; later loads through it see the
 * initialised element. Only DEC Alpha needs a barrier here (seed 000
 * Appendix B: read_barrier_depends()); everyone needs the single load.
 */
#define read_barrier_depends()		do { } while (0)
#define rcu_dereference_raw(p)						\
	({ rcu_check_sparse(p, __rcu);					\
	   __typeof__(*(p)) __force __kernel *___p =			\
		(__typeof__(*(p)) __force __kernel *)READ_ONCE(p);	\
	   read_barrier_depends(); ___p; })

/*
 * The checked accessors (Linux's names; docs/rcu/checking.md). Each states
 * why the load is safe:
 *   rcu_dereference_check(p, c)  inside rcu_read_lock(), or c holds
 *                                (typically "the update-side lock is held")
 *   rcu_dereference(p)           inside rcu_read_lock()
 *   rcu_dereference_bh(p)        inside rcu_read_lock_bh() (softirqs off)
 *   rcu_dereference_sched(p)     preemption or interrupts off
 *   rcu_dereference_protected(p, c)  update side: c holds, so p cannot
 *                                change under us; a plain load
 *   rcu_access_pointer(p)        only the pointer's value is used (compared
 *                                with NULL, say), never dereferenced
 * With CONFIG_PROVE_RCU a false reason prints one report per call site
 * (kernel/rcu/prove.c); without it c is not evaluated and each is the
 * plain load it always was (the non-preemptible read side stays empty).
 */
bool rcu_read_lock_held(void);
bool rcu_read_lock_bh_held(void);
bool rcu_read_lock_sched_held(void);
void rcu_prove_suspicious(const char *file, int line, const char *what);
/* Reports printed since boot (0 without CONFIG_PROVE_RCU): tests compare. */
unsigned long rcu_prove_reports(void);

#ifdef CONFIG_PROVE_RCU
#define __rcu_prove(c, what)						\
	do {								\
		static bool __rcu_warned;				\
		if (unlikely(!__rcu_warned && !(c))) {			\
			__rcu_warned = true;				\
			rcu_prove_suspicious(__FILE__, __LINE__, what);	\
		}							\
	} while (0)
#else
#define __rcu_prove(c, what)	do { (void)sizeof(!(c)); } while (0)
#endif

#define rcu_dereference_check(p, c)					\
	({ __rcu_prove((c) || rcu_read_lock_held(), "rcu_dereference_check");	\
	   rcu_dereference_raw(p); })
#define rcu_dereference_bh_check(p, c)					\
	({ __rcu_prove((c) || rcu_read_lock_bh_held(), "rcu_dereference_bh_check"); \
	   rcu_dereference_raw(p); })
#define rcu_dereference_sched_check(p, c)				\
	({ __rcu_prove((c) || rcu_read_lock_sched_held(), "rcu_dereference_sched_check"); \
	   rcu_dereference_raw(p); })
#define rcu_dereference(p)		rcu_dereference_check(p, 0)
#define rcu_dereference_bh(p)		rcu_dereference_bh_check(p, 0)
#define rcu_dereference_sched(p)	rcu_dereference_sched_check(p, 0)
#define rcu_dereference_protected(p, c)					\
	({ __rcu_prove(c, "rcu_dereference_protected");		\
	   rcu_check_sparse(p, __rcu);					\
	   (__typeof__(*(p)) __force __kernel *)(p); })
#define rcu_access_pointer(p)						\
	({ rcu_check_sparse(p, __rcu);					\
	   (__typeof__(*(p)) __force __kernel *)READ_ONCE(p); })

/* A task leaving the kernel (to user mode, or for good) must have closed
 * every read-side section it opened (kernel/proc, kernel/sched). */
#ifdef CONFIG_PROVE_RCU
void rcu_prove_task_leaving(const char *where);
#else
static __always_inline void rcu_prove_task_leaving(const char *where) { (void)where; }
#endif

#include <rcu/read_side.h>		/* rcu_read_lock()/rcu_read_unlock() */

/* BH flavour (seed 003 Figure 12): softirqs off on this CPU. */
static __always_inline void rcu_read_lock_bh(void) { local_bh_disable(); }
static __always_inline void rcu_read_unlock_bh(void) { local_bh_enable(); }

/* ---- What the variant reports (kernel/rcu/gp_sequence.c, kernel/rcu/stats.c). */

const char *rcu_variant_name(void);
/* Grace periods started and completed since boot (monotonic). */
unsigned long rcu_gp_started(void);
unsigned long rcu_gp_completed(void);
/* call_rcu() callbacks queued and invoked on one CPU since boot. */
void rcu_cpu_callback_counts(unsigned int cpu, unsigned long *queued, unsigned long *invoked);

#endif
