/*
 * Realtime RCU (seed 003, Sarma and McKenney, "Making RCU safe for deep
 * sub-millisecond response realtime applications"): the three options that
 * keep a long callback batch from delaying a real-time task, as seen by
 * the variant that uses them (ltimer, kernel/rcu/rcu_ltimer.c).
 * docs/rcu/realtime.md is the lab.
 *
 *   CONFIG_RCU_KRCUD_OFFLOAD (rt_offload.c, section 4.1, Figures 2-8):
 *     from softirq, with a real-time task runnable on the CPU, rcu_do_batch()
 *     invokes at most bhlimit callbacks and hands the rest to this CPU's
 *     preemptible krcud thread (its rcudlist).
 *   CONFIG_RCU_CALL_RT_DIRECT (rt_direct.c, section 4.2, Figures 9-12):
 *     on a uniprocessor, call_rcu_rt() invokes the callback at once.
 *   CONFIG_RCU_THROTTLE (rt_throttle.c, section 4.3, Figures 13-15):
 *     rcu_do_batch() invokes at most rcumaxbatch callbacks, then plugs
 *     this CPU's RCU_donelist for rcuplugticks ticks.
 *
 * Each option's code is compiled only when it is configured (the obj lines
 * at the end of kernel/rcu/variants.mk); without it the inline stubs below
 * make rcu_do_batch() the stock one. Each can also be switched off and on
 * at run time (include/rcu_rt.h), so that one boot can compare them under
 * the same load: that is what the amlat benchmark does.
 */
#ifndef _KERNEL_RCU_RT_H
#define _KERNEL_RCU_RT_H

#include <rcupdate.h>
#include <rcu_rt.h>		/* the modes and their counters */
#include <interrupt.h>
#include <types.h>

#define RCU_RT_NO_LIMIT		(~0UL)

/* ---- krcud offload (rt_offload.c). */
#ifdef CONFIG_RCU_KRCUD_OFFLOAD
extern bool rcu_offload_on;
/* Figure 5: bhlimit from softirq when this CPU's krcud runs, else no limit. */
unsigned long rcu_bh_callback_limit(unsigned int cpu);
/* Callbacks already waiting for krcud on this CPU (order: see rt_offload.c). */
bool rcu_offload_pending(unsigned int cpu);
/* Figure 4 lines 15-16: list's n callbacks go to krcud, which is woken. */
void rcu_offload(unsigned int cpu, struct list_head *list, unsigned long n);
void rcu_offload_cpu_online(unsigned int cpu);	/* threads can run */
void rcu_offload_late_init(void);
void rcu_offload_get_stats(struct rcu_rt_stats *s);
bool rcu_offload_available(void);	/* bhlimit != 0 and krcud started */
#else
static inline unsigned long rcu_bh_callback_limit(unsigned int cpu) { return RCU_RT_NO_LIMIT; }
static inline bool rcu_offload_pending(unsigned int cpu) { return false; }
static inline void rcu_offload(unsigned int cpu, struct list_head *list, unsigned long n) { }
static inline void rcu_offload_cpu_online(unsigned int cpu) { }
static inline void rcu_offload_late_init(void) { }
static inline void rcu_offload_get_stats(struct rcu_rt_stats *s) { }
#endif

/* ---- Throttling (rt_throttle.c). */
#ifdef CONFIG_RCU_THROTTLE
extern bool rcu_throttle_on;
/* rcumaxbatch while throttling is on, else no limit. */
unsigned long rcu_throttle_maxbatch(void);
/* Figure 14 lines 14-16: plug this CPU's donelist for rcuplugticks ticks
 * (with rcuplugticks=0, reschedule the tasklet at once instead). */
void rcu_throttle_plug(unsigned int cpu, struct tasklet_struct *t);
/* Figure 15: may this CPU invoke its donelist now? */
bool rcu_throttle_plugged(unsigned int cpu);
/* RCU_plugticks counted down, from the tick; true when it reached 0 now. */
bool rcu_throttle_tick(unsigned int cpu);
void rcu_throttle_get_stats(struct rcu_rt_stats *s);
bool rcu_throttle_available(void);	/* rcumaxbatch != 0 */
void rcu_throttle_show(void);
#else
static inline void rcu_throttle_show(void) { }
static inline unsigned long rcu_throttle_maxbatch(void) { return RCU_RT_NO_LIMIT; }
static inline void rcu_throttle_plug(unsigned int cpu, struct tasklet_struct *t) { }
static inline bool rcu_throttle_plugged(unsigned int cpu) { return false; }
static inline bool rcu_throttle_tick(unsigned int cpu) { return false; }
static inline void rcu_throttle_get_stats(struct rcu_rt_stats *s) { }
#endif

/* ---- Direct invocation (rt_direct.c). */
#ifdef CONFIG_RCU_CALL_RT_DIRECT
extern bool rcu_direct_on;
void rcu_direct_get_stats(struct rcu_rt_stats *s);
#else
static inline void rcu_direct_get_stats(struct rcu_rt_stats *s) { }
#endif

/* ---- For the variant (rt_mode.c, always built; its run-time switches,
 * for benchmarks and tests: include/rcu_rt.h). */
/* From the variant's late init: start krcud, say which options are on. */
void rcu_rt_late_init(void);
#endif
