/*
 * rcutorture's SRCU polled grace periods (torture.gp bit 32): SRCU's
 * get_state_synchronize_srcu(), start_poll_synchronize_srcu() and
 * poll_state_synchronize_srcu() against sleeping readers of one torture
 * domain. SRCU is built beside every RCU variant, so every variant runs it.
 *
 * Readers: one thread per CPU (at least two). Each enters the domain,
 * takes a stamp from a shared counter into its slot, holds the section
 * (not at all, a few microseconds, or asleep for a tick or two: SRCU
 * readers may sleep), clears the slot and leaves. The stamp is taken
 * after srcu_read_lock(), so a reader whose stamp is at most the value a
 * writer read was inside its section before that read.
 *
 * Writers: two threads, so that a cookie is often taken while the other
 * one's grace period runs. Each reads the counter, takes a cookie (by
 * start_poll_synchronize_srcu(), or by get_state_synchronize_srcu() and
 * then a synchronize_srcu() or a later start_poll), and polls it. Once
 * poll_state_synchronize_srcu() says the grace period is over, no slot may
 * still hold a stamp at or below the value read: that reader began before
 * the cookie and is still inside. A reader clears its slot before
 * srcu_read_unlock() (whose barrier C orders the two), so a reader that
 * has left is never taken for one inside.
 */
#include "torture.h"
#include <srcu.h>
#include <kmalloc.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <printk.h>

#define SRCU_TORTURE_READERS	CONFIG_NR_CPUS
#define SRCU_TORTURE_WRITERS	2
#define SRCU_WAIT_LIMIT		(30 * HZ)

static struct srcu_struct torture_srcu;
static bool torture_srcu_up;
static atomic_long_t srcu_stamp;
static unsigned long srcu_slot[SRCU_TORTURE_READERS];	/* a reader's stamp, 0 outside */
static struct task *srcu_readers[SRCU_TORTURE_READERS];
static struct task *srcu_writers[SRCU_TORTURE_WRITERS];
static unsigned int srcu_nreaders;
atomic_long_t torture_srcu_reads, torture_srcu_polls;
static atomic_t srcu_stall_shown;

static int srcu_torture_reader(void *arg)
{
	unsigned long i = (unsigned long)arg;
	struct torture_rand r;

	torture_rand_init(&r, 300 + i);
	while (!READ_ONCE(torture_stopping)) {
		unsigned long x = torture_random(&r);
		int idx = srcu_read_lock(&torture_srcu);

		WRITE_ONCE(srcu_slot[i], atomic_long_inc_return(&srcu_stamp));
		switch (x % 8) {
		case 0:
		case 1:
		case 2:
			break;
		case 3:
		case 4:
			udelay(1 + (x >> 8) % 50);
			break;
		default:
			schedule_timeout_uninterruptible(1 + (x >> 8) % 2);
			break;
		}
		WRITE_ONCE(srcu_slot[i], 0);
		srcu_read_unlock(&torture_srcu, idx);
		atomic_long_inc(&torture_srcu_reads);
		if (!((x >> 16) % 4))
			torture_sleep(1);
		else
			cond_resched();
		torture_stutter_wait();
	}
	return 0;
}

/* The cookie says done: no reader stamped at or before 'before' may be inside. */
static void srcu_torture_check(unsigned long cookie, unsigned long before, const char *how)
{
	for (unsigned int i = 0; i < srcu_nreaders; i++) {
		unsigned long s = READ_ONCE(srcu_slot[i]);

		if (s && s <= before) {
			atomic_long_inc(&torture_errors.srcu);
			torture_report("poll_state_synchronize_srcu(%lu) true (%s) while SRCU reader %u, "
				       "inside since stamp %lu <= %lu, has not left", cookie, how,
				       i, s, before);
		}
	}
}

static void srcu_torture_poll(unsigned long cookie, unsigned long before, const char *how)
{
	long waited = 0;

	while (!poll_state_synchronize_srcu(&torture_srcu, cookie)) {
		if (waited++ > SRCU_WAIT_LIMIT) {
			atomic_long_inc(&torture_errors.srcu);
			torture_report("poll_state_synchronize_srcu(%lu) (%s) still false after %d s",
				       cookie, how, SRCU_WAIT_LIMIT / HZ);
			/* Who holds it up: a reader that never left, or a
			 * grace period nobody ran (the first writer says). */
			if (!atomic_xchg(&srcu_stall_shown, 1)) {
				srcu_show(&torture_srcu);
				show_tasks();
			}
			return;
		}
		/* First a few quick looks: a grace period that ends under a
		 * short reader is seen while that reader is still inside. */
		if (waited < 8)
			udelay(20);
		else
			schedule_timeout_uninterruptible(1);
	}
	srcu_torture_check(cookie, before, how);
	atomic_long_inc(&torture_srcu_polls);
}

static int srcu_torture_writer(void *arg)
{
	struct torture_rand r;
	unsigned long cookie, before;

	torture_rand_init(&r, 400 + (unsigned long)arg);
	while (!READ_ONCE(torture_stopping)) {
		unsigned long x = torture_random(&r);

		before = atomic_long_read(&srcu_stamp);
		switch (x % 4) {
		case 0:
		case 1:
			cookie = start_poll_synchronize_srcu(&torture_srcu);
			srcu_torture_poll(cookie, before, "start_poll");
			break;
		case 2:
			cookie = get_state_synchronize_srcu(&torture_srcu);
			synchronize_srcu(&torture_srcu);
			if (!poll_state_synchronize_srcu(&torture_srcu, cookie)) {
				atomic_long_inc(&torture_errors.srcu);
				torture_report("synchronize_srcu() returned, poll_state_synchronize_srcu(%lu) "
					       "says not done", cookie);
			}
			srcu_torture_check(cookie, before, "get_state + synchronize_srcu");
			break;
		default:
			/* A cookie kept a while, then a grace period asked for. */
			cookie = get_state_synchronize_srcu(&torture_srcu);
			torture_sleep((x >> 8) % 2);
			start_poll_synchronize_srcu(&torture_srcu);
			srcu_torture_poll(cookie, before, "get_state + start_poll");
			break;
		}
		if (!((x >> 12) % 4))
			torture_sleep(1);
		torture_stutter_wait();
	}
	return 0;
}

int torture_srcu_start(void)
{
	if (!(torture_params.gp_mask & TORTURE_GP_SRCU))
		return 0;
	atomic_long_set(&torture_srcu_reads, 0);
	atomic_long_set(&torture_srcu_polls, 0);
	atomic_long_set(&srcu_stamp, 0);
	atomic_set(&srcu_stall_shown, 0);
	if (init_srcu_struct(&torture_srcu, "torture") != 0)
		return -1;
	torture_srcu_up = true;
	srcu_nreaders = MAX(2U, num_online_cpus());
	if (srcu_nreaders > SRCU_TORTURE_READERS)
		srcu_nreaders = SRCU_TORTURE_READERS;
	for (unsigned long i = 0; i < srcu_nreaders; i++) {
		srcu_slot[i] = 0;
		srcu_readers[i] = kthread_run(srcu_torture_reader, (void *)i, "rcu_torture_srd%lu", i);
		if (!srcu_readers[i])
			return -1;
	}
	for (unsigned long i = 0; i < SRCU_TORTURE_WRITERS; i++) {
		srcu_writers[i] = kthread_run(srcu_torture_writer, (void *)i, "rcu_torture_swr%lu", i);
		if (!srcu_writers[i])
			return -1;
	}
	return 0;
}

void torture_srcu_stop(void)
{
	bool joined = true;
	int code;

	for (unsigned int i = 0; i < SRCU_TORTURE_WRITERS; i++)
		if (srcu_writers[i]) {
			if (!kthread_join_timeout(srcu_writers[i], SRCU_WAIT_LIMIT + 10 * HZ, &code)) {
				atomic_long_inc(&torture_errors.stall);
				torture_report("an SRCU writer did not stop");
				joined = false;
			}
			srcu_writers[i] = NULL;
		}
	for (unsigned int i = 0; i < SRCU_TORTURE_READERS; i++)
		if (srcu_readers[i]) {
			if (!kthread_join_timeout(srcu_readers[i], 30 * HZ, &code)) {
				atomic_long_inc(&torture_errors.stall);
				torture_report("an SRCU reader did not stop");
				joined = false;
			}
			srcu_readers[i] = NULL;
		}
	if (torture_srcu_up && joined) {	/* a stuck thread may still use it */
		srcu_barrier(&torture_srcu);
		cleanup_srcu_struct(&torture_srcu);
		torture_srcu_up = false;
	}
}
