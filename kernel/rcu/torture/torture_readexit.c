/*
 * rcutorture's read-then-exit bursts (torture.read_exit=N; Linux's
 * read_exit_burst): every 100 ms or so a spawner starts N kthreads that
 * each read the torture element a few times, check it as the readers
 * do, queue their own small structure on call_rcu() and exit, then joins
 * them all. The structures are freed by RCU after their tasks are gone:
 * a variant that ties a quiescent state or a callback to the exiting
 * task (its per-task read-side state, its CPU's lists) must neither lose
 * the callback nor end a grace period under the reads. The callbacks
 * queued and invoked are counted and must match once the run drains.
 */
#include "torture.h"
#include "../rcu_internal.h"
#include <kmalloc.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <printk.h>

#define READEXIT_MAX	32

struct readexit_obj {
	struct rcu_head rh;
	unsigned long seen;		/* versions the task read */
};

static struct task *readexit_spawner;
static atomic_long_t readexit_tasks, readexit_queued, readexit_invoked;

static void readexit_free(void *arg)
{
	kfree(arg);
	atomic_long_inc(&readexit_invoked);
}

static int readexit_child(void *arg)
{
	struct readexit_obj *o = kmalloc(sizeof(*o));

	if (!o) {
		atomic_long_inc(&torture_errors.alloc);
		return 0;
	}
	o->seen = 0;
	for (int i = 0; i < 4; i++) {
		struct rcu_torture *p;
		unsigned long gp0;

		rcu_read_lock();
		gp0 = rcu_gp_started();
		p = rcu_dereference(rcu_torture_current);
		if (p) {
			udelay(10 * i);
			if (READ_ONCE(p->rtort_mark) != RTORT_MARK ||
			    READ_ONCE(p->rtort_pipe_count) > 1 ||
			    (long)(rcu_gp_completed() - gp0) > 0) {
				atomic_long_inc(&torture_errors.pipe);
				torture_report("read-exit task on CPU %u: element %p freed or aged "
					       "(age %d) inside its section", smp_processor_id(), p,
					       READ_ONCE(p->rtort_pipe_count));
			}
			o->seen += p->rtort_version;
		}
		rcu_read_unlock();
	}
	atomic_long_inc(&readexit_queued);
	call_rcu(&o->rh, readexit_free, o);
	atomic_long_inc(&readexit_tasks);
	return 0;		/* exits with its callback still queued */
}

static int readexit_spawn(void *arg)
{
	struct task *kids[READEXIT_MAX];
	unsigned long n = MIN(torture_params.read_exit, (unsigned long)READEXIT_MAX);

	while (!READ_ONCE(torture_stopping)) {
		unsigned int k = 0;

		for (unsigned long i = 0; i < n; i++) {
			kids[k] = kthread_run(readexit_child, NULL, "rcu_torture_rx%lu", i);
			if (kids[k])
				k++;
		}
		for (unsigned int i = 0; i < k; i++)
			kthread_join(kids[i]);
		torture_sleep(HZ / 10);
		torture_stutter_wait();
	}
	return 0;
}

int torture_readexit_start(void)
{
	atomic_long_set(&readexit_tasks, 0);
	atomic_long_set(&readexit_queued, 0);
	atomic_long_set(&readexit_invoked, 0);
	if (!torture_params.read_exit)
		return 0;
	readexit_spawner = kthread_run(readexit_spawn, NULL, "rcu_torture_rxspawn");
	return readexit_spawner ? 0 : -1;
}

/* After the spawner stopped and rcu_barrier()s have run (torture.c). */
void torture_readexit_stop(void)
{
	if (!readexit_spawner)
		return;
	kthread_join(readexit_spawner);
	readexit_spawner = NULL;
	rcu_barrier();
	if (atomic_long_read(&readexit_invoked) != atomic_long_read(&readexit_queued)) {
		atomic_long_inc(&torture_errors.cb_lost);
		torture_report("read-exit: %ld of %ld callbacks of exited tasks invoked after "
			       "rcu_barrier()", atomic_long_read(&readexit_invoked),
			       atomic_long_read(&readexit_queued));
	}
	printk("rcu-torture: read-exit: %ld tasks read and exited, %ld of %ld of their "
	       "callbacks invoked\n", atomic_long_read(&readexit_tasks),
	       atomic_long_read(&readexit_invoked), atomic_long_read(&readexit_queued));
}
