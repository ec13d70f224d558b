/*
 * update_queue() and the waiter's stack (ktest=ipc_semop_*).
 *
 *   ipc_semop_woken_frame_reused   a waiter's struct sem_queue lives on
 *                                  its stack; once woken it may return
 *                                  and reuse that stack while the waker
 *                                  still scans. The waker must not read
 *                                  the entry after the wake-up.
 *
 * Three kernel threads on one semaphore of value 1:
 *   A  waits for zero (at the head of the queue: non-altering waiters go
 *      first), with a 3 s timeout;
 *   B  semop(-2), queued behind A; once it returns it zeroes the stack
 *      its queue entry was on, and says so;
 *   C  (the test) semop(+1): value 2, A still blocked, B goes through
 *      (value 0) and is woken; since B changed a value the scan must
 *      start over and wake A.
 * A test hook runs in update_queue() right after each wake-up and holds
 * the waker there until B has overwritten its frame, so that a read of
 * B's entry after the wake-up sees zeros ("alter" false, no rescan) and
 * A sleeps to its timeout with the value at zero.
 */
#include <fault_inject.h>
#include "sem.h"
#include <ktest.h>
#include <sched.h>
#include <smp.h>
#include <string.h>
#include <errno.h>
#include <time.h>

static int test_semid;
static volatile bool b_scribbled;

static __attribute__((noinline)) long semop1(short num, short op, long timeout)
{
	struct qs_sembuf sop = { .sem_num = num, .sem_op = op, .sem_flg = 0 };

	return do_semtimedop(test_semid, &sop, 1, timeout, timeout != MAX_SCHEDULE_TIMEOUT);
}

/* Zero the stack below the caller, where semop1()'s frame was. */
static __attribute__((noinline)) void scribble(void)
{
	volatile char frame[1024];

	for (unsigned int i = 0; i < sizeof(frame); i++)
		frame[i] = 0;
	barrier();
}

static int waiter_zero(void *arg)
{
	return semop1(0, 0, 3 * HZ);
}

static int waiter_minus2(void *arg)
{
	long r = semop1(0, -2, 3 * HZ);

	scribble();
	WRITE_ONCE(b_scribbled, true);
	return r;
}

/* In update_queue(), set lock held: wait (bounded) for B's overwrite. */
/* The fault point after each wake-up: hold the waker there a while. */
static int hold_waker(void *arg)
{
	u64 end = ktime_get_ns() + 1000000000ULL;

	while (!READ_ONCE(b_scribbled) && ktime_get_ns() < end)
		cpu_relax();
	return 0;
}

static int nr_pending(void)
{
	struct sem_array *sma = sem_lock_check(test_semid);
	struct sem_queue *q;
	int n = 0;

	if (!sma)
		return -1;
	list_for_each_entry(q, &sma->sem_pending, list)
		n++;
	sem_unlock(sma);
	return n;
}

static bool wait_pending(int n)
{
	for (int i = 0; i < 300; i++) {
		if (nr_pending() == n)
			return true;
		msleep(10);
	}
	return false;
}

KTEST(ipc_semop_woken_frame_reused)
{
	struct task *a, *b;
	int ra = 1, rb = 1;
	long r;

	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs 2 CPUs: the woken waiter runs while the waker waits");
		return;
	}
	if (fault_set_handler(FAULT_sem_after_wake, NULL)) {
		ktest_skip(t, "needs CONFIG_FAULT_INJECT: the waker is held at its fault point");
		return;
	}
	test_semid = sem_create_private(1, 0600);
	KT_ASSERT(t, test_semid >= 0, "sem_create_private: %d", test_semid);
	b_scribbled = false;
	KT_EXPECT(t, semop1(0, 1, MAX_SCHEDULE_TIMEOUT) == 0, "semop(+1) to 1");

	a = kthread_run(waiter_zero, NULL, "semzero");
	KT_ASSERT(t, a, "no thread");
	KT_EXPECT(t, wait_pending(1), "the wait-for-zero never queued");
	b = kthread_run(waiter_minus2, NULL, "semminus2");
	KT_ASSERT(t, b, "no thread");
	KT_EXPECT(t, wait_pending(2), "the -2 never queued");

	fault_set_handler(FAULT_sem_after_wake, hold_waker);
	r = semop1(0, 1, MAX_SCHEDULE_TIMEOUT);
	fault_set_handler(FAULT_sem_after_wake, NULL);
	KT_EXPECT(t, r == 0, "semop(+1): %ld", r);
	KT_EXPECT(t, READ_ONCE(b_scribbled), "the -2 waiter never returned while the waker waited");

	KT_EXPECT(t, kthread_join_timeout(b, 10 * HZ, &rb), "the -2 waiter never exited");
	KT_EXPECT(t, kthread_join_timeout(a, 10 * HZ, &ra), "the wait-for-zero never exited");
	KT_EXPECT(t, rb == 0, "semop(-2) returned %d, not 0", rb);
	KT_EXPECT(t, ra == 0, "the wait-for-zero returned %d, not 0: left asleep with the value "
		  "at zero (-EAGAIN is its timeout)", ra);
	KT_EXPECT(t, sem_remove(test_semid) == 0, "IPC_RMID");
}
