/*
 * The core scheduler: per-CPU run queues, picking the next task, the
 * context switch, wake-ups.
 *
 * Each CPU's struct rq has one FIFO list per priority and a bitmap of the
 * non-empty ones, so picking is "first set bit, first task on that list"
 * (Linux 2.6's O(1) scheduler, reduced to one array). Real-time
 * priorities 0..99 come first; every SCHED_NORMAL task shares priority
 * 100 and takes turns by time slice. The running task stays at the head
 * of its list, so a preempted FIFO task resumes before its peers.
 *
 * __schedule() is the one way to switch. It is told why it was called
 * (enum sched_mode) and from that knows whether the switch is voluntary,
 * which it counts and passes to rcu_hook_context_switch() on every pass,
 * before it compares prev with next, exactly where seed 000 Figures 13,
 * 16, 19 and 22 increment RCU_qsctr (after "switch_tasks:", before
 * "if (likely(prev != next))").
 */
#include <trace.h>
#include "sched.h"
#include <rcu_hooks.h>
#include <upcalls.h>
#include <timer.h>
#include <smp.h>
#include <time.h>
#include <printk.h>
#include <panic.h>
#include <string.h>
#include <idle.h>
#include <tick.h>
#include <arch/gdt.h>
#include <arch/irq.h>
#include <kmalloc.h>
#include <mm.h>
#include <fault_inject.h>

DEFINE_PER_CPU(struct rq, runqueues);

/* Ticks of a time slice: 40 ms, at least 2 ticks. */
int normal_time_slice(void)
{
	int t = HZ / 25;
	return t < 2 ? 2 : t;
}

/* ---------------------------------------------------------------- queues */

static unsigned int sched_find_first_bit(const unsigned long *bm)
{
	for (int i = 0; i < PRIO_BITMAP_LONGS; i++) {
		unsigned long w = READ_ONCE(bm[i]);
		if (w)
			return i * 64 + __builtin_ctzl(w);
	}
	return NR_PRIO;
}

void enqueue_task(struct rq *rq, struct task *p, bool head)
{
	if (head)
		list_add(&p->run_list, &rq->queue[p->prio]);
	else
		list_add_tail(&p->run_list, &rq->queue[p->prio]);
	set_bit(p->prio, rq->bitmap);
	WRITE_ONCE(rq->nr_running, rq->nr_running + 1);
	WRITE_ONCE(p->on_rq, TASK_ON_RQ_QUEUED);	/* read unlocked: include/sched.h */
}

static void __dequeue_task(struct rq *rq, struct task *p, int on_rq)
{
	list_del_init(&p->run_list);
	if (list_empty(&rq->queue[p->prio]))
		clear_bit(p->prio, rq->bitmap);
	WRITE_ONCE(rq->nr_running, rq->nr_running - 1);
	WRITE_ONCE(p->on_rq, on_rq);
}

/* p blocks or exits: it is runnable no more. */
void dequeue_task(struct rq *rq, struct task *p)
{
	__dequeue_task(rq, p, 0);
}

void dequeue_task_migrating(struct rq *rq, struct task *p)
{
	__dequeue_task(rq, p, TASK_ON_RQ_MIGRATING);
}

static struct task *pick_next_task(struct rq *rq)
{
	unsigned int idx = sched_find_first_bit(rq->bitmap);

	if (idx >= NR_PRIO)
		return rq->idle;
	return list_first_entry(&rq->queue[idx], struct task, run_list);
}

/*
 * Seed 003 Figure 2: a runnable real-time task on this CPU's queue (the
 * running one counts). krcud's callback throttling asks this.
 */
bool rq_has_rt_task(unsigned int cpu)
{
	return sched_find_first_bit(cpu_rq(cpu)->bitmap) < MAX_RT_PRIO;
}

bool idle_cpu(unsigned int cpu)
{
	struct rq *rq = cpu_rq(cpu);
	return READ_ONCE(rq->curr) == rq->idle && READ_ONCE(rq->nr_running) == 0;
}

unsigned int nr_running_cpu(unsigned int cpu)
{
	return READ_ONCE(cpu_rq(cpu)->nr_running);
}

struct task *cpu_curr(unsigned int cpu)
{
	return READ_ONCE(cpu_rq(cpu)->curr);
}

/* ---------------------------------------------------------------- locking */

struct rq *task_rq_lock(struct task *p)
	__acquires(&rq->lock)
{
	for (;;) {
		unsigned int cpu = READ_ONCE(p->cpu);
		struct rq *rq = cpu_rq(cpu);

		spin_lock(&rq->lock);
		if (likely(READ_ONCE(p->cpu) == (int)cpu))
			return rq;
		spin_unlock(&rq->lock);
	}
}

void double_rq_lock(struct rq *a, struct rq *b)
	__acquires(&a->lock) __acquires(&b->lock)
{
	if (a == b) {
		spin_lock(&a->lock);
		__acquire(&b->lock);	/* sparse: one lock, counted as both */
	} else if (a->cpu < b->cpu) {
		spin_lock(&a->lock);
		spin_lock_nested(&b->lock, SINGLE_DEPTH_NESTING);	/* CPU order */
	} else {
		spin_lock(&b->lock);
		spin_lock_nested(&a->lock, SINGLE_DEPTH_NESTING);
	}
}

void double_rq_unlock(struct rq *a, struct rq *b)
	__releases(&a->lock) __releases(&b->lock)
{
	spin_unlock(&a->lock);
	if (a != b)
		spin_unlock(&b->lock);
	else
		__release(&b->lock);
}

/* ---------------------------------------------------------------- preemption requests */

/*
 * Ask rq's CPU to reschedule: set its need_resched and, if it is another
 * CPU, send it the reschedule IPI, so a remote wake-up costs one IPI
 * rather than waiting for that CPU's next tick. Called with rq->lock
 * held; the IPI itself is only noted here and sent by flush_resched_ipis()
 * once the caller has dropped its run-queue locks: the woken CPU's first
 * act is to take its rq->lock, and under a hypervisor the sender's vCPU
 * may lose its physical CPU to the one it just woke (lock-holder
 * preemption), which cost a whole host time slice per wake-up under TCG.
 */
static DEFINE_PER_CPU(cpumask_t, resched_ipi_pending);

void resched_curr(struct rq *rq)
{
	unsigned int cpu = rq->cpu;
	struct cpu_local *cl = per_cpu_ptr(&cpu_local_template, cpu);

	if (cpu == smp_processor_id()) {
		WRITE_ONCE(cl->need_resched, 1);
		return;
	}
	if (READ_ONCE(cl->need_resched))
		return;			/* already asked; the IPI is on its way */
	WRITE_ONCE(cl->need_resched, 1);
	rq->stats.resched_ipis++;
	cpumask_set(cpu, this_cpu_ptr(&resched_ipi_pending));
}

/* Send the IPIs resched_curr() noted. Interrupts off, no run-queue lock held. */
void flush_resched_ipis(void)
{
	cpumask_t *m = this_cpu_ptr(&resched_ipi_pending);
	unsigned int cpu;

	if (cpumask_empty(m))
		return;
	smp_mb();			/* need_resched visible before the IPI lands */
	for_each_cpu(cpu, m) {
		cpumask_clear_cpu(cpu, m);
		smp_send_reschedule(cpu);
	}
}

/*
 * Make cpu pass through the scheduler soon, from any context (RCU's forced
 * quiescent states: seed 000 5.3's force_cpu_reschedule()): set its
 * need_resched, then send the reschedule IPI at once. An idle CPU leaves
 * hlt, finds need_resched in idle_should_exit() and goes round its loop
 * again; setting the flag first is what makes an IPI that lands between
 * the idle loop's check and its hlt harmless. If need_resched is already
 * set, an IPI is on its way or that CPU will act on it itself.
 */
void resched_cpu(unsigned int cpu)
{
	struct cpu_local *cl = per_cpu_ptr(&cpu_local_template, cpu);

	if (cpu == smp_processor_id()) {
		WRITE_ONCE(cl->need_resched, 1);
		return;
	}
	if (READ_ONCE(cl->need_resched))
		return;
	WRITE_ONCE(cl->need_resched, 1);
	smp_mb();			/* need_resched visible before the IPI lands */
	smp_send_reschedule(cpu);
}

/* p was just queued on rq: should it take the CPU from rq->curr? */
void check_preempt(struct rq *rq, struct task *p)
{
	if (p->prio < rq->curr->prio)
		resched_curr(rq);
}

/* ---------------------------------------------------------------- wake-ups */

/*
 * Where should a waking task run? Its last CPU if it may run there and
 * would not just queue up behind others while an allowed CPU idles;
 * otherwise an idle allowed CPU; otherwise the allowed CPU with the
 * shortest queue. The reads are unlocked: this is only a hint, the caller
 * re-checks what matters under the locks.
 */
unsigned int select_task_cpu(struct task *p)
{
	unsigned int prev = READ_ONCE(p->cpu), cpu, best = CONFIG_NR_CPUS;
	unsigned int best_load = ~0U;
	bool prev_ok = cpu_online(prev) && cpumask_test(prev, &p->cpus_allowed);

	if (prev_ok && (idle_cpu(prev) || p->prio < READ_ONCE(cpu_rq(prev)->curr)->prio))
		return prev;
	for_each_online_cpu(cpu) {
		unsigned int load;

		if (!cpumask_test(cpu, &p->cpus_allowed))
			continue;
		if (idle_cpu(cpu))
			return cpu;
		load = nr_running_cpu(cpu);
		if (load < best_load) {
			best_load = load;
			best = cpu;
		}
	}
	if (prev_ok || best == CONFIG_NR_CPUS)
		return prev;		/* (no allowed online CPU: keep it where it was) */
	return best;
}

/*
 * Wake p if its state is in `state`: make it TASK_RUNNING and queue it on
 * a CPU it may run on, preempting that CPU's task if p has a higher
 * priority. Returns false if p was not in one of those states.
 *
 * Holding p's run-queue lock means p is not in the middle of switching
 * away: __schedule() holds that lock from the moment it looks at p's
 * state until p's stack is no longer in use (finish_task_switch). So a
 * task that is still queued (it set its state but has not switched away
 * yet) only needs its state set back, and a task that is not queued is
 * truly off every CPU and may be queued anywhere.
 */
bool try_to_wake_up(struct task *p, long state)
{
	unsigned long flags = local_irq_save();
	bool woke = false;

	for (;;) {
		unsigned int cpu = READ_ONCE(p->cpu);
		unsigned int target = select_task_cpu(p);
		struct rq *rq = cpu_rq(cpu), *trq = cpu_rq(target);

		double_rq_lock(rq, trq);
		if (READ_ONCE(p->cpu) != (int)cpu ||
		    (target != cpu && !cpumask_test(target, &p->cpus_allowed))) {
			double_rq_unlock(rq, trq);	/* it moved, or its mask changed */
			continue;
		}
		if (!(p->state & state))
			goto out;
		woke = true;
		p->wake_tsc = rdtsc();
		p->wakeups++;
		WRITE_ONCE(p->state, TASK_RUNNING);
		/* Still queued: it had not switched away yet. Migrating:
		 * whoever moves it queues it, now TASK_RUNNING. */
		if (p->on_rq)
			goto out;
		if (target != cpu) {
			WRITE_ONCE(p->cpu, target);	/* read unlocked: try_to_wake_up(), ps */
			p->migrations++;
			rq->stats.migrations_out++;
			trq->stats.migrations_in++;
		}
		enqueue_task(trq, p, false);
		trq->stats.wakeups++;
		if (target != smp_processor_id())
			trq->stats.remote_wakeups++;
		check_preempt(trq, p);
out:
		double_rq_unlock(rq, trq);
		break;
	}
	flush_resched_ipis();
	local_irq_restore(flags);
	preempt_check_resched();
	return woke;
}

bool wake_up_process(struct task *p)
{
	return try_to_wake_up(p, TASK_NORMAL | TASK_NEW);
}

void task_interrupt(struct task *p)
{
	WRITE_ONCE(p->interrupted, true);
	smp_mb();
	try_to_wake_up(p, TASK_INTERRUPTIBLE);
}

/* ---------------------------------------------------------------- the switch */

static void account_switch(struct rq *rq, struct task *prev, struct task *next, u64 now)
{
	u64 ran = now - prev->exec_start_tsc;

	/* ps reads it without the run-queue lock (proc_list_fill()) */
	WRITE_ONCE(prev->sum_exec_ns, prev->sum_exec_ns + cycles_to_ns(ran));
	next->exec_start_tsc = now;
	if (prev == rq->idle)
		rq->idle_tsc += now - rq->idle_enter_tsc;
	if (next == rq->idle)
		rq->idle_enter_tsc = now;
}

static void check_stack(struct task *p)
{
	if (p->stack && unlikely(*(u64 *)p->stack != STACK_END_MAGIC))
		panic("kernel stack overflow: task %s (pid %d), stack %lx",
		      p->name, p->pid, p->stack);
}

/*
 * A user task runs on its own page tables; every other task on the
 * kernel's, so that no CPU keeps a dead process's tables loaded. (The
 * kernel half is the same in all of them; see kernel/mm/uvm.c.)
 */
static void switch_address_space(struct task *next)
{
	unsigned long want = next->cr3 ? next->cr3 : kernel_cr3();

	if (read_cr3() != want)
		write_cr3(want);
}

static struct task *context_switch(struct rq *rq, struct task *prev, struct task *next)
{
	struct cpu_local *cl = cpu_local();
	unsigned long top = next->stack + next->stack_size;

	check_stack(prev);
	account_switch(rq, prev, next, rdtsc());
	WRITE_ONCE(rq->curr, next);	/* read by idle_cpu() on other CPUs */
	set_current(next);
	cl->kernel_stack = top;
	tss_set_kernel_stack(top);	/* for interrupts and syscalls from user mode */
	switch_address_space(next);
	/*
	 * preempt_count is per CPU but belongs to the task: it holds one count
	 * for rq->lock here, and more if someone scheduled while atomic (a
	 * warned bug). Each task takes its own back.
	 */
	prev->saved_preempt_count = preempt_count();
	preempt_count_set(next->saved_preempt_count);
	lockdep_handoff(&rq->lock.dep_map, prev, next);	/* next unlocks it */
	return switch_to_asm(prev, next);
}

/*
 * Runs in the task that got the CPU (the new `current`), possibly on
 * another CPU than the one it left from: release the run-queue lock its
 * predecessor took, then deal with the predecessor, whose stack is free
 * now: move it to an allowed CPU, or drop a dead task's own reference.
 */
void finish_task_switch(struct task *prev)
	__releases(&rq->lock)
{
	struct rq *rq = this_rq();
	bool migrate = prev->migrate_pending;
	bool dead = prev->state == TASK_DEAD && !prev->on_rq;

	prev->migrate_pending = false;
	spin_unlock(&rq->lock);
	if (migrate) {
		/* prev is runnable but on no queue until it is requeued: a
		 * delay here holds that state open for whoever reads on_rq
		 * without the run-queue lock. */
		fault_inject(migrate_off_rq, prev);
		migrate_after_switch(prev);
		flush_resched_ipis();
	}
	if (dead)
		put_task(prev);
}

void __schedule(enum sched_mode mode)
{
	struct task *prev = current, *next;
	unsigned long flags = local_irq_save();
	struct rq *rq = this_rq();
	bool voluntary = mode != SM_PREEMPT || prev == rq->idle;

	spin_lock(&rq->lock);
	rq->stats.schedule_calls++;
	WRITE_ONCE(cpu_local()->need_resched, 0);

	if (prev != rq->idle) {
		if (mode != SM_PREEMPT && prev->state != TASK_RUNNING) {
			dequeue_task(rq, prev);		/* it blocks (or exits) */
		} else if (!cpumask_test(rq->cpu, &prev->cpus_allowed)) {
			/* It may not stay here; still runnable, and requeued
			 * elsewhere by the next task here (finish_task_switch). */
			dequeue_task_migrating(rq, prev);
			prev->migrate_pending = true;
		} else if (mode == SM_YIELD || prev->time_slice <= 0) {
			if (prev->time_slice <= 0)
				prev->time_slice = normal_time_slice();
			list_move_tail(&prev->run_list, &rq->queue[prev->prio]);
		}
	}
	next = pick_next_task(rq);

	/* switch_tasks: (seed 000 Figure 13) */
	rcu_hook_context_switch(voluntary);
	if (voluntary)
		rcu_tasks_hook_qs();

	if (likely(prev != next)) {
		struct task *last;

		rq->stats.nr_switches++;
		trace_event(TRACE_SCHED, TR_SWITCH,
			    (u64)(u32)prev->pid << 32 | (u32)next->pid, voluntary);
		/* Tasks RCU: was a task frozen on an offline CPU preempted? */
		prev->preempted = !voluntary;
		if (voluntary) {
			rq->stats.nvcsw++;
			prev->nvcsw++;
		} else {
			rq->stats.nivcsw++;
			prev->nivcsw++;
		}
		last = context_switch(rq, prev, next);
		/* Now we are `prev` again, resumed, maybe on another CPU. */
		finish_task_switch(last);
	} else {
		spin_unlock(&rq->lock);
	}
	local_irq_restore(flags);
}

static void warn_atomic_schedule(void)
{
	static int warned;

	if (warned++ < 3) {
		printk("BUG: scheduling while atomic: %s/%d, preempt_count %08x\n",
		       current->name, current->pid, preempt_count());
		dump_stack();
	}
}

void schedule(void)
{
	if (unlikely(preempt_count()))
		warn_atomic_schedule();
	__schedule(SM_NONE);
}

void yield(void)
{
	WRITE_ONCE(current->state, TASK_RUNNING);
	__schedule(SM_YIELD);
}

/*
 * A voluntary preemption point for long kernel paths: switch if someone
 * asked for the CPU (a time slice ran out, a higher-priority task woke).
 * In the non-preemptive kernel this is the only way a CPU-bound kernel
 * thread gives the CPU up, as in Linux 2.4. The switch counts as
 * voluntary (docs/scheduler.md): the task chose the point, so it holds no
 * RCU read-side reference there.
 */
int cond_resched(void)
{
	if (!preemptible())
		return 0;
	if (!need_resched()) {
		/*
		 * A voluntary scheduling point, even with nobody to switch to:
		 * the caller holds no RCU reference here, so RCU may count a
		 * quiescent state. Without this a CPU-bound kernel thread that
		 * is alone on its CPU (cond_resched() never switches) would
		 * hold grace periods up for as long as it runs (docs/scheduler.md).
		 * Interrupts off as in __schedule(): the hook finds its CPU's
		 * counters first, and a preemption that moved this task to
		 * another CPU before it wrote them would count a quiescent
		 * state for a CPU that may be inside a reader by then.
		 */
		unsigned long flags = local_irq_save();

		rcu_hook_context_switch(true);
		rcu_tasks_hook_qs();
		local_irq_restore(flags);
		return 0;
	}
	__schedule(SM_NONE);
	return 1;
}

int sched_setscheduler(struct task *p, int policy, int rt_priority)
{
	unsigned long flags;
	struct rq *rq;
	int prio;

	if (policy == SCHED_NORMAL) {
		if (rt_priority)
			return -EINVAL;
		prio = NORMAL_PRIO;
	} else if (policy == SCHED_FIFO || policy == SCHED_RR) {
		if (rt_priority < 1 || rt_priority > MAX_RT_PRIO - 1)
			return -EINVAL;
		prio = MAX_RT_PRIO - 1 - rt_priority;
	} else {
		return -EINVAL;
	}
	if (p->is_idle)
		return -EINVAL;
	flags = local_irq_save();
	rq = task_rq_lock(p);
	bool queued = task_on_rq_queued(p), running = p == rq->curr;
	int old = p->prio;

	if (queued)
		dequeue_task_migrating(rq, p);	/* runnable throughout */
	p->policy = policy;
	p->rt_priority = rt_priority;
	p->prio = prio;
	p->time_slice = normal_time_slice();
	if (queued) {
		enqueue_task(rq, p, running);	/* the running task stays first */
		if (!running)
			check_preempt(rq, p);
		else if (prio > old)
			resched_curr(rq);	/* someone else may come first now */
	}
	spin_unlock(&rq->lock);
	flush_resched_ipis();
	local_irq_restore(flags);
	preempt_check_resched();
	return 0;
}

/* ------------------------------------------- hooks from below (include/upcalls.h) */

/* The tick (kernel/time/tick.c), in interrupt context. */
void scheduler_tick(enum tick_context ctx)
{
	struct rq *rq = this_rq();
	struct task *p = current;

	timer_tick();				/* kernel timers: from the first tick */
	if (unlikely(!rq->idle))
		return;				/* this CPU has no scheduler yet */
	if (p == rq->idle)
		rq->stats.idle_ticks++;
	sched_sleep_tick();
	if (p != rq->idle && p->policy != SCHED_FIFO && --p->time_slice <= 0)
		set_need_resched();		/* acted on at the next preemption point */
	load_balance_tick(rq);
}

/* The reschedule IPI: need_resched is already set; the interrupt return
 * (CONFIG_KPREEMPT) or the idle loop acts on it. */
void scheduler_ipi(void)
{
}

/* The idle loop (kernel/core/idle.c), interrupts off. */
bool idle_should_exit(void)
{
	struct rq *rq = this_rq();

	return rq->idle && (need_resched() || READ_ONCE(rq->nr_running));
}

void idle_exit(void)
{
	__schedule(SM_NONE);
}

/* ---------------------------------------------------------------- boot */

extern char boot_stack_top[];
extern unsigned long cpu_boot_stack[];
#define BOOT_STACK_SIZE		16384	/* boot/layout.inc */
#define AP_STACK_SIZE		16384	/* kernel/arch/x86/smp.c */

static void rq_init(struct rq *rq, unsigned int cpu)
{
	spin_lock_init(&rq->lock, "rq->lock");
	spin_lock_init(&rq->sleep_lock, "rq->sleep_lock");
	rq->cpu = cpu;
	for (int i = 0; i < NR_PRIO; i++)
		INIT_LIST_HEAD(&rq->queue[i]);
	INIT_LIST_HEAD(&rq->sleepers);
}

/* The running boot context of this CPU becomes its idle task. */
static void make_idle_task(unsigned int cpu, unsigned long stack, unsigned long size)
{
	struct rq *rq = this_rq();
	struct task *idle = kzalloc(sizeof(*idle));
	char name[TASK_COMM_LEN];

	if (!idle)
		panic("sched: no memory for CPU %u's idle task", cpu);
	rq_init(rq, cpu);
	snprintf(name, sizeof(name), "swapper/%u", cpu);
	task_init_common(idle, name);
	idle->is_idle = true;
	idle->prio = NR_PRIO;		/* below everything */
	idle->cpu = cpu;
	idle->state = TASK_RUNNING;
	cpumask_clear(&idle->cpus_allowed);
	cpumask_set(cpu, &idle->cpus_allowed);
	idle->stack = stack;
	idle->stack_size = size;
	idle->exec_start_tsc = rdtsc();
	if (stack)
		*(u64 *)stack = STACK_END_MAGIC;
	rq->idle = idle;
	rq->curr = idle;
	rq->idle_enter_tsc = idle->exec_start_tsc;
	rq->next_balance = jiffies;
	set_current(idle);
	if (stack)
		cpu_local()->kernel_stack = stack + size;
	task_list_add(idle);
}

void sched_init(void)
{
	make_idle_task(0, (unsigned long)boot_stack_top - BOOT_STACK_SIZE, BOOT_STACK_SIZE);
	printk("sched: %s kernel, time slice %d ticks, %d priorities\n",
#ifdef CONFIG_KPREEMPT
	       "preemptive",
#else
	       "non-preemptive",
#endif
	       normal_time_slice(), NR_PRIO);
	sched_register_sysrq();
}

void sched_init_ap(unsigned int cpu)
{
	make_idle_task(cpu, cpu_boot_stack[cpu], AP_STACK_SIZE);
}
