/*
 * qs_tasklist(op, arg): the task list (seed 001 Table 4, docs/tasklist.md)
 * under test from user space, for user/bin/psstorm's ps/kill storm.
 *
 *   QS_TASKLIST_MODE -1      which walk ps and kill take: 1 rcu, 0 lock
 *   QS_TASKLIST_MODE 0|1     switch to tasklist=lock or rcu (root): the
 *                            writers are the same in both modes, so the
 *                            switch is safe at any time, and one boot
 *                            measures both side by side
 *   QS_TASKLIST_KTHREADS ms  (root) for ms milliseconds, create kernel
 *                            threads that exit on their own and others
 *                            that kthread_stop() ends, as the in-kernel
 *                            stress's churners do (kernel/test/
 *                            test_tasklist.c): the kernel-thread half of
 *                            the storm, which no user program can make
 *                            otherwise; returns how many were made and ended
 *
 * The op codes are spelled-out words, as qs_cpu()'s are, so that the
 * fuzzer's random arguments do not switch modes under other tests; a
 * kill() of the caller ends a KTHREADS run early.
 */
#include "proc.h"
#include <syscall.h>
#include <sched.h>
#include <time.h>
#include <errno.h>

static int qst_short(void *arg)
{
	return 0;
}

static int qst_until_stopped(void *arg)
{
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static long qst_kthreads(unsigned long ms)
{
	u64 t0 = ktime_get_ns();
	long n = 0;

	if (ms == 0 || ms > QS_TASKLIST_KTHREADS_MAX_MS)
		return -EINVAL;
	while (ktime_get_ns() - t0 < ms * 1000000ULL && !READ_ONCE(current_proc()->kill_signal)) {
		struct task *a = kthread_run(qst_short, NULL, "psstorm-k");
		struct task *b = kthread_run(qst_until_stopped, NULL, "psstorm-s");

		if (a) {
			kthread_join(a);
			n++;
		}
		if (b) {
			kthread_stop(b);
			n++;
		}
		if (!a || !b)
			msleep(1);	/* out of memory for now: let the frees catch up */
	}
	return n;
}

static long sys_qs_tasklist(struct pt_regs *r)
{
	unsigned long op = SYSCALL_ARG0(r);
	long arg = (long)SYSCALL_ARG1(r);

	switch (op) {
	case QS_TASKLIST_MODE:
		if (arg == -1)
			return tasklist_is_rcu();
		if (current_proc()->uid != 0)
			return -EPERM;
		if (arg != 0 && arg != 1)
			return -EINVAL;
		tasklist_set_rcu(arg);
		return arg;
	case QS_TASKLIST_KTHREADS:
		if (current_proc()->uid != 0)
			return -EPERM;
		return qst_kthreads(arg);
	default:
		return -EINVAL;
	}
}
SYSCALL_DEFINE(SYS_qs_tasklist, sys_qs_tasklist);
