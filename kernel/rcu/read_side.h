/*
 * The read side of RCU, per preemption model and variant (included by
 * include/rcupdate.h; the one place the read side depends on the build).
 *
 *   non-preemptive kernel: nothing at all. A reader cannot lose its CPU,
 *       so it ends before that CPU's next quiescent state. (With
 *       CONFIG_RCU_DEBUG_READ a per-CPU nesting count lets might_sleep()
 *       catch a sleep inside the section.)
 *   CONFIG_KPREEMPT: preemption disabled, so no involuntary switch can
 *       happen inside the section (seed 001: "In preemptive kernels, they
 *       disable preemption").
 *   rcu-preempt (CONFIG_RCU_PREEMPT, kernel/rcu/rcu_preempt.c, seed 000 5.7):
 *       preemptible readers. rcu_read_lock() counts the task's nesting,
 *       with or without CONFIG_RCU_DEBUG_READ: a reader may be preempted
 *       and migrated, the variant tracks preempted tasks, and CPU offline
 *       must tell a task preempted inside a reader from one outside
 *       (rcu_variant_task_may_freeze()), which only the count says.
 */
#ifndef _RCU_READ_SIDE_H
#define _RCU_READ_SIDE_H

#include <compiler.h>
#include <percpu.h>
#include <preempt.h>
#ifdef CONFIG_KASAN
#include <arch/cpu.h>
#endif

/* The per-CPU nesting count is struct cpu_local's rcu_read_depth, one
 * %gs-relative instruction away (include/percpu.h). */
STATIC_ASSERT(offsetof(struct cpu_local, rcu_read_depth) == CPU_LOCAL_RCU_DEPTH);

#ifdef CONFIG_RCU_DEBUG_READ
static __always_inline void rcu_read_depth_inc(void)
{
	__asm__ __volatile__("incl %%gs:%c0" :: "i"(CPU_LOCAL_RCU_DEPTH) : "memory", "cc");
#ifdef CONFIG_KASAN
	/* When the outermost section began: KASAN tells from it whether a
	 * freed object's grace period was cut short (docs/kasan.md). */
	if (cpu_local()->rcu_read_depth == 1)
		cpu_local()->rcu_read_since = rdtsc();
#endif
}
static __always_inline void rcu_read_depth_dec(void)
{
	__asm__ __volatile__("decl %%gs:%c0" :: "i"(CPU_LOCAL_RCU_DEPTH) : "memory", "cc");
}
#else
static __always_inline void rcu_read_depth_inc(void) { barrier(); }
static __always_inline void rcu_read_depth_dec(void) { barrier(); }
#endif

/* Can might_sleep() see a read-side section in this build? (Tests ask.) */
static __always_inline bool rcu_read_side_visible(void)
{
#if defined(CONFIG_RCU_DEBUG_READ) || defined(CONFIG_KPREEMPT)
	return true;		/* rcu-preempt (needs KPREEMPT) always counts */
#else
	return false;
#endif
}

/* Can a reader be preempted (and migrated) in this build? (Torture asks.) */
static __always_inline bool rcu_read_side_preemptible(void)
{
#ifdef CONFIG_RCU_PREEMPT
	return true;
#else
	return false;
#endif
}

#ifdef CONFIG_RCU_PREEMPT
/* kernel/rcu/rcu_preempt.c: the nesting lives in the task, which may move.
 * Its offset in struct task, which rcu_preempt.c checks. */
#define TASK_RCU_NESTING	60
void rcu_preempt_read_lock(void);
void rcu_preempt_read_unlock(void);
int rcu_preempt_read_depth(void);

static __always_inline int rcu_read_depth(void)
{
	return rcu_preempt_read_depth();
}
#ifdef CONFIG_KASAN
/* The TSC at the outermost rcu_read_lock() of the section open now. */
u64 rcu_read_section_start(void);
#endif

/*
 * "No additional work is done ... until that task is preempted" (seed 000
 * 5.7) would make the read side a compiler barrier, but then nothing says
 * whether a task preempted on a CPU going offline is inside a reader, and
 * the offline path would drop the count of one that is. So the task's
 * nesting depth is kept in every build, as Linux's preemptible RCU keeps
 * rcu_read_lock_nesting (might_sleep() reads it too). Inline, as Linux
 * does: current from %gs, then one increment of its field. The two need
 * not be atomic together: a preemption between them leaves current the
 * same task, wherever it resumes, and an interrupt's reader undoes its
 * own count before it returns. The cost is in docs/rcu/preempt.md.
 */
static __always_inline void rcu_read_lock(void)
{
	unsigned long t;

	__asm__ __volatile__("movq %%gs:%c1, %0\n\tincl %c2(%0)"
			     : "=&r"(t) : "i"(CPU_LOCAL_CURRENT), "i"(TASK_RCU_NESTING)
			     : "memory", "cc");
}

static __always_inline void rcu_read_unlock(void)
{
#ifdef CONFIG_PROVE_RCU
	rcu_preempt_read_unlock();	/* checks the depth below zero */
#else
	unsigned long t;

	__asm__ __volatile__("movq %%gs:%c1, %0\n\tdecl %c2(%0)"
			     : "=&r"(t) : "i"(CPU_LOCAL_CURRENT), "i"(TASK_RCU_NESTING)
			     : "memory", "cc");
#endif
}
#else
static __always_inline int rcu_read_depth(void)
{
	int d;
	__asm__ __volatile__("movl %%gs:%c1, %0" : "=r"(d) : "i"(CPU_LOCAL_RCU_DEPTH));
	return d;
}
#ifdef CONFIG_KASAN
static __always_inline u64 rcu_read_section_start(void)
{
	return cpu_local()->rcu_read_since;
}
#endif
#endif

/*
 * CONFIG_PROVE_RCU: an rcu_read_unlock() that takes the nesting below zero
 * had no rcu_read_lock(). It is reported (kernel/rcu/prove.c), the count
 * is put back to zero and the unlock does nothing else, so that one bug
 * gives one report rather than a negative preempt_count and a cascade.
 */
#ifdef CONFIG_PROVE_RCU
void rcu_prove_unbalanced_unlock(void);
static __always_inline bool rcu_prove_unlock_bad(void)
{
	if (likely(rcu_read_depth() >= 0))
		return false;
	rcu_prove_unbalanced_unlock();
	return true;
}
#else
static __always_inline bool rcu_prove_unlock_bad(void) { return false; }
#endif

#if defined(CONFIG_RCU_PREEMPT)
/* above */
#elif defined(CONFIG_KPREEMPT)
static __always_inline void rcu_read_lock(void)
{
	preempt_disable();
	rcu_read_depth_inc();
}

static __always_inline void rcu_read_unlock(void)
{
	rcu_read_depth_dec();
	if (rcu_prove_unlock_bad())
		return;
	preempt_enable();
}
#else
static __always_inline void rcu_read_lock(void)
{
	rcu_read_depth_inc();		/* nothing but a compiler barrier without debug */
}

static __always_inline void rcu_read_unlock(void)
{
	rcu_read_depth_dec();
	(void)rcu_prove_unlock_bad();
}
#endif

#endif
