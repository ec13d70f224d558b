/*
 * The system-call table and the calls too small for a file of their own.
 *
 * Every call registers itself with SYSCALL_DEFINE (include/syscall.h),
 * here or in the file of its subsystem; syscall_table_init() gathers them.
 * syscall_dispatch() is called by syscall_entry (kernel/arch/x86/
 * syscall_entry.asm) with the user registers saved as a struct pt_regs,
 * interrupts on. The number is in rax, the arguments in rdi, rsi, rdx,
 * r10, r8, r9 (r10, not rcx: `syscall` keeps the return address in rcx).
 * The result goes back in rax: a value, or a negative errno. An unknown
 * number gives -ENOSYS. Numbers and structures: include/uapi/quiescent.h.
 *
 * Before going back to user mode, user_return_work() (signal.c) gives the
 * CPU away if someone asked for it (a voluntary switch, and with no
 * kernel reference held, a quiescent state for every RCU variant) and
 * ends the process if it was killed.
 */
#include "proc.h"
#include <syscall.h>
#include <time.h>
#include <smp.h>
#include <kmalloc.h>
#include <mm.h>
#include <string.h>
#include <printk.h>
#include <rcupdate.h>
#include <atomic.h>
#include <cpumask.h>
#include <arch/qemu.h>
#include <panic.h>

/*
 * System calls made, per CPU: every call on every CPU counts one, so one
 * shared counter would move its line between CPUs on each call, a cost
 * every system call would share and that would hide what the call itself
 * shares (the coherence plugin's semop cells, docs/figures.md). Written
 * only by its own CPU with preemption off; the sum is a snapshot.
 */
static DEFINE_PER_CPU(unsigned long, syscalls_on_cpu);

long syscall_count(void)
{
	unsigned long n = 0;
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		n += READ_ONCE(per_cpu(syscalls_on_cpu, cpu));
	return (long)n;
}

#define ARG0(r)	SYSCALL_ARG0(r)
#define ARG1(r)	SYSCALL_ARG1(r)
#define ARG2(r)	SYSCALL_ARG2(r)

static long sys_exit(struct pt_regs *r)
{
	proc_exit(QS_W_EXITED((int)ARG0(r)));
}
SYSCALL_DEFINE(SYS_exit, sys_exit);

static long sys_fork(struct pt_regs *r)
{
	return proc_fork(r);
}
SYSCALL_DEFINE(SYS_fork, sys_fork);

static long sys_execve(struct pt_regs *r)
{
	return proc_execve(r, (const char __user *)ARG0(r),
			   (const char __user *const __user *)ARG1(r));
}
SYSCALL_DEFINE(SYS_execve, sys_execve);

static long sys_waitpid(struct pt_regs *r)
{
	return proc_wait((int)ARG0(r), (int __user *)ARG1(r), (int)ARG2(r));
}
SYSCALL_DEFINE(SYS_waitpid, sys_waitpid);

static long sys_getpid(struct pt_regs *r)
{
	return current_proc()->pid;
}
SYSCALL_DEFINE(SYS_getpid, sys_getpid);

static long sys_getppid(struct pt_regs *r)
{
	return READ_ONCE(current_proc()->ppid);
}
SYSCALL_DEFINE(SYS_getppid, sys_getppid);

static long sys_nanosleep(struct pt_regs *r)
{
	struct qs_timespec ts, rem = { 0, 0 };
	unsigned long j;
	long left;

	if (copy_from_user(&ts, (void __user *)ARG0(r), sizeof(ts)))
		return -EFAULT;
	if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000)
		return -EINVAL;
	if (ts.tv_sec > 1000000)
		ts.tv_sec = 1000000;
	j = ts.tv_sec * HZ + (ts.tv_nsec * HZ + 999999999) / 1000000000;
	left = schedule_timeout_interruptible(j);
	if (!left)
		return 0;
	if (ARG1(r)) {
		rem.tv_sec = left / HZ;
		rem.tv_nsec = (left % HZ) * (1000000000 / HZ);
		if (copy_to_user((void __user *)ARG1(r), &rem, sizeof(rem)))
			return -EFAULT;
	}
	return -EINTR;
}
SYSCALL_DEFINE(SYS_nanosleep, sys_nanosleep);

static long sys_sched_yield(struct pt_regs *r)
{
	yield();
	return 0;
}
SYSCALL_DEFINE(SYS_sched_yield, sys_sched_yield);

/* pid 0 is the caller; others must be the caller's own (or the caller root). */
static struct task *target_task(int pid, long *err)
{
	struct task *t;
	int uid;

	if (pid < 0) {
		*err = -EINVAL;
		return NULL;
	}
	if (pid == 0 || pid == current_proc()->pid) {
		get_task(current);
		return current;
	}
	t = proc_find_task(pid, &uid);
	if (!t) {
		*err = -ESRCH;
		return NULL;
	}
	if (current_proc()->uid != 0 && uid != current_proc()->uid) {
		put_task(t);
		*err = -EPERM;
		return NULL;
	}
	return t;
}

static long sys_sched_setscheduler(struct pt_regs *r)
{
	int policy = ARG1(r), prio;
	struct task *t;
	long err = 0;

	if (copy_from_user(&prio, (void __user *)ARG2(r), sizeof(prio)))
		return -EFAULT;
	if (policy != QS_SCHED_NORMAL && current_proc()->uid != 0)
		return -EPERM;		/* real time is root's */
	t = target_task((int)ARG0(r), &err);
	if (!t)
		return err;
	err = sched_setscheduler(t, policy, prio);
	put_task(t);
	return err;
}
SYSCALL_DEFINE(SYS_sched_setscheduler, sys_sched_setscheduler);

static long sys_sched_setaffinity(struct pt_regs *r)
{
	size_t size = ARG1(r);
	u64 bits[CPUMASK_LONGS];
	cpumask_t mask;
	struct task *t;
	long err = 0;
	unsigned int cpu;

	memset(bits, 0, sizeof(bits));
	if (size > sizeof(bits))
		size = sizeof(bits);
	if (copy_from_user(bits, (void __user *)ARG2(r), size))
		return -EFAULT;
	cpumask_clear(&mask);
	for (cpu = 0; cpu < CONFIG_NR_CPUS; cpu++)
		if ((bits[cpu / 64] >> (cpu % 64) & 1) && cpu_online(cpu))
			cpumask_set(cpu, &mask);
	if (cpumask_empty(&mask))
		return -EINVAL;
	t = target_task((int)ARG0(r), &err);
	if (!t)
		return err;
	err = set_cpus_allowed(t, &mask);
	put_task(t);
	return err;			/* the caller moves on its way out */
}
SYSCALL_DEFINE(SYS_sched_setaffinity, sys_sched_setaffinity);

static long sys_getuid(struct pt_regs *r)
{
	return current_proc()->uid;
}
SYSCALL_DEFINE(SYS_getuid, sys_getuid);

static long sys_setuid(struct pt_regs *r)
{
	int uid = ARG0(r);

	if (uid < 0)
		return -EINVAL;
	if (current_proc()->uid != 0 && uid != current_proc()->uid)
		return -EPERM;
	WRITE_ONCE(current_proc()->uid, uid);
	return 0;
}
SYSCALL_DEFINE(SYS_setuid, sys_setuid);

static long sys_getgid(struct pt_regs *r)
{
	return current_proc()->gid;
}
SYSCALL_DEFINE(SYS_getgid, sys_getgid);

static long sys_setgid(struct pt_regs *r)
{
	int gid = ARG0(r);

	if (gid < 0)
		return -EINVAL;
	if (current_proc()->uid != 0 && gid != current_proc()->gid)
		return -EPERM;
	WRITE_ONCE(current_proc()->gid, gid);
	return 0;
}
SYSCALL_DEFINE(SYS_setgid, sys_setgid);

static long sys_uname(struct pt_regs *r)
{
	struct qs_utsname *u = kzalloc(sizeof(*u));
	long err;

	if (!u)
		return -ENOMEM;
	strlcpy(u->sysname, "Quiescent", sizeof(u->sysname));
	strlcpy(u->nodename, "quiescent", sizeof(u->nodename));
	strlcpy(u->release, "0.8-user", sizeof(u->release));
	snprintf(u->version, sizeof(u->version), "rcu=%s preemption=%s HZ=%d",
		 rcu_variant_name(), preempt_model_name(), HZ);
	strlcpy(u->machine, "x86_64", sizeof(u->machine));
	strlcpy(u->rcu_variant, rcu_variant_name(), sizeof(u->rcu_variant));
	strlcpy(u->preempt, preempt_model_name(), sizeof(u->preempt));
	u->hz = HZ;
	u->ncpus = num_online_cpus();
	u->max_cpus = CONFIG_NR_CPUS;
	u->tsc_khz = tsc_khz;
	err = copy_to_user((void __user *)ARG0(r), u, sizeof(*u));
	kfree(u);
	return err;
}
SYSCALL_DEFINE(SYS_uname, sys_uname);

static void fill_stats(struct qs_stats *s)
{
	struct kmalloc_stats km;
	unsigned int cpu;

	s->uptime_ns = ktime_get_ns();
	s->ncpus = num_online_cpus();
	s->hz = HZ;
	strlcpy(s->rcu_variant, rcu_variant_name(), sizeof(s->rcu_variant));
	s->rcu_gp_started = rcu_gp_started();
	s->rcu_gp_completed = rcu_gp_completed();
	for_each_online_cpu(cpu) {
		struct qs_cpu_stats *c = &s->cpu[cpu < QS_STATS_MAX_CPUS ? cpu : 0];
		struct sched_stats ss;
		unsigned long q, i;

		sched_get_stats(cpu, &ss);
		rcu_cpu_callback_counts(cpu, &q, &i);
		s->rcu_cb_queued += q;
		s->rcu_cb_invoked += i;
		s->nr_switches += ss.nr_switches;
		s->nvcsw += ss.nvcsw;
		s->nivcsw += ss.nivcsw;
		if (cpu >= QS_STATS_MAX_CPUS)
			continue;
		c->nr_switches = ss.nr_switches;
		c->nvcsw = ss.nvcsw;
		c->nivcsw = ss.nivcsw;
		c->idle_ns = ss.idle_ns;
		c->nr_running = nr_running_cpu(cpu);
		c->rcu_queued = q;
		c->rcu_invoked = i;
	}
	kmalloc_get_stats(&km);
	s->kmalloc_objects = km.objects;
	s->kmalloc_bytes = km.bytes;
	s->slab_pages = km.slab_pages;
	s->free_pages = pmm_free_pages();
	s->total_pages = pmm_total_pages();
	s->tasks_alive = nr_tasks_alive();
	s->processes = nr_processes();
	s->processes_freeing = nr_processes_freeing();
	s->fork_rcu_retries = nr_fork_rcu_retries();
	s->user_pages = uvm_pages_alive();
	s->syscalls = syscall_count();
	s->files_open = nr_files_alive();
	s->pipes_open = nr_pipes_alive();
	s->pipes_max = pipes_limit();
}

static long sys_qs_stats(struct pt_regs *r)
{
	size_t size = ARG1(r);
	struct qs_stats *s;
	long err;

	if (ARG2(r) & ~(u64)QS_STATS_SYNC)
		return -EINVAL;
	if (size > sizeof(*s))
		size = sizeof(*s);
	if (ARG2(r) & QS_STATS_SYNC)
		rcu_barrier();		/* reaped processes are freed by call_rcu() */
	s = kzalloc(sizeof(*s));
	if (!s)
		return -ENOMEM;
	fill_stats(s);
	/* Our own buffer, freed below: not counted as live. */
	s->kmalloc_objects--;
	s->kmalloc_bytes -= ksize(s);
	err = copy_to_user((void __user *)ARG0(r), s, size);
	kfree(s);
	return err;
}
SYSCALL_DEFINE(SYS_qs_stats, sys_qs_stats);

static long sys_brk(struct pt_regs *r)
{
	return uvm_brk(current_proc()->vm, ARG0(r));
}
SYSCALL_DEFINE(SYS_brk, sys_brk);

static long sys_clock_gettime(struct pt_regs *r)
{
	u64 ns = ktime_get_ns();
	struct qs_timespec ts = { ns / 1000000000, ns % 1000000000 };

	if (ARG0(r) != QS_CLOCK_REALTIME && ARG0(r) != QS_CLOCK_MONOTONIC)
		return -EINVAL;
	return copy_to_user((void __user *)ARG1(r), &ts, sizeof(ts));
}
SYSCALL_DEFINE(SYS_clock_gettime, sys_clock_gettime);

static long sys_qs_ps(struct pt_regs *r)
{
	return proc_list((struct qs_procinfo __user *)ARG0(r), (int)ARG1(r));
}
SYSCALL_DEFINE(SYS_qs_ps, sys_qs_ps);

static long sys_poweroff(struct pt_regs *r)
{
	if (current_proc()->uid != 0)
		return -EPERM;
	printk("poweroff: by %s (pid %d), status %ld (QEMU exits as %s)\n", current->name,
	       current_proc()->pid, (long)ARG0(r), ARG0(r) ? "failed" : "passed");
	qemu_exit(ARG0(r) ? QEMU_EXIT_FAIL : QEMU_EXIT_PASS);
}
SYSCALL_DEFINE(SYS_poweroff, sys_poweroff);

static long sys_getcpu(struct pt_regs *r)
{
	return smp_processor_id();
}
SYSCALL_DEFINE(SYS_getcpu, sys_getcpu);


/* Built from the .syscalls section by syscall_table_init(). */
static const struct syscall_def *syscall_table[NR_SYSCALLS];
extern const struct syscall_def __syscalls_start[], __syscalls_end[];

void syscall_table_init(void)
{
	const struct syscall_def *d;
	int n = 0;

	for (d = __syscalls_start; d < __syscalls_end; d++, n++) {
		if (d->nr >= NR_SYSCALLS)
			panic("system call %s: number %lu is outside the table (NR_SYSCALLS %d)",
			      d->name, d->nr, NR_SYSCALLS);
		if (syscall_table[d->nr])
			panic("system call %lu registered twice: %s and %s",
			      d->nr, syscall_table[d->nr]->name, d->name);
		syscall_table[d->nr] = d;
	}
	printk("user: %d system calls\n", n);
}

const char *syscall_name(unsigned long nr)
{
	return nr < NR_SYSCALLS && syscall_table[nr] ? syscall_table[nr]->name : NULL;
}

void syscall_dispatch(struct pt_regs *regs);
void syscall_dispatch(struct pt_regs *regs)
{
	unsigned long nr = regs->rax;

	preempt_disable();
	WRITE_ONCE(this_cpu(syscalls_on_cpu), this_cpu(syscalls_on_cpu) + 1);
	preempt_enable();
	if (nr < NR_SYSCALLS && syscall_table[nr])
		regs->rax = syscall_table[nr]->fn(regs);
	else
		regs->rax = -ENOSYS;
	rcu_prove_task_leaving("return to user mode");
	user_return_work(regs);
}
