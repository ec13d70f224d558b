/*
 * The variant-independent half of the RCU API (include/rcupdate.h), built
 * on each variant's call_rcu():
 *
 *   synchronize_kernel(): queue a callback that completes a completion and
 *     wait for it, as the 2.5 kernel did (seed 001: concurrent callers
 *     share grace periods because their callbacks share batches);
 *   rcu_barrier(): first the frees of dead tasks still parked for a
 *     tasklet (put_task() with interrupts off), then one callback per
 *     CPU, queued from that CPU in process context (a work item), and
 *     wait for all: on per-CPU-list variants the
 *     callbacks of one CPU run in order, on global-list ones all of them,
 *     so every earlier one has run. A variant that defers some callbacks
 *     (the rcu-poll family's irqlist) must not let a later call_rcu()
 *     overtake them;
 *   the polled API, from the grace-period counters that every variant
 *     updates through rcu_gp_count_start(), rcu_gp_begin(), rcu_gp_end();
 *   kfree_rcu(), and call_rcu_rt() (= call_rcu() unless the realtime
 *     option replaces it).
 */
#include "rcu_internal.h"
#include <rcu_hooks.h>
#include <cpuhotplug.h>
#include <sched.h>
#include <completion.h>
#include <mutex.h>
#include <workqueue.h>
#include <kmalloc.h>
#include <smp.h>
#include <panic.h>
#include <printk.h>
#include <cmdline.h>

struct rcu_synchronize {
	struct rcu_head head;
	struct completion done;
};

static void wakeme_after_rcu(void *arg)
{
	complete(&((struct rcu_synchronize *)arg)->done);
}

void synchronize_kernel(void)
{
	struct rcu_synchronize rs;

	might_sleep();
	init_completion(&rs.done);
	call_rcu(&rs.head, wakeme_after_rcu, &rs);
	wait_for_completion(&rs.done);
}

/*
 * An expedited grace period for the variants whose readers keep their CPU
 * (all but rcu-preempt; Tree RCU has its own, rcu_tree_exp.c): run a work
 * item on every online CPU. A reader cannot be preempted, migrated or
 * blocked, and its interrupt handlers return before the interrupted code
 * goes on, so by the time a CPU's worker runs that item, every reader
 * that CPU was running when the item was queued has ended: the CPU has
 * passed a quiescent state, forced now instead of waited for. Linux's
 * first synchronize_sched_expedited() forced the same context switch with
 * a stopper thread per CPU.
 *
 * Forcing is not always the faster way. The variants that force their
 * quiescent states already (rcu-poll's reschedule IPIs, rcu-taskq's
 * SCHED_FIFO daemons) end an idle grace period in well under a
 * millisecond, where a worker woken on an idle CPU may not run before
 * that CPU's next tick; and under load the workers wait behind the busy
 * threads, which rcu-sched's and rcu-ltimer's normal grace periods do
 * not. So a normal grace period runs beside the work items, and whichever
 * ends first ends the call: either alone is a full grace period, and an
 * expedited one is never slower than a normal one. The items and the
 * callback outlive a call that the other way ended, so they live in a
 * structure of their own that the last of them frees; a CPU that goes
 * offline meanwhile runs its item first (cpu_down() flushes the system
 * work queue).
 *
 * The race is not free: the work items compete with the machinery of a
 * normal grace period that forces quiescent states itself (rcu-taskq's
 * runs on the same work queue; rcu-poll's tasklet runs in ksoftirqd on
 * the caller's CPU, after its worker), and there it made the call slower
 * than a normal grace period alone. Those variants say so
 * (rcu_variant_gp_forced()) and take the normal grace period only: it
 * already forces every CPU at once.
 *
 * The race does not go through the variant's quiescent-state machinery
 * alone: so rcu_break=1, which breaks that machinery on purpose for
 * torture to catch, takes the normal (broken) path only, as rcu-preempt's
 * preemptible readers do (a switch proves nothing about them).
 */
struct exp_race_cpu {
	struct work_struct work;
	struct exp_race *race;
};

struct exp_race {
	struct rcu_head head;		/* the normal grace period's callback */
	struct completion done;		/* either way is over */
	atomic_t cpus_left;		/* work items yet to run, +1 while queueing */
	atomic_t refs;			/* work items, the callback and the caller */
	struct exp_race_cpu cpu[CONFIG_NR_CPUS];
};

static void exp_race_put(struct exp_race *r)
{
	if (atomic_dec_and_test(&r->refs))
		kfree(r);
}

static void exp_race_cpu_done(struct exp_race *r)
{
	if (atomic_dec_and_test(&r->cpus_left))
		complete(&r->done);
}

static void exp_cpu_passed(struct work_struct *w)
{
	struct exp_race *r = container_of(w, struct exp_race_cpu, work)->race;

	exp_race_cpu_done(r);
	exp_race_put(r);
}

static void exp_normal_done(void *arg)
{
	struct exp_race *r = arg;

	complete(&r->done);
	exp_race_put(r);
}

__attribute__((weak)) void synchronize_rcu_expedited(void)
{
	struct exp_race *r;
	unsigned int cpu;

	might_sleep();
	if (rcu_read_side_preemptible() || READ_ONCE(rcu_break) || rcu_variant_gp_forced() ||
	    !(r = kmalloc(sizeof(*r)))) {
		synchronize_kernel();
		return;
	}
	init_completion(&r->done);
	atomic_set(&r->cpus_left, 1);		/* ours, dropped once all are queued */
	atomic_set(&r->refs, 2);		/* ours and the callback's */
	smp_mb();	/* the caller's updates before any CPU's quiescent state */
	call_rcu(&r->head, exp_normal_done, r);
	cpus_read_lock();	/* the CPUs we walk stay online while we queue */
	for_each_online_cpu(cpu) {
		atomic_inc(&r->cpus_left);
		atomic_inc(&r->refs);
		r->cpu[cpu].race = r;
		INIT_WORK(&r->cpu[cpu].work, exp_cpu_passed);
		schedule_work_on(cpu, &r->cpu[cpu].work);
	}
	cpus_read_unlock();
	exp_race_cpu_done(r);
	wait_for_completion(&r->done);
	exp_race_put(r);
	smp_mb();	/* every CPU's quiescent state before the caller's frees */
}

/* Variants whose normal grace period forces every CPU replace this. */
__attribute__((weak)) bool rcu_variant_gp_forced(void)
{
	return false;
}

/* ---- rcu_barrier() */

static DEFINE_MUTEX(barrier_mutex);
static struct rcu_head barrier_head[CONFIG_NR_CPUS];
static struct work_struct barrier_work[CONFIG_NR_CPUS];
static atomic_t barrier_left;
static struct completion barrier_done;

static void barrier_callback(void *arg)
{
	if (atomic_dec_and_test(&barrier_left))
		complete(&barrier_done);
}

static void barrier_queue(struct work_struct *w)
{
	int cpu = w - barrier_work;

	call_rcu(&barrier_head[cpu], barrier_callback, NULL);
}

void rcu_barrier(void)
{
	unsigned int cpu;

	might_sleep();
	/* A task freed with interrupts off waits on a tasklet for its
	 * call_rcu(): queue it now, ahead of our callbacks. */
	dead_tasks_flush();
	/* Every CPU we queue on stays online until its callback is queued,
	 * and no dead CPU's callbacks wait unadopted (rcu_hook_cpu_dead()). */
	cpus_read_lock();
	mutex_lock(&barrier_mutex);
	init_completion(&barrier_done);
	atomic_set(&barrier_left, 1);		/* our own reference */
	for_each_online_cpu(cpu) {
		atomic_inc(&barrier_left);
		INIT_WORK(&barrier_work[cpu], barrier_queue);
		schedule_work_on(cpu, &barrier_work[cpu]);
	}
	for_each_online_cpu(cpu)
		flush_work(&barrier_work[cpu]);
	if (atomic_dec_and_test(&barrier_left))
		complete(&barrier_done);
	wait_for_completion(&barrier_done);
	mutex_unlock(&barrier_mutex);
	cpus_read_unlock();
}

/* ---- kfree_rcu(), call_rcu_rt() */

static void kfree_callback(void *obj)
{
	kfree(obj);
}

void __kfree_rcu(struct rcu_head *head, void *obj)
{
	call_rcu(head, kfree_callback, obj);
}

__attribute__((weak)) void call_rcu_rt(struct rcu_head *head, void (*func)(void *arg), void *arg)
{
	call_rcu(head, func, arg);
}

/* ---- Polled grace periods.
 *
 * rcu_gp_started() counts grace periods begun, rcu_gp_completed() those
 * ended; every variant has at most one in flight, so started is completed
 * or completed + 1. A grace period already in flight may have begun before
 * the caller's update; the next one to begin cannot have. So the caller
 * needs grace period number started + 1 to have completed.
 */
unsigned long get_state_synchronize_rcu(void)
{
	smp_mb();	/* the caller's updates before the snapshot */
	return rcu_gp_started() + 1;
}

bool poll_state_synchronize_rcu(unsigned long cookie)
{
	bool done = (long)(rcu_gp_completed() - cookie) >= 0;

	smp_mb();	/* the grace period before the caller's frees */
	return done;
}

void cond_synchronize_rcu(unsigned long cookie)
{
	if (!poll_state_synchronize_rcu(cookie))
		synchronize_kernel();
}

/*
 * A grace period must start for every cookie start_poll hands out. Each
 * CPU has one do-nothing callback and the newest cookie handed out on it
 * (want). The callback, when it runs, queues itself again unless want has
 * completed: a cookie taken while the callback was queued may be newer
 * than the grace period it waited for (G+1 already over, G+2 handed out),
 * and a callback queued now waits for a grace period that begins after
 * this call_rcu(), numbered above every cookie taken before it.
 *
 * busy is set while the callback is queued or running; whoever moves it
 * from 0 to 1 queues it, so it is never queued twice (an interrupt's
 * start_poll against the task's, or the callback run on another CPU).
 * start_poll stores want and then reads busy; the callback clears busy
 * and then reads want. Each has a full barrier between its store and its
 * load (x86 lets a load pass an earlier store), so at least one sees the
 * other's store: start_poll finds busy clear and queues the callback, or
 * the callback finds the new want and queues itself again.
 */
struct poll_gp {
	struct rcu_head head;
	atomic_long_t want;	/* the newest cookie handed out on this CPU */
	atomic_t busy;
};
static DEFINE_PER_CPU(struct poll_gp, poll_gp);
/* This CPU is in poll_callback()'s own call_rcu(). */
static DEFINE_PER_CPU(bool, poll_requeueing);

static void poll_callback(void *arg);

static void poll_queue(struct poll_gp *pg)
{
	if (atomic_cmpxchg(&pg->busy, 0, 1) == 0)
		call_rcu(&pg->head, poll_callback, pg);
}

static void poll_callback(void *arg)
{
	struct poll_gp *pg = arg;

	atomic_xchg(&pg->busy, 0);	/* a full barrier: busy clear before want is read */
	/*
	 * Run from inside our own call_rcu(): a call_rcu() that invokes its
	 * callback at once (Lab 4's skeleton, the busted variant) has no
	 * grace period to end, and queueing again would recurse until the
	 * stack ran out. The RCU is broken; let its own tests say so.
	 */
	if (this_cpu(poll_requeueing))
		return;
	if (!poll_state_synchronize_rcu(atomic_long_read(&pg->want))) {
		preempt_disable();
		this_cpu(poll_requeueing) = true;
		poll_queue(pg);
		this_cpu(poll_requeueing) = false;
		preempt_enable();
	}
}

unsigned long start_poll_synchronize_rcu(void)
{
	unsigned long cookie = get_state_synchronize_rcu();
	struct poll_gp *pg;
	long old;

	preempt_disable();
	pg = this_cpu_ptr(&poll_gp);
	old = atomic_long_read(&pg->want);
	while ((long)(cookie - old) > 0) {
		long seen = atomic_long_cmpxchg(&pg->want, old, cookie);

		if (seen == old)
			break;
		old = seen;
	}
	smp_mb();	/* want stored before busy is read */
	poll_queue(pg);
	preempt_enable();
	return cookie;
}

/* ---- Deliberately broken grace periods, to test the tests. */

bool rcu_break;

static int set_rcu_break(const char *val)
{
	unsigned long v = rcu_break;	/* the default, printed if val is bad */

	if (cmdline_parse_ulong("rcu_break", val, 0, 1, &v))
		return -1;
	rcu_break = v;
	return 0;
}
CMDLINE_PARAM("rcu_break", set_rcu_break,
	      "rcu_break=0|1: break the RCU variant's quiescent-state detection on purpose "
	      "(torture must then fail; default 0)");

/* The built-in variant's name: each variant file defines rcu_variant_id,
 * a plain string that gdb reads too (tools/gdb/quiescent.py). */
const char *rcu_variant_name(void)
{
	return rcu_variant_id;
}

/* ---- Boot. */

static bool rcu_read_side_check(const char **why)
{
	if (rcu_read_depth() > 0) {
		*why = "inside an RCU read-side critical section";
		return true;
	}
	return false;
}

/*
 * Each CPU's own RCU data, set up once on that CPU before its first tick
 * reaches the variant (the boot CPU's here, the others' as they come
 * online); ready says so to a tick that comes earlier (the boot CPU ticks
 * before rcu_hook_init()).
 */
DEFINE_PER_CPU(bool, rcu_cpu_ready);

static void rcu_init_cpu(unsigned int cpu)
{
	rcu_variant_init_cpu(cpu);
	smp_wmb();	/* the CPU's data before ready */
	per_cpu(rcu_cpu_ready, cpu) = true;
}

/*
 * A CPU that comes back after cpu_down() keeps its per-CPU data (its
 * lists were emptied when it left, its tasklet may still be queued on the
 * CPU that inherited its work): the variant only says it is back.
 */
void rcu_hook_cpu_online(unsigned int cpu)
{
	if (per_cpu(rcu_cpu_ready, cpu))
		rcu_variant_cpu_reonline(cpu);
	else
		rcu_init_cpu(cpu);
}

void rcu_hook_cpu_offline(unsigned int cpu)
{
	rcu_variant_cpu_offline(cpu);
}

void rcu_hook_cpu_dead(unsigned int cpu)
{
	rcu_variant_cpu_dead(cpu);
}

/*
 * SRCU is asked first, the variant last: rcu-preempt's answer uncounts p
 * when it says yes, which must not happen to a task that moves anyway.
 * Tasks RCU is not asked: a task frozen after a voluntary switch is a
 * quiescent state for it (rcu_tasks.c), and the dying CPU's kernel
 * threads park at one of their own before it goes (hotplug.c).
 */
bool rcu_hook_task_may_freeze(struct task *p)
{
	if (!srcu_task_may_freeze(p))
		return false;
	return rcu_variant_task_may_freeze(p);
}

/* Variants that implement CPU hotplug replace these (docs/hotplug.md). */
__attribute__((weak)) bool rcu_variant_hotplug;
__attribute__((weak)) void rcu_variant_cpu_offline(unsigned int cpu)
{
	panic("rcu: %s cannot take cpu%u offline", rcu_variant_name(), cpu);
}
__attribute__((weak)) void rcu_variant_cpu_reonline(unsigned int cpu)
{
}
__attribute__((weak)) void rcu_variant_cpu_dead(unsigned int cpu)
{
}
/* A switched-out task holds no reader where readers cannot be preempted. */
__attribute__((weak)) bool rcu_variant_task_may_freeze(struct task *p)
{
	return true;
}

bool rcu_hotplug_supported(void)
{
	return rcu_variant_hotplug;
}

void rcu_hook_init(void)
{
	/*
	 * Every variant copies cpu_online_mask into its grace periods: with
	 * this CPU missing, a grace period started from here on would wait
	 * for nobody (kmain brings this CPU online first).
	 */
	if (!cpu_online(smp_processor_id()))
		panic("rcu: initialised on cpu%u, which is not in cpu_online_mask",
		      smp_processor_id());
	might_sleep_extra_check = rcu_read_side_check;
	rcu_prove_init();		/* cpu_local and current exist from here */
	rcu_variant_init();
	rcu_init_cpu(smp_processor_id());
	rcu_stats_init();
	printk("rcu: %s (%s)%s\n", rcu_variant_name(), rcu_variant_paper,
	       rcu_break ? " (BROKEN on purpose: rcu_break=1)" : "");
}

void rcu_hook_late_init(void)
{
	rcu_variant_late_init();
}

/* Seed 000 Table 1: every variant's call_rcu() is IRQ-safe but the
 * rcu-poll family's, which replaces this (poll_hooks.c). */
__attribute__((weak)) bool rcu_call_rcu_irq_safe(void)
{
	return true;
}

/*
 * rcu_internal.h: a reader that cannot lose its CPU cannot see a context
 * switch, so every section that keeps the CPU counts; rcu-preempt's
 * preemptible readers count only rcu_read_lock(). A variant whose design
 * differs replaces this.
 */
__attribute__((weak)) unsigned int rcu_read_side_extensions(void)
{
	if (rcu_read_side_preemptible())
		return 0;
	return RCU_EXT_PREEMPT | RCU_EXT_IRQ | RCU_EXT_BH;
}

/* Variants that poll remote counters replace this (rcu_internal.h). */
__attribute__((weak)) long *rcu_variant_remote_qs_counter(unsigned int cpu)
{
	return NULL;
}
