/*
 * A reader that is running when its CPU notices a new grace period, and
 * is preempted only afterwards, must still hold that grace period up.
 *
 * In the variants whose readers can be preempted (rcu-preempt, seed 000
 * section 5.7, Figure 33), a CPU that notices a new batch swaps its
 * `next` and `curr` preempted-task counters; a task preempted later counts
 * itself on `next`, which this batch does not wait for. The task running
 * at the swap is the exception: it may already be inside a reader that
 * began before the batch, so if it is preempted before its next switch it
 * must count on `curr` (kernel/rcu/rcu_preempt.c, note 1).
 *
 * The test makes that happen on purpose, with the public API only: a
 * thread enters a reader, notes rcu_gp_started(), and queues a callback
 * and enables bottom halves, so that its CPU's RCU softirq runs on top of
 * it, starts a grace period and notices it (the swap, with this thread
 * current). Then it has itself preempted (need_resched + preempt_enable),
 * and stays in the reader for a while, spinning, preempted now and then by
 * the daemons. A grace period that started after the reader began must
 * not complete before it ends: rcu_gp_completed() may not pass the
 * rcu_gp_started() noted at the start.
 */
#include <ktest.h>
#include <rcupdate.h>
#include <softirq.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <printk.h>

#define HOLD_MS		400
#define ROUNDS		3

struct pr_result {
	unsigned long started, completed_during, completed_after;
	bool cb_ran_inside;
};

static volatile bool pr_cb_ran;

static void pr_cb(void *arg)
{
	pr_cb_ran = true;
}

static int pr_thread(void *arg)
{
	struct pr_result *res = arg;
	static struct rcu_head head;
	u64 end;

	pr_cb_ran = false;
	rcu_read_lock();
	res->started = rcu_gp_started();
	smp_mb();		/* the reader is under way before the batch is asked for */
	call_rcu(&head, pr_cb, NULL);
	local_bh_disable();
	local_bh_enable();	/* the RCU softirq runs here, over this reader */
	preempt_disable();
	set_need_resched();
	preempt_enable();	/* preempted: the first switch since the CPU noticed */
	end = ktime_get_ns() + HOLD_MS * 1000000ULL;
	while (ktime_get_ns() < end)
		cpu_relax();	/* preempted by the daemons now and then */
	res->completed_during = rcu_gp_completed();
	res->cb_ran_inside = pr_cb_ran;
	rcu_read_unlock();
	rcu_barrier();
	res->completed_after = rcu_gp_completed();
	return 0;
}

KTEST(rcu_preempted_reader_holds_gp)
{
	unsigned int cpu = num_online_cpus() > 1 ? 1 : 0;

	if (!rcu_read_side_preemptible()) {
		ktest_skip(t, "readers are not preemptible in this build");
		return;
	}
	for (int round = 0; round < ROUNDS; round++) {
		struct pr_result res = { 0 };
		struct task *p;

		rcu_barrier();		/* no grace period in flight: ours starts fresh */
		p = kthread_create_on_cpu(pr_thread, &res, cpu, "rcu_pr_reader");
		KT_ASSERT(t, p, "no memory for the reader thread");
		wake_up_process(p);
		kthread_join(p);
		kt_info("round %d on cpu%u: started %lu at the reader's start, completed %lu "
			"at its end, %lu after", round, cpu, res.started, res.completed_during,
			res.completed_after);
		KT_EXPECT(t, (long)(res.completed_during - res.started) <= 0 && !res.cb_ran_inside,
			  "a grace period that began inside the reader ended inside it "
			  "(completed %lu > started %lu at the reader's start%s)",
			  res.completed_during, res.started,
			  res.cb_ran_inside ? "; its callback ran" : "");
		KT_EXPECT(t, res.completed_after > res.started, "no grace period after the reader");
	}
}
