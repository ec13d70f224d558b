/*
 * Processes: creation (the first one, fork), exit, wait, and the process
 * list that `ps` reads under RCU.
 *
 * A process runs as one task (include/sched.h) that was made by
 * kthread_create() and entered user mode through user_enter(); its
 * kernel stack is where its system calls and interrupts run. The task's
 * `proc` field points back here, its `cr3` at the address space
 * (kernel/mm/uvm.c), which the context switch loads.
 *
 * Lifetime: the process holds the creator's reference to its task
 * (kthread_create). exit frees the address space at once, becomes a
 * zombie and wakes the parent; the parent's waitpid() unlinks it and
 * drops its task reference (whose free call_rcu() also delays) and
 * hands it to call_rcu(); after a grace period proc_free_rcu() frees the
 * struct. Orphans go to init (the first
 * process), which reaps them. A process counts against MAX_PROCESSES from
 * fork until it is reaped, not until its memory is freed: a grace period
 * delays memory, never a slot (fork waits for it only when memory runs
 * out, proc_fork()).
 */
#include "proc.h"
#include <fault_inject.h>
#include <kmalloc.h>
#include <rculist.h>
#include <spinlock.h>
#include <string.h>
#include <printk.h>
#include <panic.h>
#include <mm.h>
#include <atomic.h>
#include <arch/gdt.h>
#include <arch/cpu.h>
#include <arch/user.h>
#include <ipc.h>
#include <smp.h>
#include <cmdline.h>
#include <time.h>
#include <kcov.h>

static LIST_HEAD(all_processes);
static DEFINE_SPINLOCK(proc_lock);	/* the tree, zombie states, writers of the list */
static atomic_t processes = ATOMIC_INIT(0);		/* alive or zombie: the limit */
static atomic_t processes_freeing = ATOMIC_INIT(0);	/* reaped, memory awaits a grace period */
static atomic_long_t fork_rcu_retries;			/* forks that waited for those frees */
static struct process *init_proc;

long nr_processes(void)
{
	return atomic_read(&processes);
}

long nr_processes_freeing(void)
{
	return atomic_read(&processes_freeing);
}

long nr_fork_rcu_retries(void)
{
	return atomic_long_read(&fork_rcu_retries);
}

/* A new process, counted against MAX_PROCESSES; NULL with *err set. */
static struct process *proc_alloc(const char *name, int uid, int gid, int *err)
{
	struct process *p;

	if (atomic_fetch_add(1, &processes) >= MAX_PROCESSES) {
		atomic_dec(&processes);
		*err = -EAGAIN;
		return NULL;
	}
	p = kzalloc(sizeof(*p));
	if (!p) {
		atomic_dec(&processes);
		*err = -ENOMEM;
		return NULL;
	}
	INIT_LIST_HEAD(&p->children);
	INIT_LIST_HEAD(&p->sibling);
	INIT_LIST_HEAD(&p->list);
	p->magic = PROC_MAGIC;
	init_waitqueue_head(&p->child_wait);
	strlcpy(p->name, name, sizeof(p->name));
	p->uid = uid;
	p->gid = gid;
	spin_lock_init(&p->files.lock, "files");
	return p;
}

/*
 * After a grace period: no `ps` or kill() reader can still stand on p.
 * Only memory waited for it: the process stopped counting against
 * MAX_PROCESSES when it was reaped.
 */
static void proc_free_rcu(void *arg)
{
	struct process *p = arg;

	kfree(p);
	atomic_dec(&processes_freeing);
}

/* Not yet visible to anyone: undo proc_alloc() and what followed. */
static void proc_discard(struct process *p)
{
	files_close_all(&p->files);
	cwd_put(p);
	uvm_destroy(p->vm);
	kfree(p);
	atomic_dec(&processes);
}

/* First C code of every process's task: off to user mode. */
static int proc_task_entry(void *arg)
{
	struct process *p = arg;

	user_enter(&p->entry_regs);
}

/* The task is published whole: `ps -a` and kill() never see it without
 * its process (a forking child listed as a kernel thread). */
static struct task *proc_make_task(struct process *p)
{
	struct task *t = kthread_create_unlisted(proc_task_entry, p, "%s", p->name);

	if (!t)
		return NULL;
	t->proc = p;
	t->cr3 = p->vm->cr3;
	p->task = t;
	p->pid = t->pid;
	kthread_publish(t);
	return t;
}

static void proc_link(struct process *p, struct process *parent)
{
	unsigned long flags = spin_lock_irqsave(&proc_lock);

	p->parent = parent;
	p->ppid = parent ? parent->pid : 0;
	if (parent)
		list_add_tail(&p->sibling, &parent->children);
	list_add_tail_rcu(&p->list, &all_processes);
	spin_unlock_irqrestore(&proc_lock, flags);
}

int proc_start_init(const char *const argv[], int argc)
{
	struct task *t;
	int err;
	struct process *p = proc_alloc("init", 0, 0, &err);

	if (!p)
		return err;
	err = exec_load("bin/init", argv, argc, &p->vm, &p->entry_regs);
	if (err) {
		proc_discard(p);
		return err;
	}
	files_init_console(&p->files);
	t = proc_make_task(p);
	if (!t) {
		proc_discard(p);
		return -ENOMEM;
	}
	init_proc = p;
	proc_link(p, NULL);
	wake_up_process(t);
	return 0;
}

static long proc_fork_once(struct pt_regs *regs)
{
	struct process *parent = current_proc(), *child;
	struct task *t;
	int err;

	child = proc_alloc(parent->name, parent->uid, parent->gid, &err);
	if (!child)
		return err;
	err = files_clone(&child->files, &parent->files);
	cwd_clone(child, parent);
	child->vm = err ? NULL : uvm_clone(parent->vm);
	if (!child->vm) {
		proc_discard(child);
		return -ENOMEM;
	}
	child->entry_regs = *regs;
	child->sig_ignored = READ_ONCE(parent->sig_ignored);	/* POSIX: fork keeps SIG_IGN */
	child->entry_regs.rax = 0;		/* fork() returns 0 in the child */
	t = proc_make_task(child);
	if (!t) {
		proc_discard(child);
		return -ENOMEM;
	}
	/* The child inherits where it may run and how it is scheduled. */
	cpumask_copy(&t->cpus_allowed, &current->cpus_allowed);
	t->cpu = smp_processor_id();
	if (current->policy != SCHED_NORMAL)
		sched_setscheduler(t, current->policy, current->rt_priority);
	proc_link(child, parent);
	wake_up_process(t);
	return child->pid;
}

/*
 * Out of memory while reaped processes still wait for their grace period
 * (their task stacks and structs are freed by call_rcu()): that memory is
 * as good as free, so wait for those callbacks once and try again. Only a
 * second failure reaches the caller, as ENOMEM.
 */
long proc_fork(struct pt_regs *regs)
{
	long ret = proc_fork_once(regs);

	if (ret == -ENOMEM && atomic_read(&processes_freeing)) {
		atomic_long_inc(&fork_rcu_retries);
		rcu_barrier();
		ret = proc_fork_once(regs);
	}
	return ret;
}

__noreturn void proc_exit(int wstatus)
{
	struct process *p = current_proc(), *c, *tmp;
	struct uvm *vm = p->vm;
	unsigned long flags;
	bool wake_init = false;

	kcov_task_exit(current);	/* before the teardown: not its coverage */
	/* Off our own tables before freeing them (the switch would do the same). */
	preempt_disable();
	current->cr3 = 0;
	write_cr3(kernel_cr3());
	p->vm = NULL;
	preempt_enable();
	uvm_destroy(vm);
	files_close_all(&p->files);
	cwd_put(p);
	exit_sem(&p->sem_undo, p->pid);	/* SEM_UNDO: give back what we still hold */
	/*
	 * Out of the PID hash before we are a zombie: the parent may reap
	 * us the moment it sees zombie under proc_lock, and its call_rcu()
	 * waits only for the readers that began before it. A kill() by pid
	 * that began later must not find this task, or it reads the freed
	 * process (or the next fork's, reusing it) through t->proc.
	 */
	task_unhash_pid(current);

	flags = spin_lock_irqsave(&proc_lock);
	if (p == init_proc)
		panic("init exited (status %#x)", wstatus);
	list_for_each_entry_safe(c, tmp, &p->children, sibling) {
		list_move_tail(&c->sibling, &init_proc->children);
		c->parent = init_proc;
		WRITE_ONCE(c->ppid, init_proc->pid);
		wake_init |= c->zombie;
	}
	if (wake_init) {
		init_proc->child_events++;
		wake_up_all(&init_proc->child_wait);
	}
	p->exit_status = wstatus;
	WRITE_ONCE(p->zombie, true);
	p->parent->child_events++;
	wake_up_all(&p->parent->child_wait);
	spin_unlock_irqrestore(&proc_lock, flags);
	task_exit(wstatus);
}

/* A child of me that matches pid (-1: any); *any_child says if one exists. */
static struct process *find_zombie(struct process *me, int pid, bool *any_child)
{
	struct process *c;

	*any_child = false;
	list_for_each_entry(c, &me->children, sibling) {
		if (pid > 0 && c->pid != pid)
			continue;
		*any_child = true;
		if (c->zombie)
			return c;
	}
	return NULL;
}

long proc_wait(int pid, int __user *status, int options)
{
	struct process *me = current_proc(), *z;
	unsigned long flags, seen;
	bool any;

	if (options & ~QS_WNOHANG)
		return -EINVAL;
	for (;;) {
		flags = spin_lock_irqsave(&proc_lock);
		z = find_zombie(me, pid, &any);
		seen = me->child_events;
		spin_unlock_irqrestore(&proc_lock, flags);
		if (z)
			break;
		if (!any)
			return -ECHILD;
		if (options & QS_WNOHANG)
			return 0;
		if (wait_event_interruptible(me->child_wait, READ_ONCE(me->child_events) != seen))
			return -EINTR;
	}
	/* Only this process reaps its children: z stays ours meanwhile. */
	if (status && copy_to_user(status, &z->exit_status, sizeof(int)))
		return -EFAULT;
	pid = z->pid;
	flags = spin_lock_irqsave(&proc_lock);
	list_del(&z->sibling);
	list_del_rcu(&z->list);
	spin_unlock_irqrestore(&proc_lock, flags);
	/* Unhashed before reaped (proc_exit()): no new reader finds z by pid. */
	WARN_ON(task_pid_hashed(z->task));
	/* Gone for the limit now; its memory waits for readers of the list. */
	atomic_inc(&processes_freeing);
	atomic_dec(&processes);
	/*
	 * The task's own free also goes through call_rcu() (put_task()):
	 * queued now, beside the process's, one grace period covers both
	 * for every reader that reached the task through z, and one
	 * rcu_barrier() (qs_stats' QS_STATS_SYNC) sees both done.
	 */
	put_task(z->task);
	call_rcu(&z->rcu, proc_free_rcu, z);
	return pid;
}

static char state_letter(struct process *p)
{
	if (READ_ONCE(p->zombie))
		return 'Z';
	return READ_ONCE(p->task->state) == TASK_RUNNING ? 'R' : 'S';
}

static void fill_info(struct qs_procinfo *i, struct task *t, struct process *p)
{
	i->pid = t->pid;
	i->ppid = p ? READ_ONCE(p->ppid) : 0;
	i->uid = p ? READ_ONCE(p->uid) : 0;
	i->cpu = READ_ONCE(t->cpu);
	i->state = p ? state_letter(p) : READ_ONCE(t->state) == TASK_RUNNING ? 'R' : 'S';
	i->run_ns = READ_ONCE(t->sum_exec_ns);	/* __schedule() adds to it */
	strlcpy(i->name, t->name, sizeof(i->name));
}

/*
 * Check that the entry is still allocated, then pass its fault point: a
 * delay there (fault=ps_entry:<us>: the psstorm scenarios boot with it) is
 * a slow copy-out, which widens the window in which an exit's free races
 * the walk, so that with kmalloc poisoning a free that does not wait for
 * the reader (the busted variant) shows as a poisoned magic instead of
 * passing unseen.
 */
static void ps_check(unsigned long magic, unsigned long want, int pid, const char *what)
{
	if (magic != want)
		panic("tasklist: a reader on CPU %u found a freed %s (pid %d)",
		      smp_processor_id(), what, pid);
	fault_inject(ps_entry, NULL);
}

struct kthread_fill {
	struct qs_procinfo *info;
	int n, max;
};

/* A kernel thread (no process): the task list's reader holds it for us. */
static void fill_kthread(struct task *t, void *arg)
{
	struct kthread_fill *f = arg;

	if (t->proc || f->n == f->max)
		return;
	ps_check(READ_ONCE(t->magic), TASK_MAGIC, t->pid, "task");
	fill_info(&f->info[f->n++], t, NULL);
	ps_check(READ_ONCE(t->magic), TASK_MAGIC, t->pid, "task");
}

/*
 * `ps`: the process list (zombies included), then with QS_PS_KTHREADS
 * every kernel thread from the task list. With tasklist=rcu both walks
 * run under rcu_read_lock() only, so they never hold up fork or exit
 * (seed 001 Table 4's get_pid_list()); tasklist=lock takes proc_lock and
 * task_list_lock, which fork, exit and kthread creation also take.
 */
static void proc_list_fill(struct kthread_fill *f)
{
	struct process *p;

	list_for_each_entry_rcu(p, &all_processes, list, lockdep_is_held(&proc_lock)) {
		if (f->n == f->max)
			break;
		ps_check(READ_ONCE(p->magic), PROC_MAGIC, p->pid, "process");
		fill_info(&f->info[f->n++], p->task, p);
		ps_check(READ_ONCE(p->magic), PROC_MAGIC, p->pid, "process");
	}
}

long proc_list(struct qs_procinfo __user *buf, int arg)
{
	int max = arg & ~QS_PS_KTHREADS;
	struct kthread_fill f = { .n = 0, .max = max };
	unsigned long flags;
	long err;

	if (max <= 0 || max > QS_PS_MAX)
		return -EINVAL;
	f.info = kzalloc(sizeof(*f.info) * max);
	if (!f.info)
		return -ENOMEM;
	if (tasklist_is_rcu()) {
		rcu_read_lock();
		proc_list_fill(&f);
		rcu_read_unlock();
	} else {
		flags = spin_lock_irqsave(&proc_lock);
		proc_list_fill(&f);
		spin_unlock_irqrestore(&proc_lock, flags);
	}
	if (arg & QS_PS_KTHREADS)
		for_each_task(fill_kthread, &f);
	err = copy_to_user(buf, f.info, sizeof(*f.info) * f.n);
	kfree(f.info);
	return err ? err : f.n;
}

/*
 * A live process's task by pid, from the PID hash (a process's task
 * leaves it before the process is a zombie), with a reference, and the
 * process's uid: rcu_read_lock() keeps t->proc valid only while we look
 * (it is freed by call_rcu() after the reap, and the task's reference
 * does not hold it), so what the caller needs of it is read here.
 */
struct task *proc_find_task(int pid, int *uid)
{
	struct process *p;
	struct task *t;

	rcu_read_lock();
	t = get_task_by_pid(pid);
	p = t ? READ_ONCE(t->proc) : NULL;
	if (t && (!p || READ_ONCE(p->zombie))) {
		put_task(t);
		t = NULL;
	}
	if (t)
		*uid = READ_ONCE(p->uid);
	rcu_read_unlock();
	return t;
}

long proc_signal(int pid, int sig, int sender_uid)
{
	struct process *p;
	struct task *t;
	long err = -ESRCH;

	/* Under rcu_read_lock(): a reaped process is freed by call_rcu(). */
	rcu_read_lock();
	t = get_task_by_pid(pid);
	if (!t)
		goto out;
	if (t->magic != TASK_MAGIC)
		panic("tasklist: kill on CPU %u found a freed task (pid %d)",
		      smp_processor_id(), pid);
	p = t->proc;
	if (!p || READ_ONCE(p->zombie))
		goto put;		/* kernel threads take no signals */
	if (READ_ONCE(p->magic) != PROC_MAGIC)
		panic("tasklist: kill on CPU %u found a freed process (pid %d)",
		      smp_processor_id(), pid);
	err = 0;
	if (sender_uid != 0 && sender_uid != READ_ONCE(p->uid))
		err = -EPERM;
	else if (sig && !sig_ignored(p, sig)) {	/* an ignored signal is discarded */
		/* A process signalling itself: the signal is taken on the way
		 * back to user mode, after this call returns. Only a program
		 * that passes the pid getpid() gave it to kill() with a real
		 * signal gets here, which makes it the fuzzers' planted bug when
		 * armed with :warn (docs/fuzzing.md). */
		if (p == current_proc())
			fault_inject(kill_signal_self, p);
		/* The first signal wins: it is what waitpid() reports. */
		__sync_bool_compare_and_swap(&p->kill_signal, 0, sig);
		task_interrupt(t);		/* out of an interruptible sleep */
		resched_cpu(READ_ONCE(t->cpu));	/* out of user mode */
	}
put:
	put_task(t);
out:
	rcu_read_unlock();
	return err;
}

static int fault_signal(unsigned int vector)
{
	switch (vector) {
	case 0:  return QS_SIGFPE;	/* divide error */
	case 1:
	case 3:  return QS_SIGTRAP;	/* debug, breakpoint */
	case 6:  return QS_SIGILL;	/* invalid opcode */
	case 13:
	case 14: return QS_SIGSEGV;	/* general protection, page fault */
	case 16:
	case 19: return QS_SIGFPE;
	}
	return QS_SIGBUS;
}

/*
 * An exception in user mode (from kernel/arch/x86/traps.c, include/
 * upcalls.h): the process dies with a message, as if by the signal a Unix
 * would send; the kernel and every other process go on.
 */
void user_exception(struct pt_regs *regs, const char *what)
{
	struct process *p = current_proc();
	int sig = fault_signal(regs->vector);

	if (!p)
		panic_regs(regs, "%s in user mode outside any process", what);
	if (regs->vector == 14) {
		u64 e = regs->error_code;
		printk("killed: pid %d (%s): page fault at %#lx (%s %s) at rip %#lx, signal %d\n",
		       p->pid, current->name, read_cr2(),
		       e & 1 ? "protection violation," : "no page,",
		       e & 16 ? "exec" : e & 2 ? "write" : "read", regs->rip, sig);
	} else {
		printk("killed: pid %d (%s): %s at rip %#lx, signal %d\n",
		       p->pid, current->name, what, regs->rip, sig);
	}
	local_irq_enable();
	proc_exit(QS_W_SIGNALED(sig));
}
