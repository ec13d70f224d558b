/*
 * Kernel threads: creation, exit, reaping.
 *
 * A new thread gets a struct task (kmalloc) and a 16 KiB stack (the page
 * allocator), with a first stack frame that switch_to_asm() "returns"
 * into: kthread_trampoline, then kthread_entry() below, which finishes
 * the switch (releases the run-queue lock), enables interrupts and calls
 * the thread function. Returning from it, or task_exit(), ends the thread.
 *
 * Lifetime: a task holds a reference to itself while it lives, the
 * creator holds one (kthread_create). The dead task's own reference is
 * dropped by the task that runs after it (finish_task_switch), once its
 * stack is no longer in use; the creator's by kthread_join/kthread_stop/
 * put_task. The last one frees the stack and the struct.
 */
#include <fault_inject.h>
#include "sched.h"
#include <kmalloc.h>
#include <mm.h>
#include <smp.h>
#include <string.h>
#include <printk.h>
#include <panic.h>
#include <rcupdate.h>
#include <rculist.h>
#include <cmdline.h>
#include <interrupt.h>
#include <arch/irq.h>

/*
 * The task list and PID hash (seed 001 Table 4, Dipankar Sarma's change):
 * writers (creation, exit) hold task_list_lock and use the _rcu list
 * primitives; readers walk under rcu_read_lock(), or under the lock with
 * tasklist=lock. A task leaves both at task_exit(), and its struct is
 * freed by call_rcu() from put_task(), so a reader that found it on
 * either may read it until rcu_read_unlock().
 */
#define PID_HASH_BITS	6
#define PID_HASH_SIZE	(1 << PID_HASH_BITS)

static LIST_HEAD(all_tasks);
static struct hlist_head pid_hash[PID_HASH_SIZE];
static DEFINE_SPINLOCK(task_list_lock);
static atomic_t next_pid = ATOMIC_INIT(0);
static atomic_t tasks_alive = ATOMIC_INIT(0);
static bool tasklist_rcu = true;

static int set_tasklist(const char *val)
{
	if (val && !strcmp(val, "rcu"))
		tasklist_rcu = true;
	else if (val && !strcmp(val, "lock"))
		tasklist_rcu = false;
	else
		return -EINVAL;
	return 0;
}
CMDLINE_PARAM("tasklist", set_tasklist,
	      "tasklist=rcu|lock: ps, kill and the task reports walk the task list under rcu_read_lock() (default) or task_list_lock");

bool tasklist_is_rcu(void)
{
	return READ_ONCE(tasklist_rcu);
}

void tasklist_set_rcu(bool rcu)
{
	WRITE_ONCE(tasklist_rcu, rcu);
}

static struct hlist_head *pid_bucket(int pid)
{
	return &pid_hash[(unsigned int)pid & (PID_HASH_SIZE - 1)];
}

long nr_tasks_alive(void)
{
	return atomic_read(&tasks_alive);
}

void task_list_add(struct task *p)
{
	unsigned long flags = spin_lock_irqsave(&task_list_lock);
	list_add_tail_rcu(&p->tasks, &all_tasks);
	hlist_add_head_rcu(&p->pid_node, pid_bucket(p->pid));
	spin_unlock_irqrestore(&task_list_lock, flags);
	/* Readers can find p from here: whatever its creator still sets
	 * on it after this, a delay here shows them without. */
	fault_inject(task_published, p);
}

void task_list_del(struct task *p)
{
	unsigned long flags = spin_lock_irqsave(&task_list_lock);
	/* Not list_del_init(): a reader standing on p must still find its way on. */
	list_del_rcu(&p->tasks);
	/* _init: a process's task left the hash at exit already (task_unhash_pid()). */
	hlist_del_init_rcu(&p->pid_node);
	spin_unlock_irqrestore(&task_list_lock, flags);
}

void task_unhash_pid(struct task *p)
{
	unsigned long flags = spin_lock_irqsave(&task_list_lock);

	hlist_del_init_rcu(&p->pid_node);
	spin_unlock_irqrestore(&task_list_lock, flags);
}

bool task_pid_hashed(struct task *p)
{
	unsigned long flags = spin_lock_irqsave(&task_list_lock);
	bool hashed = !hlist_unhashed(&p->pid_node);

	spin_unlock_irqrestore(&task_list_lock, flags);
	return hashed;
}

void for_each_task(void (*fn)(struct task *p, void *arg), void *arg)
{
	struct task *p;

	if (tasklist_is_rcu()) {
		rcu_read_lock();
		list_for_each_entry_rcu(p, &all_tasks, tasks)
			fn(p, arg);
		rcu_read_unlock();
	} else {
		unsigned long flags = spin_lock_irqsave(&task_list_lock);

		list_for_each_entry(p, &all_tasks, tasks)
			fn(p, arg);
		spin_unlock_irqrestore(&task_list_lock, flags);
	}
}

struct task *find_task_by_pid(int pid)
{
	struct task *p;

	hlist_for_each_entry_rcu(p, pid_bucket(pid), pid_node,
				 lockdep_is_held(&task_list_lock))
		if (p->pid == pid)
			return p;
	return NULL;
}

bool get_task_unless_zero(struct task *p)
{
	int c = atomic_read(&p->usage);

	/* Zero: put_task() has queued the free; p is only good until the unlock. */
	while (c) {
		int old = atomic_cmpxchg(&p->usage, c, c + 1);
		if (old == c)
			return true;
		c = old;
	}
	return false;
}

struct task *get_task_by_pid(int pid)
{
	struct task *p;

	if (tasklist_is_rcu()) {
		rcu_read_lock();
		p = find_task_by_pid(pid);
		if (p && !get_task_unless_zero(p))
			p = NULL;
		rcu_read_unlock();
	} else {
		unsigned long flags = spin_lock_irqsave(&task_list_lock);

		p = find_task_by_pid(pid);
		if (p && !get_task_unless_zero(p))
			p = NULL;
		spin_unlock_irqrestore(&task_list_lock, flags);
	}
	return p;
}

void task_init_common(struct task *p, const char *name)
{
	strlcpy(p->name, name, sizeof(p->name));
	p->pid = atomic_fetch_add(1, &next_pid);
	p->policy = SCHED_NORMAL;
	p->prio = NORMAL_PRIO;
	p->time_slice = normal_time_slice();
	p->sleep_cpu = -1;
	INIT_LIST_HEAD(&p->run_list);
	INIT_LIST_HEAD(&p->tasks);
	INIT_HLIST_NODE(&p->pid_node);
	p->magic = TASK_MAGIC;
	INIT_LIST_HEAD(&p->sleep_list);
	init_completion(&p->exited);
	atomic_set(&p->usage, 1);
	atomic_inc(&tasks_alive);
	for (unsigned int cpu = 0; cpu < nr_cpu_ids; cpu++)
		cpumask_set(cpu, &p->cpus_allowed);
}

void get_task(struct task *p)
{
	/* From zero, put_task() has already queued the free: the caller
	 * needed get_task_unless_zero() (Linux's refcount_inc() warns so). */
	WARN_ON(atomic_inc_return(&p->usage) == 1);
}

/*
 * After a grace period: no reader of the task list or PID hash can still
 * stand on p (seed 001 Table 4's put_task_struct() through call_rcu()).
 */
static void task_free_rcu(void *arg)
{
	struct task *p = arg;

	if (p->stack_owned)
		free_pages(virt_to_phys((void *)p->stack), TASK_STACK_ORDER);
	p->magic = 0;
	kfree(p);
	atomic_dec(&tasks_alive);
}

/*
 * A dead task's last reference can go in finish_task_switch(), with
 * interrupts off, where call_rcu() is illegal on the variants that are
 * BH-safe but not IRQ-safe (seed 000 Table 1: the poll family warns).
 * Those tasks wait here for a tasklet, which queues them with interrupts
 * on; it runs at the next interrupt exit, well inside the grace period
 * any rcu_barrier() caller then waits for.
 */
static LIST_HEAD(dead_tasks);
static DEFINE_SPINLOCK(dead_tasks_lock);
static void dead_tasks_free(unsigned long unused);

static void dead_tasks_queue(void)
{
	unsigned long flags;
	LIST_HEAD(batch);

	flags = spin_lock_irqsave(&dead_tasks_lock);
	list_splice_tail_init(&dead_tasks, &batch);
	spin_unlock_irqrestore(&dead_tasks_lock, flags);
	while (!list_empty(&batch)) {
		struct task *p = container_of(batch.next, struct task, rcu.list);

		list_del(&p->rcu.list);
		call_rcu(&p->rcu, task_free_rcu, p);
	}
}

static DECLARE_TASKLET(dead_tasks_tasklet, dead_tasks_free, 0);

static void dead_tasks_free(unsigned long unused)
{
	/* A test may hold the tasks parked here, however late the tasklet
	 * runs, to show who else must queue them. */
	if (fault_inject(dead_tasks_tasklet, NULL)) {
		tasklet_hi_schedule(&dead_tasks_tasklet);
		return;
	}
	dead_tasks_queue();
}

/*
 * rcu_barrier() calls this first: a task whose last reference went with
 * interrupts off, before the barrier, is queued now rather than by the
 * tasklet after it, and a tasklet run that has taken some off the list
 * has queued them before we return (tasklet_disable() waits it out).
 * Then the barrier's own callbacks come after every such free.
 */
void dead_tasks_flush(void)
{
	might_sleep();
	tasklet_disable(&dead_tasks_tasklet);
	dead_tasks_queue();
	tasklet_enable(&dead_tasks_tasklet);
}

void put_task(struct task *p)
{
	unsigned long flags;

	if (!atomic_dec_and_test(&p->usage))
		return;
	/* The last reference goes after task_exit() took p off the list and hash. */
	if (!irqs_disabled()) {
		call_rcu(&p->rcu, task_free_rcu, p);
		return;
	}
	flags = spin_lock_irqsave(&dead_tasks_lock);
	list_add_tail(&p->rcu.list, &dead_tasks);	/* not queued on RCU yet */
	spin_unlock_irqrestore(&dead_tasks_lock, flags);
	tasklet_hi_schedule(&dead_tasks_tasklet);
}

/* First C code of every kernel thread (via kthread_trampoline). */
__noreturn void kthread_entry(struct task *prev) __releases(&rq->lock);
__noreturn void kthread_entry(struct task *prev)
	__releases(&rq->lock)
{
	struct task *me = current;
	int code = -EINTR;

	finish_task_switch(prev);
	local_irq_enable();
	preempt_check_resched();
	if (!READ_ONCE(me->should_stop))
		code = me->fn(me->arg);
	task_exit(code);
}

__noreturn void task_exit(int code)
{
	struct task *me = current;

	if (me->is_idle)
		panic("the idle task of CPU %u tried to exit", smp_processor_id());
	rcu_prove_task_leaving("task exit");
	me->exit_code = code;
	/*
	 * Interrupts off from here: no preemption between the state and the
	 * switch, nor once off the task list, so that rcu-preempt's hotplug
	 * walk (kernel/rcu/rcu_preempt_hotplug.c) misses no task that a
	 * preemption could still count.
	 */
	local_irq_disable();
	task_list_del(me);
	complete_all(&me->exited);	/* joiners may drop their references now */
	WRITE_ONCE(me->state, TASK_DEAD);
	__schedule(SM_NONE);
	panic("dead task %s ran again", me->name);
}

static struct task *kthread_alloc_va(int (*fn)(void *), void *arg, const char *fmt, va_list ap)
{
	struct task *p = kzalloc(sizeof(*p));
	phys_addr_t stack;
	char name[TASK_COMM_LEN];
	u64 *sp;

	if (!p)
		return NULL;
	stack = alloc_pages(TASK_STACK_ORDER);
	if (!stack) {
		kfree(p);
		return NULL;
	}
	vsnprintf(name, sizeof(name), fmt, ap);
	task_init_common(p, name);
	atomic_set(&p->usage, 2);		/* its own, and the creator's */
	p->state = TASK_NEW;
	p->fn = fn;
	p->arg = arg;
	p->cpu = smp_processor_id();
	p->stack = (unsigned long)phys_to_virt(stack);
	p->stack_size = TASK_STACK_SIZE;
	p->stack_owned = true;
	/*
	 * Zeroed, as Linux allocates thread stacks (__GFP_ZERO): the frames
	 * hold no stale words from the block's last owner, and a page that
	 * last held user code loses it here, at once. QEMU's TCG keeps the
	 * code it translated from a page until that code's bytes are
	 * written, and sends every store to such a page through its slow
	 * path meanwhile; a stack whose unused lower part kept a dead
	 * program's translations made each of the task's stores a slow one
	 * for its whole life (docs/chat.md).
	 */
	memset((void *)p->stack, 0, p->stack_size);
	*(u64 *)p->stack = STACK_END_MAGIC;
	/*
	 * The first frame, as switch_to_asm() pops it: six callee-saved
	 * registers (rbp = 0 ends backtraces), then the return address.
	 * Two zero words above keep the trampoline's call 16-byte aligned.
	 */
	sp = (u64 *)(p->stack + p->stack_size);
	*--sp = 0;
	*--sp = 0;
	*--sp = (u64)kthread_trampoline;
	for (int i = 0; i < 6; i++)
		*--sp = 0;
	p->rsp = (unsigned long)sp;
	p->saved_preempt_count = 1;		/* the rq->lock it will release */
	return p;
}

static struct task *kthread_create_va(int (*fn)(void *), void *arg, const char *fmt, va_list ap)
{
	struct task *p = kthread_alloc_va(fn, arg, fmt, ap);

	if (p)
		task_list_add(p);
	return p;
}

struct task *kthread_create_unlisted(int (*fn)(void *), void *arg, const char *fmt, ...)
{
	va_list ap;
	struct task *p;

	va_start(ap, fmt);
	p = kthread_alloc_va(fn, arg, fmt, ap);
	va_end(ap);
	return p;
}

void kthread_publish(struct task *p)
{
	task_list_add(p);
}

struct task *kthread_create(int (*fn)(void *), void *arg, const char *fmt, ...)
{
	va_list ap;
	struct task *p;

	va_start(ap, fmt);
	p = kthread_create_va(fn, arg, fmt, ap);
	va_end(ap);
	return p;
}

struct task *kthread_run(int (*fn)(void *), void *arg, const char *fmt, ...)
{
	va_list ap;
	struct task *p;

	va_start(ap, fmt);
	p = kthread_create_va(fn, arg, fmt, ap);
	va_end(ap);
	if (p)
		wake_up_process(p);
	return p;
}

void kthread_bind(struct task *p, unsigned int cpu)
{
	WARN_ON(p->state != TASK_NEW);
	cpumask_clear(&p->cpus_allowed);
	cpumask_set(cpu, &p->cpus_allowed);
	p->cpu = cpu;
}

struct task *kthread_create_on_cpu(int (*fn)(void *), void *arg, unsigned int cpu,
				   const char *fmt, ...)
{
	va_list ap;
	struct task *p;

	va_start(ap, fmt);
	p = kthread_create_va(fn, arg, fmt, ap);
	va_end(ap);
	if (p)
		kthread_bind(p, cpu);
	return p;
}

int kthread_join(struct task *p)
{
	int code;

	wait_for_completion(&p->exited);
	code = p->exit_code;
	put_task(p);
	return code;
}

bool kthread_join_timeout(struct task *p, long timeout, int *code)
{
	if (!wait_for_completion_timeout(&p->exited, timeout))
		return false;
	if (code)
		*code = p->exit_code;
	put_task(p);
	return true;
}

int kthread_stop(struct task *p)
{
	WRITE_ONCE(p->should_stop, true);
	smp_mb();
	wake_up_process(p);
	return kthread_join(p);
}

bool kthread_should_stop(void)
{
	return READ_ONCE(current->should_stop);
}

const char *task_state_name(long s)
{
	switch (s) {
	case TASK_RUNNING:		return "R";
	case TASK_INTERRUPTIBLE:	return "S";
	case TASK_UNINTERRUPTIBLE:	return "D";
	case TASK_NEW:			return "N";
	case TASK_DEAD:			return "X";
	}
	return "?";
}

static void show_one(struct task *p, void *arg)
{
	printk("%5d %-16s %s cpu%-2d prio %3d %s nvcsw %lu nivcsw %lu migr %lu\n",
	       p->pid, p->name, task_state_name(p->state), p->cpu, p->prio,
	       p->policy == SCHED_FIFO ? "FIFO" : p->policy == SCHED_RR ? "RR  " : "NORM",
	       p->nvcsw, p->nivcsw, p->migrations);
}

void show_tasks(void)
{
	printk("  pid name             st cpu   prio      policy / switches\n");
	for_each_task(show_one, NULL);
}
