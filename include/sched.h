/*
 * The scheduler (kernel/sched): tasks, per-CPU run queues, preemption.
 *
 * Every CPU has a run queue with one FIFO list per priority and a bitmap of
 * the non-empty lists (Linux 2.6's O(1) scheduler, without the expired
 * array): priorities 0..99 are real time (SCHED_FIFO, SCHED_RR; lower
 * number, higher priority), priority 100 holds every SCHED_NORMAL task,
 * round-robin by time slice. The running task stays at the head of its
 * list; the idle task is on no list and runs when the bitmap is empty.
 *
 * Voluntary and involuntary switches (docs/scheduler.md): a switch is
 * voluntary when the task entered the scheduler itself: it blocked, or
 * called yield(), cond_resched() or schedule(); involuntary when it was
 * preempted, at preempt_enable() or on return from an interrupt
 * (CONFIG_KPREEMPT only). RCU is told which (rcu_hook_context_switch):
 * a voluntary switch is a quiescent state (seed 000 section 2.6).
 */
#ifndef _SCHED_H
#define _SCHED_H

#include <compiler.h>
#include <percpu.h>
#include <preempt.h>
#include <cpumask.h>
#include <list.h>
#include <atomic.h>
#include <wait.h>
#include <completion.h>
#include <errno.h>
#include <arch/cpu.h>
#include <lockdep.h>
#include <rcupdate.h>

struct process;

/* Task states (a sleeping task is in one of the TASK_NORMAL states). */
#define TASK_RUNNING		0x00	/* on a run queue, or running */
#define TASK_INTERRUPTIBLE	0x01	/* asleep; task_interrupt() also wakes it */
#define TASK_UNINTERRUPTIBLE	0x02	/* asleep until its condition comes */
#define TASK_NEW		0x04	/* created, never woken yet */
#define TASK_DEAD		0x08	/* exited; freed when the last reference goes */
#define TASK_NORMAL		(TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE)

/* Scheduling policies (the POSIX names). */
#define SCHED_NORMAL		0
#define SCHED_FIFO		1
#define SCHED_RR		2

#define MAX_RT_PRIO		100	/* prio 0..99: real time; rt_priority 1..99 */
#define NORMAL_PRIO		MAX_RT_PRIO
#define NR_PRIO			(MAX_RT_PRIO + 1)
#define PRIO_BITMAP_LONGS	((NR_PRIO + 63) / 64)

#define TASK_COMM_LEN		16
#define TASK_STACK_ORDER	2	/* 16 KiB kernel stacks */
#define TASK_STACK_SIZE		(4096UL << TASK_STACK_ORDER)
#define TASK_MAGIC		0x7a5c0ffee7a5c0feUL	/* struct task, until freed */
#define STACK_END_MAGIC		0x57ac6e9d5ac6e9d5UL	/* at the bottom of each stack */

struct srcu_struct;

/*
 * task->on_rq. Runnable tasks are QUEUED on their CPU's run queue (the
 * running one included). MIGRATING: still runnable, but off every queue
 * for a while, under the run-queue locks: being moved to another CPU or
 * requeued at another priority, or, longest, preempted on a CPU its
 * affinity excludes until migrate_after_switch() queues it elsewhere.
 * Readers without the lock (Tasks RCU's scan) see only 0 for a task that
 * blocked or exited, never for one that is merely moving; the scheduler
 * itself asks task_on_rq_queued() before it touches the queue. As
 * Linux's TASK_ON_RQ_MIGRATING.
 */
#define TASK_ON_RQ_QUEUED	1
#define TASK_ON_RQ_MIGRATING	2

struct task {
	unsigned long rsp;		/* saved stack pointer; offset 0 (switch.asm) */
	volatile long state;		/* TASK_* */
	char name[TASK_COMM_LEN];
	int pid;
	int policy;			/* SCHED_* */
	int rt_priority;		/* 1..99 for FIFO/RR, 0 for NORMAL */
	int prio;			/* run-queue index: 0..99 RT, NORMAL_PRIO */
	int cpu;			/* run queue it is on, or last ran on */
	int on_rq;			/* 0 or TASK_ON_RQ_*: below */
	int time_slice;			/* ticks left (NORMAL and RR) */
	/* rcu-preempt's read-side depth (kernel/rcu keeps it). Here, before
	 * the fields whose size the build decides, at the fixed offset that
	 * its inline rcu_read_lock() uses (kernel/rcu/read_side.h). */
	int rcu_read_lock_nesting;
	cpumask_t cpus_allowed;
	bool is_idle;
	bool migrate_pending;		/* moved off its CPU once switched out */
	bool preempted;			/* its last switch away was involuntary */
	int saved_preempt_count;	/* preempt_count while switched out */

	/* For RCU (kernel/rcu keeps these; the scheduler only holds them). */
#ifdef CONFIG_KASAN
	u64 rcu_read_since;		/* TSC at its outermost rcu_read_lock() */
#endif
	void *rcu_preempt_cntr;		/* seed 000 Figure 33's cpu_preempt_cntr */
	unsigned long rcu_tasks_qs;	/* Tasks RCU: voluntary switches, user ticks */
	/* PROVE_RCU: the SRCU domains whose read lock this task holds (srcu.c). */
	struct srcu_struct *srcu_held[4];
	unsigned int srcu_held_depth;
	/* SRCU read-side depth, every domain (srcu.h; may it freeze? srcu.c). */
	int srcu_read_nesting;

	/* Statistics. */
	unsigned long nvcsw, nivcsw;	/* voluntary / involuntary switches away */
	unsigned long migrations;
	unsigned long wakeups;
	u64 wake_tsc;			/* TSC when last woken (latency benchmark) */
	u64 sum_exec_ns;		/* time on a CPU */
	u64 exec_start_tsc;

	struct list_head run_list;	/* rq->queue[prio] */
	struct list_head tasks;		/* all_tasks: task_list_lock writes, RCU reads */
	struct hlist_node pid_node;	/* pid_hash: the same */
	struct rcu_head rcu;		/* put_task() frees through call_rcu() */
	unsigned long magic;		/* TASK_MAGIC while allocated (poison catches) */
#ifdef CONFIG_KCSAN
	int kcsan_disable;		/* data_race() nesting: this task's accesses not checked */
#endif
#ifdef CONFIG_KCOV
	/* KCOV (kernel/kcov): the PCs this task's own code ran, for a fuzzer. */
	u64 *kcov_area;			/* kcov_size PCs, kcov_pos of them written */
	unsigned long kcov_size, kcov_pos;
	int kcov_mode;			/* 1: recording (set after the area) */
	bool kcov_overflow;		/* PCs dropped since the last read */
#endif
	struct list_head sleep_list;	/* a CPU's timed sleepers */
	unsigned long sleep_expires;	/* jiffies */
	int sleep_cpu;			/* whose sleep list, -1 if none */

	unsigned long stack;		/* lowest address of the kernel stack */
	unsigned long stack_size;
	bool stack_owned;		/* allocated by us (not a boot stack) */
	int (*fn)(void *arg);
	void *arg;
	int exit_code;
	atomic_t usage;			/* references; freed at zero */
	volatile bool should_stop;	/* kthread_stop() asked */
	volatile bool interrupted;	/* task_interrupt(): wake interruptible sleeps */
	struct completion exited;

	/* User mode (kernel/proc): NULL and 0 for kernel threads. */
	struct process *proc;		/* the process this task runs */
	unsigned long cr3;		/* its page tables; 0: the kernel's */

	struct lockdep_task lockdep;	/* locks held (empty without PROVE_LOCKING) */
};

/* The task running on this CPU. */
static __always_inline struct task *get_current(void)
{
	struct task *t;
	__asm__ __volatile__("movq %%gs:24, %0" : "=r"(t));
	return t;
}
/*
 * Linux's name. (struct cpu_local's field of the same name is reached
 * through get_current()/set_current(), never as cpu_local()->current,
 * which this macro would turn into nonsense.)
 */
#define current get_current()

static __always_inline void set_current(struct task *t)
{
	__asm__ __volatile__("movq %0, %%gs:24" :: "r"(t) : "memory");
}

static inline bool preemptible(void)
{
	return preempt_count() == 0 && !irqs_disabled();
}

/* Reschedule as soon as allowed on this CPU. */
static inline void set_need_resched(void)
{
	WRITE_ONCE(cpu_local()->need_resched, 1);
}
/* Make another CPU (or this one) pass through the scheduler soon. */
void resched_cpu(unsigned int cpu);
static inline bool need_resched(void)
{
	return READ_ONCE(cpu_local()->need_resched);
}

/*
 * After re-enabling interrupts: preempt now if a wake-up asked for it while
 * they were off (spin_unlock_irqrestore() drops the preempt count before
 * it restores interrupts, so its own check comes too early).
 */
void preempt_schedule(void);
static inline void preempt_check_resched(void)
{
#ifdef CONFIG_KPREEMPT
	if (unlikely(need_resched()) && preemptible())
		preempt_schedule();
#endif
}

static inline bool rt_task(const struct task *p)
{
	return p->prio < MAX_RT_PRIO;
}

static inline bool signal_pending(const struct task *p)
{
	return READ_ONCE(p->interrupted);
}

/* ---- Core (kernel/sched/core.c). */
void sched_init(void);			/* boot CPU: the boot context becomes idle task 0 */
void schedule(void);
void yield(void);
int cond_resched(void);			/* 1 if it switched */
bool wake_up_process(struct task *p);
bool try_to_wake_up(struct task *p, long state);
/* Policy and real-time priority; 0 or -EINVAL. */
int sched_setscheduler(struct task *p, int policy, int rt_priority);
/* Move p to the CPUs in mask (now if it is running or queued). 0 or -EINVAL. */
int set_cpus_allowed(struct task *p, const cpumask_t *mask);
int set_cpus_allowed_one(struct task *p, unsigned int cpu);
/* Seed 003 Figure 2: is a real-time task runnable on cpu? */
bool rq_has_rt_task(unsigned int cpu);
bool idle_cpu(unsigned int cpu);
unsigned int nr_running_cpu(unsigned int cpu);
struct task *cpu_curr(unsigned int cpu);
/* Wake task_interrupt()ed sleepers: INTERRUPTIBLE sleeps return -EINTR. */
void task_interrupt(struct task *p);

/* Run-time preemption switch (CONFIG_KPREEMPT only): false makes the
 * preemptive kernel behave as the non-preemptive one, so one boot can
 * compare both (the latency benchmark). Always false without CONFIG_KPREEMPT. */
extern bool sched_preempt_active;
const char *preempt_model_name(void);	/* "kpreempt" or "none": the model built in */
void sched_set_preempt(bool on);

/* ---- Timed sleeps (kernel/sched/sleep.c). */
#define MAX_SCHEDULE_TIMEOUT	((long)(~0UL >> 1))
/* Sleep in the state the caller set for up to timeout jiffies; the jiffies left. */
long schedule_timeout(long timeout);
long schedule_timeout_interruptible(long timeout);
long schedule_timeout_uninterruptible(long timeout);
void msleep(unsigned int ms);
void sched_sleep_tick(void);		/* wake this CPU's expired sleepers */

/* ---- Kernel threads (kernel/sched/kthread.c). */
/*
 * kthread_create() returns a new task in TASK_NEW: not yet running, with
 * two references, its own and the caller's. Start it with
 * wake_up_process(). The caller drops its reference with kthread_join()
 * (wait for the exit, get the exit code), kthread_stop() (ask it to stop
 * first) or put_task() (let it go). fn's return value is the exit code.
 */
__printf(3, 4) struct task *kthread_create(int (*fn)(void *), void *arg, const char *fmt, ...);
__printf(3, 4) struct task *kthread_run(int (*fn)(void *), void *arg, const char *fmt, ...);
__printf(4, 5) struct task *kthread_create_on_cpu(int (*fn)(void *), void *arg,
						  unsigned int cpu, const char *fmt, ...);
void kthread_bind(struct task *p, unsigned int cpu);	/* before the first wake-up */
int kthread_join(struct task *p);
/* Jiffies to wait: true and *code if it exited, false (reference kept) on time-out. */
bool kthread_join_timeout(struct task *p, long timeout, int *code);
int kthread_stop(struct task *p);
bool kthread_should_stop(void);
__noreturn void task_exit(int code);
/*
 * A task made whole before anyone can find it: kthread_create_unlisted()
 * is kthread_create() without the publication, so that the caller can
 * fill in what readers of the task list rely on (a process's t->proc)
 * before kthread_publish() puts it on the list and in the PID hash; the
 * list's rcu_assign_pointer() orders those stores before it.
 */
__printf(3, 4) struct task *kthread_create_unlisted(int (*fn)(void *), void *arg,
						  const char *fmt, ...);
void kthread_publish(struct task *p);
/*
 * Take p out of the PID hash before task_exit() does (it stays on the
 * task list): a process does so before it is published a zombie, so that
 * once its parent can reap it, no new kill() can find it by pid.
 */
void task_unhash_pid(struct task *p);
bool task_pid_hashed(struct task *p);
void get_task(struct task *p);
void put_task(struct task *p);
/* Queue on call_rcu() the dead tasks put_task() parked with interrupts
 * off (rcu_barrier() calls it first, so that it waits for their free). */
void dead_tasks_flush(void);
/*
 * The task list (seed 001 Table 4): every task, kernel threads and idle
 * tasks included, is on one list and in a PID hash from creation until
 * task_exit(). With tasklist=rcu (the default) readers walk them under
 * rcu_read_lock() and never block fork or exit; a task's memory is freed
 * by call_rcu() once its last reference goes. tasklist=lock makes the
 * readers take task_list_lock instead (side-by-side measurement).
 *
 * Call fn on every task, under rcu_read_lock() or task_list_lock (with
 * interrupts off) as tasklist= says: fn must not sleep.
 */
void for_each_task(void (*fn)(struct task *p, void *arg), void *arg);
/* The task with this pid, under rcu_read_lock(): valid until the unlock. */
struct task *find_task_by_pid(int pid);
/* The same with a reference (put_task()), or NULL; takes the lock it needs. */
struct task *get_task_by_pid(int pid);
/* A reference on p unless its count already reached zero (being freed). */
bool get_task_unless_zero(struct task *p);
bool tasklist_is_rcu(void);
void tasklist_set_rcu(bool rcu);	/* benchmarks switch modes in one boot */
void show_tasks(void);
const char *task_state_name(long state);	/* "R", "S", "D", "N", "X" as show_tasks() prints */
/* Task structs allocated and not yet freed (idle tasks included). */
long nr_tasks_alive(void);

/* ---- might_sleep (kernel/sched/might_sleep.c). */
/*
 * might_sleep(): the caller may block. Warns (with a backtrace, the first
 * few times; every time in the counter) when called in atomic context:
 * preempt_count() != 0 (a spinlock held, preemption disabled, in a hard
 * or soft interrupt) or interrupts disabled. Every blocking primitive
 * calls it.
 */
#define might_sleep()	__might_sleep(__FILE__, __LINE__)
void __might_sleep(const char *file, int line);
unsigned long might_sleep_warnings(void);
/* The non-sleepable RCU flavours add their own reasons here later. */
extern bool (*might_sleep_extra_check)(const char **why);

/* ---- Statistics (kernel/sched/stats.c). */
struct sched_stats {
	unsigned long nr_switches;	/* pick of a different task */
	unsigned long nvcsw, nivcsw;	/* voluntary / involuntary (by prev) */
	unsigned long schedule_calls;	/* passes through __schedule */
	unsigned long preempt_irq;	/* preemptions on interrupt return */
	unsigned long preempt_enable;	/* preemptions at preempt_enable() */
	unsigned long wakeups, remote_wakeups, resched_ipis;
	unsigned long migrations_in, migrations_out, balance_pulls;
	unsigned long idle_ticks;
	u64 idle_ns;			/* time in the idle task (closed intervals) */
};
void sched_get_stats(unsigned int cpu, struct sched_stats *out);	/* idle_ns up to now */
void sched_show_stats(void);

#endif
