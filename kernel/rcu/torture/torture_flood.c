/*
 * rcutorture, forward progress under a callback flood (docs/rcu/torture.md;
 * the idea of Linux's rcu_torture_fwd_prog_cr()).
 *
 * One thread queues torture.flood callbacks as fast as it can, each on its
 * own kmalloc()'d rcu_head that the callback frees. It never lets more
 * than torture.flood_bound of its callbacks be pending: at the bound it
 * sleeps, a tick at a time, until half of them have run. So:
 *
 *   - a variant whose grace periods end lets the flood through, and the
 *     flood's memory stays under flood_bound objects: kmalloc's live
 *     objects may exceed their level at the start by at most flood_bound
 *     + TORTURE_FLOOD_SLACK (room for the rest of the torture), and so
 *     may rcu_pending_callbacks() (counted per callback invoked,
 *     kernel/rcu/invoke.c);
 *   - a variant whose grace periods stop ending leaves the flood waiting
 *     at its bound: after TORTURE_FLOOD_STALL with no callback run, that
 *     is reported as a forward-progress failure;
 *   - at the end every callback queued must have been invoked.
 *
 * The flood passes through a quiescent state every 1024 callbacks
 * (yield(), a voluntary switch), as a kernel loop in a non-preemptive
 * kernel must: without one, rcu-ltimer's grace period would wait for
 * this CPU until the flood hit its bound.
 */
#include "torture.h"
#include <kmalloc.h>
#include <sched.h>
#include <time.h>
#include <printk.h>
#include "../rcu_internal.h"

#define FLOOD_MAGIC		0xf100df100df100dUL
#define TORTURE_FLOOD_STALL	(30 * HZ)	/* no callback run for this long */

struct torture_flood_stats torture_fstats;

static struct task *flood_task;
static volatile bool flood_abort;

struct flood_cb {
	struct rcu_head rh;
	unsigned long magic;
};

static void flood_cb(void *arg)
{
	struct flood_cb *f = arg;

	if (f->magic != FLOOD_MAGIC) {
		atomic_long_inc(&torture_errors.flood);
		torture_report("flood callback on a corrupt head %p (magic %lx)", f, f->magic);
	}
	kfree(f);
	atomic_long_inc(&torture_fstats.invoked);
}

static long flood_pending(void)
{
	return atomic_long_read(&torture_fstats.queued) -
	       atomic_long_read(&torture_fstats.invoked);
}

static void flood_sample(long base_objects)
{
	struct kmalloc_stats ks;
	long rp = (long)rcu_pending_callbacks();

	kmalloc_get_stats(&ks);
	if (rp > torture_fstats.max_rcu_pending)
		torture_fstats.max_rcu_pending = rp;
	if (ks.objects - base_objects > torture_fstats.max_objects)
		torture_fstats.max_objects = ks.objects - base_objects;
}

/* Wait until pending <= target; false if no callback ran for too long. */
static bool flood_wait(long target)
{
	long last = atomic_long_read(&torture_fstats.invoked);
	unsigned long since = jiffies;

	while (flood_pending() > target && !READ_ONCE(flood_abort)) {
		long now = atomic_long_read(&torture_fstats.invoked);

		if (now != last) {
			last = now;
			since = jiffies;
		} else if (time_after(jiffies, since + TORTURE_FLOOD_STALL)) {
			atomic_long_inc(&torture_errors.flood);
			torture_report("flood: no forward progress: %ld callbacks pending, "
				       "none invoked for %d s (grace periods stopped?)",
				       flood_pending(), TORTURE_FLOOD_STALL / HZ);
			return false;
		}
		torture_sleep(1);
	}
	return true;
}

static int rcu_torture_flood(void *arg)
{
	unsigned long n = torture_params.flood;
	long bound = (long)torture_params.flood_bound;
	struct kmalloc_stats ks;
	bool progress = true;
	long base;

	kmalloc_get_stats(&ks);
	base = ks.objects;
	torture_fstats.start_ns = ktime_get_ns();
	for (unsigned long i = 0; i < n && !READ_ONCE(flood_abort); i++) {
		struct flood_cb *f = kmalloc(sizeof(*f));
		long pending;

		if (!f) {
			atomic_long_inc(&torture_errors.alloc);
			torture_report("flood: kmalloc failed after %lu callbacks", i);
			break;
		}
		f->magic = FLOOD_MAGIC;
		atomic_long_inc(&torture_fstats.queued);
		call_rcu(&f->rh, flood_cb, f);
		pending = flood_pending();
		if (pending > torture_fstats.max_pending)
			torture_fstats.max_pending = pending;
		if (!(i % 1024)) {
			flood_sample(base);
			yield();
		}
		if (pending >= bound) {
			torture_fstats.throttles++;
			flood_sample(base);
			progress = flood_wait(bound / 2);
			if (!progress)
				break;
		}
	}
	flood_sample(base);
	if (progress && flood_wait(0))
		torture_fstats.end_ns = ktime_get_ns();
	WRITE_ONCE(torture_fstats.done, true);
	return 0;
}

int torture_flood_start(void)
{
	flood_abort = false;
	if (!torture_params.flood)
		return 0;
	flood_task = kthread_run(rcu_torture_flood, NULL, "rcu_torture_fl");
	return flood_task ? 0 : -1;
}

/*
 * Wait for the flood to finish, then check what it saw. Returns false if
 * it had to be cut short.
 */
bool torture_flood_stop(unsigned long timeout_s)
{
	long bound = (long)torture_params.flood_bound;
	bool ok = true;
	int code;

	if (!flood_task)
		return true;
	if (!kthread_join_timeout(flood_task, timeout_s * HZ, &code)) {
		atomic_long_inc(&torture_errors.flood);
		torture_report("flood: not finished %lu s after the torture ended "
			       "(%ld of %lu queued, %ld pending)", timeout_s,
			       atomic_long_read(&torture_fstats.queued), torture_params.flood,
			       flood_pending());
		flood_abort = true;
		kthread_join(flood_task);
		ok = false;
	}
	flood_task = NULL;
	if (atomic_long_read(&torture_fstats.queued) != (long)torture_params.flood ||
	    flood_pending() != 0) {
		atomic_long_inc(&torture_errors.flood);
		torture_report("flood: %ld of %lu callbacks queued, %ld invoked",
			       atomic_long_read(&torture_fstats.queued), torture_params.flood,
			       atomic_long_read(&torture_fstats.invoked));
	}
	if (torture_fstats.max_pending > bound ||
	    torture_fstats.max_objects > bound + TORTURE_FLOOD_SLACK ||
	    torture_fstats.max_rcu_pending > bound + TORTURE_FLOOD_SLACK) {
		atomic_long_inc(&torture_errors.flood);
		torture_report("flood: over its bound: pending %ld (bound %ld), "
			       "kmalloc objects +%ld (bound %ld), rcu_pending_callbacks() "
			       "%ld (bound %ld)", torture_fstats.max_pending, bound,
			       torture_fstats.max_objects, bound + TORTURE_FLOOD_SLACK,
			       torture_fstats.max_rcu_pending, bound + TORTURE_FLOOD_SLACK);
	}
	return ok;
}
