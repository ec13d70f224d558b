/*
 * What kernel/rcu's variant-independent files and each variant share. Not
 * for use outside kernel/rcu/: kernel/test has include/rcu_test.h.
 *
 * A variant (kernel/rcu/rcu_<name>.c) provides:
 *   call_rcu(), the hooks of include/rcu_hooks.h, rcu_variant_id and
 *   rcu_variant_paper, rcu_variant_init() (boot, before other CPUs run),
 *   rcu_variant_init_cpu() (each CPU's data, on that CPU before its first
 *   tick) and rcu_variant_late_init() (threads can run),
 *   rcu_variant_stall_info() (which CPUs still owe a quiescent state),
 *   rcu_variant_show_state() (its own data, for stall warnings and the
 *   console; the gdb view reads the same data by name), and, if it polls
 *   remote counters, rcu_variant_remote_qs_counter() (include/rcu_test.h;
 *   update.c's weak default says NULL).
 * and calls, from its own code:
 *   rcu_gp_count_start() the instant a grace period starts, before it
 *   looks at any CPU, rcu_gp_begin() once it is set up, rcu_gp_end() when
 *   it ends (gp_sequence.c);
 *   rcu_invoke_callbacks() to run a list of done callbacks (invoke.c);
 *   rcu_stats_queued() in call_rcu() and the other rcu_stats_*() (stats.c);
 *   rcu_check_stall() from its tick hook (stall.c).
 */
#ifndef _RCU_INTERNAL_H
#define _RCU_INTERNAL_H

#include <kasan.h>
#include <rcupdate.h>
#include <rcu_test.h>		/* what kernel/test may read of the below */
#include <cpumask.h>
#include <percpu.h>
#include <trace.h>

/* ---- The grace-period sequence (gp_sequence.c). */

struct rcu_gp_seq {
	unsigned long started;		/* grace periods begun: rcu_gp_started() */
	unsigned long completed;	/* grace periods ended: rcu_gp_completed() */
	u64 start_ns;			/* when the last one began (rcu_gp_begin()) */
};
extern struct rcu_gp_seq rcu_gp_seq;

void rcu_gp_count_start(void);		/* first, before any CPU is looked at */
void rcu_gp_begin(unsigned long gpnum);	/* once set up (CPUs marked): gdb stops here */
void rcu_gp_end(unsigned long gpnum);
bool rcu_gp_in_progress(void);

/*
 * Which sections besides rcu_read_lock()'s this variant's design counts
 * as read-side (rcutorture's reader segments ask): a variant whose
 * quiescent states are context switches and user or idle ticks is not
 * reached by any of them; rcu-preempt's readers are tracked only through
 * rcu_read_lock(). update.c's weak default answers from the read side.
 */
#define RCU_EXT_PREEMPT		0x1	/* preempt_disable() */
#define RCU_EXT_IRQ		0x2	/* local_irq_disable() */
#define RCU_EXT_BH		0x4	/* local_bh_disable() */
unsigned int rcu_read_side_extensions(void);

/* ---- Invoking callbacks (invoke.c). */

/* Run and unlink every rcu_head on list (seed 000 Figure 38). */
void rcu_invoke_callbacks(struct list_head *list);
/* Unlink and run list's first rcu_head (the realtime options'
 * rcu_do_batch(), kernel/rcu/rt.h); rcu_stats_batch(n) after n of them. */
void rcu_invoke_one(struct list_head *list);
void rcu_trace_batch(unsigned long n, u64 t0);	/* invoke.c: a batch for the trace */

/* ---- Statistics (stats.c): counts only, nothing waits on them. */

/* Per CPU. */
struct rcu_cpu_stats {
	unsigned long queued;		/* call_rcu() on this CPU */
	unsigned long invoked;		/* callbacks run on this CPU */
	unsigned long max_batch;	/* most callbacks run in one rcu_invoke_callbacks() */
	unsigned long qs;		/* quiescent states the variant counted */
	unsigned long longest_list;	/* longest callback list the variant reported */
};
DECLARE_PER_CPU(struct rcu_cpu_stats, rcu_cpu_stats);

/* Grace-period latency histogram: bucket i counts latencies < 2^i us. */
#define RCU_GP_HIST_BUCKETS	24

struct rcu_gp_stats {
	unsigned long hist[RCU_GP_HIST_BUCKETS];
	u64 total_ns, max_ns;
	unsigned long stalls;		/* stall warnings given (stall.c) */
};
extern struct rcu_gp_stats rcu_gp_stats;

/*
 * From each variant's call_rcu(), with interrupts off, after head is
 * queued. The trace records the grace period head must wait for: the
 * next one to start (seed 000 section 2: a callback waits for a grace
 * period that begins after it was queued), the polled API's cookie
 * (update.c), which tools/timeline.py's checker holds its invocation to.
 */
/* CONFIG_PROVE_RCU (prove.c): struct rcu_head's debug_state while queued. */
#define RCU_HEAD_QUEUED		0x5155455545440a11UL
void rcu_prove_init(void);
#ifdef CONFIG_PROVE_RCU
bool rcu_prove_queue(struct rcu_head *head, void (*func)(void *arg));
static inline void rcu_prove_dequeue(struct rcu_head *head)
{
	head->debug_state = 0;
}
#else
static inline bool rcu_prove_queue(struct rcu_head *head, void (*func)(void *arg))
{
	kasan_record_queue(head, KASAN_QUEUED_BY_CALL_RCU);	/* for KASAN's reports */
	return true;
}
static inline void rcu_prove_dequeue(struct rcu_head *head) {}
#endif

static inline void rcu_stats_queued(struct rcu_head *head)
{
	/* Read from other CPUs (rcu_pending_callbacks(), qs_stats()): marked. */
	WRITE_ONCE(this_cpu(rcu_cpu_stats).queued, this_cpu(rcu_cpu_stats).queued + 1);
	trace_event(TRACE_RCU, TR_CALL_RCU, head, rcu_gp_started() + 1);
}

/*
 * Where a variant detects CPU cpu's quiescent state for the current grace
 * period: one line at the place its paper's figure does (each variant's
 * header says which), for the timeline (docs/rcu/timeline.md).
 */
static inline void rcu_trace_qs(unsigned int cpu)
{
	trace_event(TRACE_RCU, TR_QS, rcu_gp_started(), cpu);
}

static inline void rcu_stats_qs(void)
{
	this_cpu(rcu_cpu_stats).qs++;
}

void rcu_stats_list_len(unsigned long len);	/* a callback list of len entered a batch */
void rcu_stats_batch(unsigned long n);		/* n callbacks were invoked in one go */
void rcu_stats_gp_latency(u64 ns);		/* from rcu_gp_end() */
void rcu_show_stats(void);			/* Ctrl-T */
void srcu_show_domains(void);			/* Ctrl-T: srcu.c */
void rcu_stats_init(void);			/* registers it, from rcu_hook_init() */

/* ---- Stall warnings (stall.c), from the variant's tick hook. */

struct rcu_stall_info {
	unsigned long gpnum;		/* the grace period in progress */
	cpumask_t owing;		/* CPUs that still owe it a quiescent state */
	char why[128];			/* when no CPU owes one but the grace period is
					 * stuck all the same: what it waits for */
};

void rcu_check_stall(void);
bool rcu_variant_stall_info(struct rcu_stall_info *si);
void rcu_variant_show_state(void);

/* ---- The variant. */

/* The variant's name as data, for gdb (tools/gdb/quiescent.py qs-rcu
 * loads tools/gdb/rcu_<name>.py) and the test runner (tools/qs/build.py);
 * and the paper's name and section for it, for the boot line. */
extern const char rcu_variant_id[];
extern const char rcu_variant_paper[];

/*
 * rcu_break=1 on the command line breaks the built-in variant's own
 * quiescent-state detection on purpose (each variant says how: e.g.
 * counting a quiescent state at every tick, even one that interrupted a
 * reader). rcutorture must then report FAILURE: that is how we know it
 * can catch each variant's mechanism failing, not only the busted one.
 */
extern bool rcu_break;

/*
 * Seed 000 Table 1's "BH/IRQ Safe" column: may call_rcu() be called from
 * hard-IRQ context or with interrupts off? Yes for every variant but the
 * rcu-poll family ("BH only", poll_hooks.c), whose call_rcu() warns there
 * and defers the callback. Whoever queues from an interrupt (torture's
 * rcu_barrier() tester) asks this first (update.c's weak default: yes).
 */
bool rcu_call_rcu_irq_safe(void);
/*
 * The variant's normal grace period forces every CPU through the scheduler
 * itself, at once (rcu-poll's reschedule IPIs, rcu-taskq's daemons):
 * synchronize_rcu_expedited() is then a normal grace period (update.c).
 * Default false.
 */
bool rcu_variant_gp_forced(void);

void rcu_variant_init(void);
void rcu_variant_init_cpu(unsigned int cpu);
/*
 * CPU hotplug (include/rcu_hooks.h, docs/hotplug.md): a variant that can
 * lose a CPU defines rcu_variant_hotplug = true and these two; the others
 * keep update.c's defaults and cpu_down() refuses them.
 */
extern bool rcu_variant_hotplug;
void rcu_variant_cpu_offline(unsigned int cpu);
void rcu_variant_cpu_reonline(unsigned int cpu);
void rcu_variant_cpu_dead(unsigned int cpu);
bool rcu_variant_task_may_freeze(struct task *p);
/* The same question for SRCU (srcu.c), every variant. */
bool srcu_task_may_freeze(struct task *p);
void rcu_variant_late_init(void);

/* Has rcu_variant_init_cpu() run for this CPU? (update.c; for the tick
 * hook, which can run on the boot CPU before it has.) */
DECLARE_PER_CPU(bool, rcu_cpu_ready);

static inline bool rcu_this_cpu_ready(void)
{
	return this_cpu(rcu_cpu_ready);
}

#endif
