/*
 * kill(), signal() and the work done before every return to user mode.
 *
 * There are no signal handlers: a signal ends the process, as SIGKILL
 * would, and its parent's waitpid() sees WIFSIGNALED with that number,
 * unless the process ignores it: signal(sig, SIG_IGN) sets a bit in
 * p->sig_ignored and from then on kill() and the kernel (a pipe's
 * SIGPIPE) discard that signal, as POSIX discards a signal whose action
 * is SIG_IGN; signal(sig, SIG_DFL) clears it. SIGKILL cannot be ignored.
 * Faults (SIGSEGV and friends, process.c) end the process regardless,
 * as Linux forces them. The bits survive fork and exec (POSIX keeps an
 * ignored signal ignored across both). Only the process itself changes
 * its bits; kill() on another CPU reads them with READ_ONCE(): a signal
 * that races signal() is either discarded or delivered, as it may be.
 * kill() only records the signal (p->kill_signal), interrupts the task's
 * interruptible sleep (task_interrupt(): a blocked read, nanosleep,
 * waitpid or semop returns -EINTR) and kicks its CPU; the process ends
 * itself on its way back to user mode, in user_return_work(), where it
 * holds no lock and no kernel reference, so that exit can undo what it
 * must (its semaphore adjustments, its open files) as a normal exit does.
 */
#include "proc.h"
#include <syscall.h>
#include <printk.h>

/* An upcall (include/upcalls.h): irq_exit() calls it on the way back to
 * user mode, and so does the end of every system call. Interrupts may be
 * off (an interrupt return); exit turns them on. */
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

bool sig_ignored(struct process *p, int sig)
{
	return sig > 0 && sig < QS_NSIG && (READ_ONCE(p->sig_ignored) >> (sig - 1) & 1);
}

void signal_self(int sig)
{
	struct process *p = current_proc();

	if (!sig_ignored(p, sig))
		/* The first signal wins, as in proc_signal(). */
		__sync_bool_compare_and_swap(&p->kill_signal, 0, sig);
}

/* signal(sig, SIG_DFL or SIG_IGN): the old disposition. No handlers. */
static long sys_signal(struct pt_regs *r)
{
	long sig = SYSCALL_ARG0(r), act = SYSCALL_ARG1(r);
	struct process *p = current_proc();
	u64 bit, old;

	if (sig <= 0 || sig >= QS_NSIG || (act != QS_SIG_DFL && act != QS_SIG_IGN))
		return -EINVAL;
	if (sig == QS_SIGKILL)
		return act == QS_SIG_DFL ? QS_SIG_DFL : -EINVAL;
	bit = 1ULL << (sig - 1);
	old = READ_ONCE(p->sig_ignored);
	WRITE_ONCE(p->sig_ignored, act == QS_SIG_IGN ? old | bit : old & ~bit);
	return old & bit ? QS_SIG_IGN : QS_SIG_DFL;
}
SYSCALL_DEFINE(SYS_signal, sys_signal);

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
