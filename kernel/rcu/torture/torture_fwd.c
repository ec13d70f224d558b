/*
 * rcutorture's forward-progress test (torture.fwd=1; Linux's
 * rcutorture fwd_progress): for a fraction of the stall time
 * (torture.fwd_pct percent of rcu_stall_timeout), one thread queues
 * call_rcu() callbacks as fast as it can, with no bound, while another
 * runs a loop that never enters a read-side section and never blocks
 * (only cond_resched()), the kind of CPU-bound kernel code a variant's
 * grace periods must get past. Unlike torture_flood.c, which throttles
 * itself to a bound, this flood asks whether the variant keeps up on its
 * own: grace periods must keep ending while it runs (at least one per
 * quarter of the flood), and once it stops every callback must be
 * invoked within the stall time. The most callbacks outstanding (queued,
 * not yet invoked) is printed: the peak the variant let build up.
 */
#include "torture.h"
#include "../rcu_internal.h"
#include <kmalloc.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <printk.h>

struct fwd_cb {
	struct rcu_head rh;
};

static atomic_long_t fwd_queued, fwd_invoked;
static long fwd_max_outstanding;
static unsigned long fwd_capped;
static u64 fwd_ns;			/* how long the flood ran */
#define FWD_CAP		500000
static volatile bool fwd_flooding;
static struct task *fwd_task, *fwd_loop_task;

static void fwd_cb(void *arg)
{
	kfree(arg);
	atomic_long_inc(&fwd_invoked);
}

/* The reader-free loop: busy, never in a section, never blocking. */
static int fwd_loop(void *arg)
{
	while (READ_ONCE(fwd_flooding) && !READ_ONCE(torture_stopping)) {
		udelay(50);
		cond_resched();
	}
	return 0;
}

static int rcu_torture_fwd(void *arg)
{
	u64 len_ns = rcu_stall_timeout_ms() * 10000ULL * torture_params.fwd_pct;
	u64 t0, now, quarter = len_ns / 4, mark;
	unsigned long gp_mark;
	long out;

	WRITE_ONCE(fwd_flooding, true);
	fwd_loop_task = kthread_create_on_cpu(fwd_loop, NULL, num_online_cpus() > 1 ? 1 : 0,
					      "rcu_torture_fwdloop");
	if (fwd_loop_task)
		wake_up_process(fwd_loop_task);
	t0 = mark = ktime_get_ns();
	gp_mark = rcu_gp_completed();
	while (!READ_ONCE(torture_stopping) && (now = ktime_get_ns()) - t0 < len_ns) {
		/* A safety net for the guest's memory, not a throttle: hitting
		 * it is printed with the peak. */
		if (atomic_long_read(&fwd_queued) - atomic_long_read(&fwd_invoked) > FWD_CAP) {
			fwd_capped++;
			cond_resched();
			continue;
		}
		for (int i = 0; i < 64; i++) {
			struct fwd_cb *c = kmalloc(sizeof(*c));

			if (!c)
				break;
			atomic_long_inc(&fwd_queued);
			call_rcu(&c->rh, fwd_cb, c);
		}
		out = atomic_long_read(&fwd_queued) - atomic_long_read(&fwd_invoked);
		if (out > fwd_max_outstanding)
			fwd_max_outstanding = out;
		if (now - mark >= quarter) {
			if (rcu_gp_completed() == gp_mark) {
				atomic_long_inc(&torture_errors.flood);
				torture_report("fwd: no grace period ended in %lu ms of the flood "
					       "(%ld callbacks outstanding)",
					       (unsigned long)((now - mark) / 1000000), out);
			}
			gp_mark = rcu_gp_completed();
			mark = now;
		}
		cond_resched();
	}
	fwd_ns = ktime_get_ns() - t0;
	WRITE_ONCE(fwd_flooding, false);
	if (fwd_loop_task)
		kthread_join(fwd_loop_task);
	fwd_loop_task = NULL;
	return 0;
}

int torture_fwd_start(void)
{
	atomic_long_set(&fwd_queued, 0);
	atomic_long_set(&fwd_invoked, 0);
	fwd_max_outstanding = 0;
	fwd_capped = 0;
	if (!torture_params.fwd)
		return 0;
	fwd_task = kthread_run(rcu_torture_fwd, NULL, "rcu_torture_fwd");
	return fwd_task ? 0 : -1;
}

/* After the other threads stopped: join, then every callback must drain. */
void torture_fwd_stop(void)
{
	u64 limit;

	if (!fwd_task)
		return;
	kthread_join(fwd_task);
	fwd_task = NULL;
	limit = ktime_get_ns() + rcu_stall_timeout_ms() * 1000000ULL;
	while (atomic_long_read(&fwd_invoked) < atomic_long_read(&fwd_queued) &&
	       ktime_get_ns() < limit)
		msleep(10);
	if (atomic_long_read(&fwd_invoked) != atomic_long_read(&fwd_queued)) {
		atomic_long_inc(&torture_errors.cb_lost);
		torture_report("fwd: %ld of %ld callbacks invoked %lu ms after the flood",
			       atomic_long_read(&fwd_invoked), atomic_long_read(&fwd_queued),
			       rcu_stall_timeout_ms());
	}
	printk("rcu-torture: fwd: variant=%s %ld callbacks in %lu ms (%lu%% of the stall time "
	       "%lu ms, or until torture ended), most outstanding %ld%s, all invoked: %s\n", rcu_variant_name(),
	       atomic_long_read(&fwd_queued), (unsigned long)(fwd_ns / 1000000),
	       torture_params.fwd_pct, rcu_stall_timeout_ms(), fwd_max_outstanding,
	       fwd_capped ? " (held at the memory cap)" : "",
	       atomic_long_read(&fwd_invoked) == atomic_long_read(&fwd_queued) ? "yes" : "NO");
}
