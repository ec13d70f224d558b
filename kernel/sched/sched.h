/*
 * kernel/sched internals: the per-CPU run queue and the helpers the
 * scheduler's files share. Nothing outside kernel/sched includes this
 * (gdb reads `runqueues` by name: tools/gdb/sched.py).
 */
#ifndef _KERNEL_SCHED_SCHED_H
#define _KERNEL_SCHED_SCHED_H

#include <sched.h>
#include <spinlock.h>
#include <list.h>

/*
 * Lock order: a wait queue's, a semaphore's or a mutex's lock, or a CPU's
 * sleep_lock, may be held while taking run-queue locks; never the other
 * way round. Two run-queue locks are taken lower CPU number first
 * (double_rq_lock). Every run-queue lock is taken with interrupts off.
 */
struct rq {
	spinlock_t lock;
	unsigned int cpu;
	unsigned int nr_running;	/* tasks on the lists (the running one too) */
	unsigned long bitmap[PRIO_BITMAP_LONGS];	/* bit p: queue[p] non-empty */
	struct list_head queue[NR_PRIO];
	struct task *curr;		/* running now */
	struct task *idle;		/* this CPU's idle task, on no list */
	u64 idle_enter_tsc;		/* when idle last got the CPU */
	u64 idle_tsc;			/* TSC cycles spent in idle, closed intervals */
	unsigned long next_balance;	/* jiffies */
	struct sched_stats stats;

	/* Timed sleepers (schedule_timeout), checked by this CPU's tick. */
	spinlock_t sleep_lock;
	struct list_head sleepers;
};

DECLARE_PER_CPU(struct rq, runqueues);

#define cpu_rq(cpu)	per_cpu_ptr(&runqueues, (cpu))
#define this_rq()	this_cpu_ptr(&runqueues)

/* Switch modes for __schedule(). */
enum sched_mode {
	SM_NONE,	/* schedule(): block if the state says so, else just re-pick */
	SM_YIELD,	/* yield(): go to the tail of our priority */
	SM_PREEMPT,	/* involuntary: preempt_enable() or interrupt return */
};

void __schedule(enum sched_mode mode);
/* Releases the run-queue lock the previous task's __schedule() took. */
void finish_task_switch(struct task *prev) __releases(&rq->lock);
/* Lock the run queue p is on (interrupts must be off); it may move meanwhile. */
struct rq *task_rq_lock(struct task *p) __acquires(&rq->lock);
void double_rq_lock(struct rq *a, struct rq *b) __acquires(&a->lock) __acquires(&b->lock);
void double_rq_unlock(struct rq *a, struct rq *b) __releases(&a->lock) __releases(&b->lock);
void enqueue_task(struct rq *rq, struct task *p, bool head);
void dequeue_task(struct rq *rq, struct task *p);
/* Off the queue but still runnable (TASK_ON_RQ_MIGRATING): whoever calls
 * this queues p again, here or on another CPU. */
void dequeue_task_migrating(struct rq *rq, struct task *p);

static inline bool task_on_rq_queued(const struct task *p)
{
	return p->on_rq == TASK_ON_RQ_QUEUED;
}
void check_preempt(struct rq *rq, struct task *p);
void resched_curr(struct rq *rq);
void flush_resched_ipis(void);
unsigned int select_task_cpu(struct task *p);
int normal_time_slice(void);

/* migrate.c */
void migrate_after_switch(struct task *p);
void load_balance_tick(struct rq *rq);
bool move_queued_task(struct task *p, unsigned int from, unsigned int to);

/* CPU hotplug (hotplug.c moves a dying CPU's work with these). */
void sleepers_migrate(unsigned int from, unsigned int to);
/* Ctrl-T: which CPUs are online, the hotplug counts and latencies. */
void cpu_hotplug_show(void);
/*
 * May the task running here be preempted? Not if it is a per-CPU kernel
 * thread of a CPU that is going down: it parks at a voluntary switch of
 * its own (hotplug.c). For may_preempt(), so cheap when no CPU is.
 */
bool hotplug_holds_preemption(struct task *p);

/* stats.c: the scheduler's Ctrl-T report (include/sysrq.h), from sched_init(). */
void sched_register_sysrq(void);

/* kthread.c */
void task_list_add(struct task *p);
void task_list_del(struct task *p);
void task_init_common(struct task *p, const char *name);

/* switch.asm */
struct task *switch_to_asm(struct task *prev, struct task *next);
void kthread_trampoline(void);

static inline void preempt_count_set(int v)
{
	__asm__ __volatile__("movl %0, %%gs:32" :: "r"(v) : "memory");
}

#endif
