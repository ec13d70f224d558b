/*
 * The realtime options of seed 003 as a benchmark or a test drives them:
 * whichever of krcud offload, direct invocation and throttling is built
 * in (kernel/rcu/rt.h, docs/rcu/realtime.md) can be switched off and on
 * at run time, so that one boot measures seed 003 Table 1's rows side by
 * side under the same load (kernel/bench/bench_amlat.c). Implemented in
 * kernel/rcu/rt_mode.c, built with every variant; without an option, only
 * its row is missing.
 */
#ifndef _RCU_RT_H
#define _RCU_RT_H

#include <types.h>

/* The configurations of seed 003 Table 1. */
enum rcu_rt_mode {
	RCU_RT_BASE,		/* stock rcu-ltimer: the whole batch from softirq */
	RCU_RT_KRCUD,		/* bhlimit, the rest to krcud */
	RCU_RT_DIRECT,		/* call_rcu_rt() calls the callback */
	RCU_RT_THROTTLE,	/* rcumaxbatch per softirq, then rcuplugticks */
	NR_RCU_RT_MODES
};

extern const char *const rcu_rt_mode_names[NR_RCU_RT_MODES];

/* Counters for the benchmark, the torture checks and gdb. */
struct rcu_rt_stats {
	unsigned long offloaded;	/* callbacks handed to krcud */
	unsigned long offloads;		/* times rcu_do_batch() stopped at bhlimit */
	unsigned long krcud_invoked;	/* callbacks krcud ran */
	unsigned long plugs;		/* times rcu_do_batch() stopped at rcumaxbatch */
	unsigned long direct;		/* call_rcu_rt() calls that ran the callback */
};

/* Is this configuration built in? (RCU_RT_BASE always is.) */
bool rcu_rt_mode_available(enum rcu_rt_mode m);
/* Switch every option off, then m's on; -1 if m is not built in. */
int rcu_rt_set_mode(enum rcu_rt_mode m);
/* The options on now, as a short string ("krcud+throttle", "base"). */
const char *rcu_rt_mode_desc(char *buf, int len);
/* The switches as they are (a bit per mode), to put back afterwards. */
unsigned int rcu_rt_save(void);
void rcu_rt_restore(unsigned int saved);
void rcu_rt_get_stats(struct rcu_rt_stats *s);

#endif
