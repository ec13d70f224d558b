/*
 * kill() and the work done before every return to user mode.
 *
 * There are no signal handlers: a signal ends the process, as SIGKILL
 * would, and its parent's waitpid() sees WIFSIGNALED with that number.
 * kill() only records the signal (p->kill_signal), interrupts the task's
 * interruptible sleep (task_interrupt(): a blocked read, nanosleep,
 * waitpid or semop returns -EINTR) and kicks its CPU; the process ends
 * itself on its way back to user mode, in user_return_work(), where it
 * holds no lock and no kernel reference, so that exit can undo what it
 * must (its semaphore adjustments, its open files) as a normal exit does.
 */
#include "user.h"
#include <syscall.h>
#include <printk.h>

/* Replaces the weak version in kernel/sched/preempt.c's irq_exit() path
 * and is called at the end of every system call. Interrupts may be off
 * (an interrupt return); exit turns them on. */
void user_return_work(struct pt_regs *regs)
{
	struct process *p = current_proc();
	int sig;

	if (need_resched())
		schedule();
	if (unlikely(p && (sig = READ_ONCE(p->kill_signal)))) {
		local_irq_enable();
		proc_exit(QS_W_SIGNALED(sig));
	}
}

static long sys_kill(struct pt_regs *r)
{
	int pid = SYSCALL_ARG0(r), sig = SYSCALL_ARG1(r);

	if (sig < 0 || sig >= QS_NSIG)
		return -EINVAL;
	if (pid <= 0)
		return -EINVAL;		/* no process groups */
	return proc_signal(pid, sig, current_proc()->uid);
}
SYSCALL_DEFINE(SYS_kill, sys_kill);
