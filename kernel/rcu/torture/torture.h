/*
 * rcutorture: what the torture files share (the files of kernel/rcu/torture).
 *
 *   torture.c          parameters, the run (start, stats passes, stop,
 *                      verdict, summary) and the KTESTs
 *   torture_writer.c   the element pool, the writer, the fake writers
 *   torture_barrier.c  the rcu_barrier() tester and its KTESTs
 *   torture_readers.c  reader threads and timer (softirq) readers, the
 *                      Reader Pipe and Reader Batch histograms
 *   torture_flood.c    the callback-flood forward-progress test
 *   torture_fwd.c      forward progress: an unbounded call_rcu() flood
 *                      beside a reader-free loop
 *   torture_readexit.c bursts of tasks that read and exit
 *   torture_segments.c reader segments: sections extended by irqs-,
 *                      softirqs- and preemption-off segments
 *   torture_srcu.c     SRCU's polled API against SRCU readers
 *
 * The idea is Linux's kernel/rcu/rcutorture.c (docs/rcu/torture.md): one
 * writer keeps replacing the element that rcu_torture_current points to
 * and retires the old one through a grace period; every retired element
 * carries a pipeline age that goes up by one each time a grace period
 * ends after its retirement. Readers note the age of the element they
 * hold. Age 0 is the current element; age 1 is retired, with a grace
 * period still in progress, which readers may legally see; age 2 or more
 * means a whole grace period ended while a reader held the element: RCU
 * is broken.
 */
#ifndef _RCU_TORTURE_H
#define _RCU_TORTURE_H

#include <rcupdate.h>
#include <atomic.h>
#include <percpu.h>

/* Ages 0..RCU_TORTURE_PIPE_LEN; an element is freed on reaching the last. */
#define RCU_TORTURE_PIPE_LEN	10

/* rtort_mark while an element is live; kfree() overwrites it with poison. */
#define RTORT_MARK		0x5254525452545254UL	/* "TRTRTRTR" */
#define RTORT_POISON		0x6b6b6b6b6b6b6b6bUL	/* POISON_FREE bytes */

struct rcu_torture {
	struct rcu_head rtort_rcu;
	unsigned long rtort_mark;	/* RTORT_MARK, or poison once freed */
	int rtort_pipe_count;		/* grace periods since retirement, +1 */
	unsigned long rtort_version;	/* the writer's version that installed it */
	struct list_head rtort_removed;	/* on the writer's synchronous list */
};

/* ---- The writer's grace-period kinds (torture.gp, a mask): the API matrix. */
#define TORTURE_GP_CALL		0x01	/* call_rcu() */
#define TORTURE_GP_SYNC		0x02	/* synchronize_rcu() */
#define TORTURE_GP_EXP		0x04	/* synchronize_rcu_expedited() */
#define TORTURE_GP_POLL		0x08	/* start_poll_synchronize_rcu() + poll_state */
#define TORTURE_GP_COND		0x10	/* get_state + cond_synchronize_rcu() */
#define TORTURE_GP_SRCU		0x20	/* SRCU's polled API, its own readers and writers */
#define TORTURE_GP_WRITER	0x1f	/* the kinds the writer retires elements by */
#define TORTURE_GP_ALL		0x3f

/* ---- Parameters (torture.c; kernel command line, docs/rcu/torture.md). */
struct torture_params {
	unsigned long duration_s;	/* torture.duration */
	unsigned long stat_interval_s;	/* torture.stat_interval */
	unsigned long nreaders;		/* torture.nreaders: 0 = one per CPU */
	unsigned long nfakewriters;	/* torture.nfakewriters */
	unsigned long irqreader;	/* torture.irqreader: timer readers on/off */
	unsigned long flood;		/* torture.flood: callbacks, 0 = no flood */
	unsigned long flood_bound;	/* torture.flood_bound: pending at most */
	unsigned long barrier_cbs;	/* torture.barrier: callbacks per CPU per round */
	unsigned long long_delay_us;	/* torture.long_delay: longest reader delay */
	unsigned long long_every;	/* torture.long_every: 1 read in N is long */
	unsigned long stutter_ms;	/* torture.stutter: run/pause cycle, 0 = none */
	unsigned long segments;		/* torture.segments: reader-segment threads on/off */
	unsigned long gp_mask;		/* torture.gp: writer kinds (TORTURE_GP_*) */
	unsigned long fwd;		/* torture.fwd: forward-progress flood on/off */
	unsigned long fwd_pct;		/* torture.fwd_pct: its length, % of the stall time */
	unsigned long read_exit;	/* torture.read_exit: tasks per read-then-exit burst */
	unsigned long seed;		/* torture.seed: 0 = drawn from the TSC */
};
extern struct torture_params torture_params;

/* ---- Error counters, all atomic (readers run in threads and softirqs). */
struct torture_errors {
	atomic_long_t pipe;		/* a reader saw age > 1 */
	atomic_long_t gp;		/* a grace period began and ended inside a reader */
	atomic_long_t mark;		/* a reader saw poison (freed element) */
	atomic_long_t reuse;		/* the element changed under a reader */
	atomic_long_t barrier;		/* rcu_barrier() returned early */
	atomic_long_t poll;		/* polled API said "done" too early / never */
	atomic_long_t cb_lost;		/* a callback never ran */
	atomic_long_t flood;		/* flood: no progress, or over its bound */
	atomic_long_t stall;		/* the writer made no progress in a pass */
	atomic_long_t alloc;		/* kmalloc() failed */
	atomic_long_t segment;		/* a reader segment chain lost its element */
	atomic_long_t hotplug;		/* torture.onoff: a cpu_down()/cpu_up() failed */
	atomic_long_t exp;		/* an expedited grace period ended inside its reader */
	atomic_long_t srcu;		/* an SRCU cookie done with a reader from before it inside */
};
extern struct torture_errors torture_errors;
long torture_error_total(void);
/* Print the first few errors of each kind, then only count them. */
__printf(1, 2) void torture_report(const char *fmt, ...);

/* ---- Shared run state. */
extern volatile bool torture_stopping;	/* set once: every thread winds down */
extern struct rcu_torture __rcu *rcu_torture_current;
extern volatile unsigned long rcu_torture_current_version;

/* Per-thread pseudo-random numbers (xorshift64*), each thread's stream
 * drawn from the run's seed (torture.seed=, else the TSC at the start)
 * and the thread's salt. */
struct torture_rand {
	u64 state;
};
void torture_rand_init(struct torture_rand *r, unsigned long salt);
unsigned long torture_random(struct torture_rand *r);

/* Sleep a few jiffies unless the run is stopping (the torture threads' pause). */
void torture_sleep(long jiffies);
/* Stutter (torture.stutter): while the run pauses, wait for it to go on. */
void torture_stutter_wait(void);

/* ---- CPU hotplug during the run (torture_onoff.c, torture.onoff=MS). */
int torture_onoff_start(void);
void torture_onoff_stop(void);

/* ---- Writer side (torture_writer.c). */
struct torture_writer_stats {
	atomic_long_t alloc, free;	/* elements */
	atomic_long_t wcount[RCU_TORTURE_PIPE_LEN + 1];	/* elements reaching each age */
	atomic_long_t by_call_rcu, by_sync, by_exp, by_poll, by_cond;	/* retirements */
	atomic_long_t cbs_queued, cbs_invoked;	/* torture's own call_rcu()s */
	atomic_long_t fake_ops, barrier_rounds;
	atomic_long_t exp_long;		/* expedited grace periods held to a long reader */
};
extern struct torture_writer_stats torture_wstats;

int torture_writer_start(void);
bool torture_writer_stop(void);		/* join writer, fake writers, barrier tester */
void torture_writer_drain(void);	/* free every element; counts losses */

/* ---- The rcu_barrier() tester (torture_barrier.c), started and joined
 * with the writers. */
int torture_barrier_start(void);
struct task **torture_barrier_task(void);

/* ---- Readers (torture_readers.c). */
struct torture_reader_stats {
	atomic_long_t pipe[RCU_TORTURE_PIPE_LEN + 1];	/* Reader Pipe */
	atomic_long_t batch[RCU_TORTURE_PIPE_LEN + 1];	/* Reader Batch */
	atomic_long_t reads, timer_reads, irq_reads, null_reads;
	atomic_long_t long_reads;	/* thread reads that took torture.long_delay */
	atomic_long_t gp_waits;		/* thread reads that waited for a grace period to begin */
	atomic_long_t call_rcu_reads;	/* thread reads that queued a callback and ran softirqs */
	atomic_long_t preempted, migrated;	/* preemptible readers (rcu-preempt) */
	atomic_long_t offline_reads;	/* reads on a CPU out of cpu_online_mask */
};
DECLARE_PER_CPU(struct torture_reader_stats, torture_rstats);

int torture_readers_start(void);
unsigned long torture_offline_reads(void);	/* summed over CPUs */
void torture_readers_stop(void);
void torture_reader_hist(unsigned long pipe[], unsigned long batch[],
			 unsigned long *reads, unsigned long *timer_reads);
void torture_reader_preemptions(unsigned long *preempted, unsigned long *migrated);
void torture_reader_mix(unsigned long *irq, unsigned long *longr, unsigned long *gpw,
			unsigned long *cbr);

/* ---- Reader segments (torture_segments.c). */
int torture_segments_start(void);
void torture_segments_stop(void);

/* ---- Read-then-exit bursts (torture_readexit.c). */
int torture_readexit_start(void);
void torture_readexit_stop(void);

/* ---- SRCU's polled API (torture_srcu.c, torture.gp bit 32). */
int torture_srcu_start(void);
void torture_srcu_stop(void);
extern atomic_long_t torture_srcu_reads, torture_srcu_polls;

/* ---- Forward progress (torture_fwd.c). */
int torture_fwd_start(void);
void torture_fwd_stop(void);

/* ---- Callback flood (torture_flood.c). */
struct torture_flood_stats {
	atomic_long_t queued, invoked;
	long max_pending;		/* most callbacks the flood had pending */
	long max_rcu_pending;		/* most rcu_pending_callbacks() seen */
	long max_objects;		/* most kmalloc live objects above the start */
	unsigned long throttles;	/* times the flood waited at its bound */
	u64 start_ns, end_ns;		/* first call_rcu() .. last callback */
	bool done;
};
extern struct torture_flood_stats torture_fstats;

int torture_flood_start(void);
/* Wait for the flood to finish (all queued, all invoked). false on time-out. */
bool torture_flood_stop(unsigned long timeout_s);
/* Objects the flood may have alive beyond its own pending callbacks. */
#define TORTURE_FLOOD_SLACK	4096

#endif
