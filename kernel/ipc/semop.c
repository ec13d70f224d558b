/*
 * semop() and semtimedop(): an array of operations on one set, applied
 * all at once or not at all, waiting if they cannot be (seed 004 section
 * 4.3: "each semop() system call presents the semid ..., which must be
 * looked up ... In addition, the semaphore state must be locked"). The
 * lookup and the lock are ipc_lock() (util.c, Figure 11); everything here
 * runs under the one set's lock, so in ipc=rcu mode operations on
 * different sets never share a lock or a written cache line.
 *
 * The algorithm is Linux 2.5's: try_atomic_semop() applies the operations
 * in order and backs them out at the first that would block or overflow;
 * a caller that must wait queues a struct sem_queue on its stack and
 * sleeps; whoever changes values later calls update_queue(), which retries
 * the queue in order and completes what can now go through.
 *
 * Where we differ from 2.5, and why:
 *
 * 1. The waker applies a waiting caller's operations itself and hands it
 *    the result (as Linux does today), instead of waking it to retry:
 *    one pass of the set's lock per wake-up, and no caller can be woken
 *    and then lose the values to a third process.
 * 2. A woken caller never touches the set again unless it must (timeout,
 *    kill, or a spurious wake-up): then it looks the set up by its id,
 *    as 2.5 did, through ipc_lock(). If that fails the set is being
 *    removed, and freeary() holds its lock until it has decided every
 *    waiter's result, so the caller waits for its status to be decided
 *    (a few instructions) before its stack frame, which holds the queue
 *    entry, may go away.
 * 3. The waker holds a reference to the sleeping task across the wake-up:
 *    once status is set the caller may return, exit, and be freed.
 */
#include <fault_inject.h>
#include "sem.h"
#include <sched.h>
#include <syscall.h>
#include <uaccess.h>
#include <time.h>
#include <errno.h>
#include <uapi/quiescent.h>	/* struct qs_timespec */

/*
 * Apply sops to sma, all or none. 0: applied (sempid and sem_otime
 * updated); 1: would block; -EAGAIN: would block with IPC_NOWAIT; -ERANGE:
 * a value or an adjustment out of range. The set's lock is held.
 */
static int try_atomic_semop(struct sem_array *sma, struct qs_sembuf *sops, int nsops,
			    struct sem_undo *un, int pid)
{
	struct qs_sembuf *sop;
	int result;

	for (sop = sops; sop < sops + nsops; sop++) {
		struct sem *curr = sma->sem_base + sop->sem_num;
		int sem_op = sop->sem_op;

		result = curr->semval;
		if (!sem_op && result)
			goto would_block;
		result += sem_op;
		if (result < 0)
			goto would_block;
		if (result > SEMVMX)
			goto out_of_range;
		if (sop->sem_flg & QS_SEM_UNDO) {
			int undo = un->semadj[sop->sem_num] - sem_op;

			if (undo < (-SEMAEM - 1) || undo > SEMAEM)
				goto out_of_range;
			un->semadj[sop->sem_num] = undo;
		}
		curr->semval = result;
	}
	for (sop--; sop >= sops; sop--)
		sma->sem_base[sop->sem_num].sempid = pid;
	sma->sem_otime = ipc_time();
	return 0;

out_of_range:
	result = -ERANGE;
	goto undo;
would_block:
	result = sop->sem_flg & QS_IPC_NOWAIT ? -EAGAIN : 1;
undo:
	for (sop--; sop >= sops; sop--) {
		sma->sem_base[sop->sem_num].semval -= sop->sem_op;
		if (sop->sem_flg & QS_SEM_UNDO)
			un->semadj[sop->sem_num] += sop->sem_op;
	}
	return result;
}

void sem_wake(struct sem_queue *q, int status)
{
	struct task *t = q->sleeper;

	get_task(t);
	smp_store_release(&q->status, status);	/* q may be gone after this */
	wake_up_process(t);
	put_task(t);
}

/*
 * Complete every waiting caller whose operations can go through now, in
 * queue order (departure 1). A completed operation that changed values
 * may let an earlier waiter through, so the scan starts over after it.
 * Whether it changed values is read before the wake-up: from then on q
 * is the woken caller's stack, which it may already have reused.
 */
void update_queue(struct sem_array *sma)
{
	struct sem_queue *q, *tq;
	bool alter;
	int error;

again:
	list_for_each_entry_safe(q, tq, &sma->sem_pending, list) {
		error = try_atomic_semop(sma, q->sops, q->nsops, q->undo, q->pid);
		if (error > 0)
			continue;		/* still blocked */
		alter = q->alter;
		list_del(&q->list);
		sem_wake(q, error);
		fault_inject(sem_after_wake, sma);
		if (error == 0 && alter)
			goto again;
	}
}

/*
 * Sleep until a waker decides our result, the timeout passes (*timeout
 * reaches 0) or we are killed. Called with sma locked and q queued;
 * returns with it unlocked.
 */
static int sem_wait_decided(struct sem_array *sma, struct sem_queue *q, long *timeout)
{
	sem_unlock(sma);
	for (;;) {
		WRITE_ONCE(current->state, TASK_INTERRUPTIBLE);
		smp_mb();	/* our state before reading status (the waker: status, then state) */
		if (READ_ONCE(q->status) != SEMQ_WAITING || signal_pending(current) || !*timeout)
			break;
		*timeout = schedule_timeout(*timeout);
	}
	WRITE_ONCE(current->state, TASK_RUNNING);
	return smp_load_acquire(&q->status);
}

/* Wait for q's result; every exit path leaves q off the set's list. */
static int sem_sleep(struct sem_array *sma, int semid, struct sem_queue *q, long timeout)
{
	int status;

	for (;;) {
		status = sem_wait_decided(sma, q, &timeout);
		if (status != SEMQ_WAITING)
			return status;
		/* Killed, timed out, or woken for nothing: off the list, under the lock. */
		sma = sem_lock_check(semid);
		if (!sma) {
			/* Being removed: freeary() decides our status under its lock. */
			while ((status = smp_load_acquire(&q->status)) == SEMQ_WAITING)
				cpu_relax();
			return status;
		}
		status = q->status;
		if (status != SEMQ_WAITING) {
			sem_unlock(sma);
			return status;
		}
		if (signal_pending(current) || !timeout) {
			list_del(&q->list);
			sem_unlock(sma);
			return timeout ? -EINTR : -EAGAIN;
		}
	}
}

/*
 * The kernel side of semop(): sops already copied in and checked for
 * count. timeout in jiffies (MAX_SCHEDULE_TIMEOUT: none; `timed` says
 * whether the caller gave one, so that 0 means "do not wait").
 */
long do_semtimedop(int semid, struct qs_sembuf *sops, unsigned int nsops, long timeout,
		   bool timed)
{
	struct sem_queue queue;
	struct sem_array *sma;
	struct sem_undo *un = NULL;
	bool undos = false, alter = false;
	int max = 0, error;

	for (unsigned int i = 0; i < nsops; i++) {
		if (sops[i].sem_num > max)
			max = sops[i].sem_num;
		if (sops[i].sem_flg & QS_SEM_UNDO)
			undos = true;
		if (sops[i].sem_op != 0)
			alter = true;
	}
	sma = sem_lock_check(semid);
	if (!sma)
		return -EINVAL;
	error = -EFBIG;
	if (max >= sma->sem_nsems)
		goto out_unlock;
	error = -EACCES;
	if (ipcperms(&sma->sem_perm, alter ? S_IWUGO : S_IRUGO))
		goto out_unlock;
	if (undos) {
		error = -ENOMEM;
		un = find_alloc_undo(sma, semid);
		if (!un)
			goto out_unlock;
	}

	error = try_atomic_semop(sma, sops, nsops, un, ipc_caller_pid());
	if (error <= 0) {
		if (alter && error == 0)
			update_queue(sma);
		goto out_unlock;
	}

	/* We must wait: callers that wait for zero go first, as in 2.5. */
	queue.sleeper = current;
	queue.undo = un;
	queue.pid = ipc_caller_pid();
	queue.status = SEMQ_WAITING;
	queue.sops = sops;
	queue.nsops = nsops;
	queue.alter = alter;
	if (alter)
		list_add_tail(&queue.list, &sma->sem_pending);
	else
		list_add(&queue.list, &sma->sem_pending);
	return sem_sleep(sma, semid, &queue, timed ? timeout : MAX_SCHEDULE_TIMEOUT);

out_unlock:
	sem_unlock(sma);
	return error;
}

/* A relative timeout in jiffies, rounded up; -EFAULT or -EINVAL. */
static long timespec_to_jiffies_user(const struct qs_timespec __user *uts)
{
	struct qs_timespec ts;
	unsigned long j;

	if (copy_from_user(&ts, uts, sizeof(ts)))
		return -EFAULT;
	if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= (long)NSEC_PER_SEC)
		return -EINVAL;
	if (ts.tv_sec >= MAX_SCHEDULE_TIMEOUT / HZ - 1)
		return MAX_SCHEDULE_TIMEOUT - 1;
	j = ts.tv_sec * HZ + (ts.tv_nsec + TICK_NSEC - 1) / TICK_NSEC;
	return j;
}

static long sys_semtimedop_common(int semid, const struct qs_sembuf __user *usops,
				  unsigned long nsops, const struct qs_timespec __user *uts)
{
	struct qs_sembuf sops[SEMOPM];
	long timeout = MAX_SCHEDULE_TIMEOUT;

	if (nsops < 1 || semid < 0)
		return -EINVAL;
	if (nsops > SEMOPM)
		return -E2BIG;
	if (copy_from_user(sops, usops, nsops * sizeof(sops[0])))
		return -EFAULT;
	if (uts) {
		timeout = timespec_to_jiffies_user(uts);
		if (timeout < 0)
			return timeout;
	}
	return do_semtimedop(semid, sops, nsops, timeout, uts != NULL);
}

static long sys_semop(struct pt_regs *r)
{
	return sys_semtimedop_common(SYSCALL_ARG0(r), (const void __user *)SYSCALL_ARG1(r),
				     SYSCALL_ARG2(r), NULL);
}
SYSCALL_DEFINE(SYS_semop, sys_semop);

static long sys_semtimedop(struct pt_regs *r)
{
	return sys_semtimedop_common(SYSCALL_ARG0(r), (const void __user *)SYSCALL_ARG1(r),
				     SYSCALL_ARG2(r), (const void __user *)SYSCALL_ARG3(r));
}
SYSCALL_DEFINE(SYS_semtimedop, sys_semtimedop);
