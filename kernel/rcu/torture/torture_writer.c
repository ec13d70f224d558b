/*
 * rcutorture, the update side: the elements, the writer and the fake
 * writers (docs/rcu/torture.md); the rcu_barrier() tester, which it
 * starts and stops with them, is torture_barrier.c.
 *
 * Elements come from kmalloc() and go back with kfree(), which (with
 * CONFIG_DEBUG_KMALLOC_POISON) overwrites all of an element, rtort_mark
 * included, with 0x6b bytes: a reader that still holds a freed element
 * sees the poison. An element's life:
 *
 *   age 0   installed by rcu_assign_pointer(rcu_torture_current, p)
 *   age 1   replaced by a newer one: retired, readers may still hold it
 *   age k   k-1 grace periods have ended since it was retired
 *   age RCU_TORTURE_PIPE_LEN   freed
 *
 * The writer retires the old element in one of four ways, chosen at
 * random: three times in four call_rcu() (the callback adds one to the age and
 * re-queues itself until the element is freed, so each element waits out
 * nine grace periods in a chain; the writer does not wait, so updates
 * come fast), otherwise synchronize_rcu() or synchronize_rcu_expedited(),
 * the polled API started with
 * start_poll_synchronize_rcu() and polled, or get_state plus
 * cond_synchronize_rcu(). The last three put the element on
 * rcu_torture_removed, and every grace period they wait for ages every
 * element on that list.
 */
#include "torture.h"
#include <kmalloc.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <printk.h>
#include <completion.h>
#include <wait.h>
#include <mutex.h>
#include <cpumask.h>

struct torture_writer_stats torture_wstats;
struct rcu_torture __rcu *rcu_torture_current;
volatile unsigned long rcu_torture_current_version;

/* Elements retired by the synchronous and polled paths (writer only). */
static LIST_HEAD(rcu_torture_removed);

#define TORTURE_MAX_FAKEWRITERS	16
#define TORTURE_WAIT_LIMIT	(30 * HZ)	/* a callback or poll this late is lost */

static struct task *writer_task;
static struct task *fakewriter_tasks[TORTURE_MAX_FAKEWRITERS];

/* ---------------------------------------------------------------- elements */

static struct rcu_torture *rcu_torture_alloc(void)
{
	struct rcu_torture *p = kmalloc(sizeof(*p));

	if (!p) {
		atomic_long_inc(&torture_errors.alloc);
		return NULL;
	}
	p->rtort_mark = RTORT_MARK;
	p->rtort_pipe_count = 0;
	p->rtort_version = 0;
	INIT_LIST_HEAD(&p->rtort_removed);
	atomic_long_inc(&torture_wstats.alloc);
	return p;
}

/*
 * One more grace period has ended since p was retired (or p is being
 * retired now: age 0 -> 1). True when p has reached the end of the
 * pipeline and is to be freed.
 */
static bool rcu_torture_age(struct rcu_torture *p)
{
	int i = READ_ONCE(p->rtort_pipe_count);

	if (i < 0 || i > RCU_TORTURE_PIPE_LEN)
		i = RCU_TORTURE_PIPE_LEN;
	atomic_long_inc(&torture_wstats.wcount[i]);
	WRITE_ONCE(p->rtort_pipe_count, i + 1);
	return i + 1 >= RCU_TORTURE_PIPE_LEN;
}

static void rcu_torture_free(struct rcu_torture *p)
{
	atomic_long_inc(&torture_wstats.free);
	kfree(p);			/* rtort_mark becomes 0x6b6b... */
}

/* A grace period ended for everything on rcu_torture_removed. */
static void rcu_torture_pipe_update(void)
{
	struct rcu_torture *p, *n;

	list_for_each_entry_safe(p, n, &rcu_torture_removed, rtort_removed) {
		if (rcu_torture_age(p)) {
			list_del(&p->rtort_removed);
			rcu_torture_free(p);
		}
	}
}

static void rcu_torture_cb(void *arg);

static void rcu_torture_queue(struct rcu_torture *p)
{
	atomic_long_inc(&torture_wstats.cbs_queued);
	call_rcu(&p->rtort_rcu, rcu_torture_cb, p);
}

/* A grace period has ended since p was queued: age it, re-queue or free. */
static void rcu_torture_cb(void *arg)
{
	struct rcu_torture *p = arg;

	atomic_long_inc(&torture_wstats.cbs_invoked);
	if (rcu_torture_age(p))
		rcu_torture_free(p);
	else
		rcu_torture_queue(p);
}

/* ---------------------------------------------------------------- the writer */

/* Wait for the polled cookie by polling; then check the wait API agrees. */
static void rcu_torture_poll_wait(unsigned long cookie, unsigned long gp_before)
{
	long waited = 0;

	while (!poll_state_synchronize_rcu(cookie)) {
		/*
		 * Once torture is stopping, nothing else asks for grace
		 * periods, and a variant that starts one only on demand
		 * (busted; any with no callback queued) would leave this
		 * poll to wait out the limit and the run to end 30 s late:
		 * ask for the grace period instead. The check below still
		 * holds the variant to a whole grace period.
		 */
		if (READ_ONCE(torture_stopping)) {
			cond_synchronize_rcu(cookie);
			break;
		}
		if (waited++ > TORTURE_WAIT_LIMIT) {
			atomic_long_inc(&torture_errors.poll);
			torture_report("poll_state_synchronize_rcu(%lu) still false after %d s",
				       cookie, TORTURE_WAIT_LIMIT / HZ);
			cond_synchronize_rcu(cookie);
			break;
		}
		torture_sleep(1);
	}
	/* A full grace period began and ended after the cookie was taken. */
	if ((long)(rcu_gp_completed() - gp_before) < 1) {
		atomic_long_inc(&torture_errors.poll);
		torture_report("polled grace period done, but rcu_gp_completed() "
			       "did not move (%lu)", gp_before);
	}
}

/*
 * Expedited against a long reader. The writer's own readers meet an
 * expedited grace period inside a long section only by chance (one read
 * in torture.long_every, on whichever CPU the writer is not), so an
 * expedited wait that gives up early was seen at some CPU counts and not
 * others. Here the writer asks a reader of its own to enter a section on
 * another CPU and hold it for long_delay/2 to long_delay (a tick is short
 * beside that even when the host lags the guest), waits until
 * it is inside, and only then calls synchronize_rcu_expedited(): the
 * grace period must outlast that reader, every time.
 */
static struct task *exp_reader_task;
static DECLARE_WAIT_QUEUE_HEAD(exp_rd_wq);
static DEFINE_MUTEX(exp_rd_mutex);	/* one request at a time */
static struct {
	unsigned long req;	/* the writer's request number */
	unsigned int cpu;	/* where to read */
	unsigned long delay_us;	/* how long to hold the section */
	unsigned long inside;	/* the request being read, while inside */
	unsigned long done;	/* the last request served */
} exp_rd;

static int rcu_torture_exp_reader(void *arg)
{
	unsigned long seen = 0, req;

	while (!READ_ONCE(torture_stopping)) {
		wait_event_timeout(exp_rd_wq, READ_ONCE(exp_rd.req) != seen ||
				   READ_ONCE(torture_stopping), HZ);
		req = READ_ONCE(exp_rd.req);
		if (req == seen)
			continue;
		seen = req;
		smp_rmb();	/* the request's cpu and delay after its number */
		/* An offline target: no read; the writer sees done and goes on. */
		if (!set_cpus_allowed_one(current, READ_ONCE(exp_rd.cpu))) {
			rcu_read_lock();
			WRITE_ONCE(exp_rd.inside, req);
			wake_up(&exp_rd_wq);
			udelay(READ_ONCE(exp_rd.delay_us));
			/* Cleared before the unlock: a writer that sees it set
			 * after its grace period saw the grace period end under us. */
			WRITE_ONCE(exp_rd.inside, 0);
			rcu_read_unlock();
		}
		WRITE_ONCE(exp_rd.done, req);
		wake_up(&exp_rd_wq);
	}
	return 0;
}

/* At most the default long read: a control run with 400 ms readers would
 * otherwise hold the writer that long at every expedited call. */
#define EXP_LONG_MAX_US		40000

static void rcu_torture_exp_long_locked(struct torture_rand *r, unsigned int cpu)
{
	unsigned long longd = MIN(torture_params.long_delay_us, (unsigned long)EXP_LONG_MAX_US), req;

	req = exp_rd.req + 1;
	WRITE_ONCE(exp_rd.cpu, cpu);
	WRITE_ONCE(exp_rd.delay_us, longd / 2 + torture_random(r) % (longd / 2 + 1));
	smp_wmb();	/* cpu and delay before the request number */
	WRITE_ONCE(exp_rd.req, req);
	wake_up(&exp_rd_wq);
	wait_event_timeout(exp_rd_wq, READ_ONCE(exp_rd.inside) == req ||
			   READ_ONCE(exp_rd.done) == req, HZ);
	if (READ_ONCE(exp_rd.inside) != req) {
		/* Not inside (yet, or any more): an expedited grace period
		 * all the same, with no reader to hold it to. */
		synchronize_rcu_expedited();
	} else {
		synchronize_rcu_expedited();
		if (READ_ONCE(exp_rd.inside) == req) {
			atomic_long_inc(&torture_errors.exp);
			torture_report("synchronize_rcu_expedited() returned while a reader "
				       "that entered before it (cpu%u, %lu us) was still inside",
				       cpu, READ_ONCE(exp_rd.delay_us));
		}
		atomic_long_inc(&torture_wstats.exp_long);
	}
	/* Served before the next request, so that requests never overlap. */
	wait_event_timeout(exp_rd_wq, READ_ONCE(exp_rd.done) == req, TORTURE_WAIT_LIMIT);
}

/*
 * synchronize_rcu_expedited(), held to the long reader where one can be
 * set up: two CPUs at least, and the reader not busy with another
 * writer's request (then a plain one).
 */
static void rcu_torture_expedited(struct torture_rand *r)
{
	unsigned int me, cpu;

	if (!exp_reader_task || num_online_cpus() < 2 || torture_params.long_delay_us < 4 ||
	    !mutex_trylock(&exp_rd_mutex)) {
		synchronize_rcu_expedited();
		return;
	}
	me = smp_processor_id();
	cpu = cpumask_next(me + 1, &cpu_online_mask);
	if (cpu >= CONFIG_NR_CPUS)
		cpu = cpumask_next(0, &cpu_online_mask);
	if (cpu == me)
		synchronize_rcu_expedited();
	else
		rcu_torture_exp_long_locked(r, cpu);
	mutex_unlock(&exp_rd_mutex);
}

/*
 * The kind of grace period to retire an element by: three times in four
 * call_rcu() when torture.gp allows it (the update rate stays high),
 * otherwise one of the waiting kinds; a kind torture.gp leaves out
 * passes its turn to the next one it allows.
 */
static unsigned int rcu_torture_gp_kind(unsigned long x)
{
	unsigned int mask = torture_params.gp_mask & TORTURE_GP_WRITER;
	unsigned int k = x % 4 ? 0 : 1 + (x >> 8) % 4;

	if (!mask)		/* SRCU alone: the writer only keeps updates coming */
		mask = TORTURE_GP_CALL;
	while (!(mask & (1U << k)))
		k = (k + 1) % 5;
	return 1U << k;
}

static void rcu_torture_retire(struct rcu_torture *old, struct torture_rand *r)
{
	unsigned long gp, cookie, x = torture_random(r);

	rcu_torture_age(old);			/* age 1: retired */
	switch (rcu_torture_gp_kind(x)) {
	case TORTURE_GP_CALL:
		atomic_long_inc(&torture_wstats.by_call_rcu);
		rcu_torture_queue(old);
		return;
	case TORTURE_GP_SYNC:
		atomic_long_inc(&torture_wstats.by_sync);
		list_add_tail(&old->rtort_removed, &rcu_torture_removed);
		synchronize_rcu();
		break;
	case TORTURE_GP_EXP:
		atomic_long_inc(&torture_wstats.by_exp);
		list_add_tail(&old->rtort_removed, &rcu_torture_removed);
		rcu_torture_expedited(r);
		break;
	case TORTURE_GP_POLL:
		atomic_long_inc(&torture_wstats.by_poll);
		list_add_tail(&old->rtort_removed, &rcu_torture_removed);
		gp = rcu_gp_completed();
		cookie = start_poll_synchronize_rcu();
		rcu_torture_poll_wait(cookie, gp);
		break;
	default:
		atomic_long_inc(&torture_wstats.by_cond);
		list_add_tail(&old->rtort_removed, &rcu_torture_removed);
		cookie = get_state_synchronize_rcu();
		if (torture_random(r) & 1)
			torture_sleep(1);	/* sometimes the grace period is over already */
		cond_synchronize_rcu(cookie);
		if (!poll_state_synchronize_rcu(cookie)) {
			atomic_long_inc(&torture_errors.poll);
			torture_report("cond_synchronize_rcu(%lu) returned, "
				       "poll_state_synchronize_rcu() says not done", cookie);
		}
		break;
	}
	rcu_torture_pipe_update();
}

static int rcu_torture_writer(void *arg)
{
	struct torture_rand r;

	torture_rand_init(&r, 1);
	while (!READ_ONCE(torture_stopping)) {
		struct rcu_torture *p = rcu_torture_alloc(), *old;

		if (!p) {
			torture_sleep(1);
			continue;
		}
		old = rcu_dereference_protected(rcu_torture_current, 1);	/* the one writer */
		p->rtort_version = rcu_torture_current_version + 1;
		/* Publish: p's fields are seen before the pointer to it. */
		rcu_assign_pointer(rcu_torture_current, p);
		WRITE_ONCE(rcu_torture_current_version, p->rtort_version);
		if (old)
			rcu_torture_retire(old, &r);
		/* Sometimes a pause: lets readers pile up on one element. */
		if (!(torture_random(&r) % 16))
			torture_sleep(1);
		else
			cond_resched();
		torture_stutter_wait();
	}
	return 0;
}

/*
 * After the threads stopped: retire the last element, then wait until
 * every element has gone through the whole pipeline. Each rcu_barrier()
 * moves each callback chain on by at least one stage.
 */
void torture_writer_drain(void)
{
	struct rcu_torture *old = rcu_dereference_protected(rcu_torture_current, 1);
	long left;

	rcu_assign_pointer(rcu_torture_current, NULL);
	if (old) {
		rcu_torture_age(old);
		list_add_tail(&old->rtort_removed, &rcu_torture_removed);
	}
	for (int i = 0; i < 2 * RCU_TORTURE_PIPE_LEN && !list_empty(&rcu_torture_removed); i++) {
		synchronize_rcu();
		rcu_torture_pipe_update();
	}
	for (int i = 0; i < 2 * RCU_TORTURE_PIPE_LEN + 2; i++) {
		if (atomic_long_read(&torture_wstats.cbs_queued) ==
		    atomic_long_read(&torture_wstats.cbs_invoked))
			break;
		rcu_barrier();
	}
	left = atomic_long_read(&torture_wstats.alloc) - atomic_long_read(&torture_wstats.free);
	if (left) {
		atomic_long_add(left, &torture_errors.cb_lost);
		torture_report("%ld element(s) never freed (%ld call_rcu() callbacks "
			       "queued, %ld invoked)", left,
			       atomic_long_read(&torture_wstats.cbs_queued),
			       atomic_long_read(&torture_wstats.cbs_invoked));
	}
}

/* ---------------------------------------------------------------- fake writers */

struct fake_cb {
	struct rcu_head rh;
	struct completion done;
};

static void fake_cb_done(void *arg)
{
	struct fake_cb *f = arg;

	atomic_long_inc(&torture_wstats.cbs_invoked);
	complete(&f->done);
}

/* call_rcu() and wait for the callback, with a limit. */
static void fake_call_rcu_and_wait(void)
{
	struct fake_cb *f = kmalloc(sizeof(*f));

	if (!f) {
		atomic_long_inc(&torture_errors.alloc);
		return;
	}
	init_completion(&f->done);
	atomic_long_inc(&torture_wstats.cbs_queued);
	call_rcu(&f->rh, fake_cb_done, f);
	if (!wait_for_completion_timeout(&f->done, TORTURE_WAIT_LIMIT)) {
		atomic_long_inc(&torture_errors.cb_lost);
		torture_report("a call_rcu() callback has not run after %d s",
			       TORTURE_WAIT_LIMIT / HZ);
		return;			/* leaked: it may still run */
	}
	kfree(f);
}

/*
 * Fake writers update nothing: they only ask for grace periods, in every
 * way the API offers, so that grace periods overlap and batch.
 */
static int rcu_torture_fakewriter(void *arg)
{
	struct torture_rand r;
	unsigned long cookie, gp;

	torture_rand_init(&r, 100 + (unsigned long)arg);
	while (!READ_ONCE(torture_stopping)) {
		switch (torture_random(&r) % 8) {
		case 0:
		case 1:
			synchronize_rcu();
			break;
		case 2:
			rcu_torture_expedited(&r);
			break;
		case 3:
		case 4:
			fake_call_rcu_and_wait();
			break;
		case 5:
			cookie = get_state_synchronize_rcu();
			cond_synchronize_rcu(cookie);
			if (!poll_state_synchronize_rcu(cookie)) {
				atomic_long_inc(&torture_errors.poll);
				torture_report("fake writer: cond_synchronize_rcu(%lu) "
					       "returned early", cookie);
			}
			break;
		case 6:
			gp = rcu_gp_completed();
			cookie = start_poll_synchronize_rcu();
			rcu_torture_poll_wait(cookie, gp);
			break;
		default:
			if (torture_random(&r) % 4)
				synchronize_rcu();
			else
				rcu_barrier();
			break;
		}
		atomic_long_inc(&torture_wstats.fake_ops);
		torture_sleep(torture_random(&r) % 3);
		torture_stutter_wait();
	}
	return 0;
}

/* ---------------------------------------------------------------- start, stop */

int torture_writer_start(void)
{
	writer_task = kthread_run(rcu_torture_writer, NULL, "rcu_torture_wr");
	if (!writer_task)
		return -1;
	if (torture_params.gp_mask & TORTURE_GP_EXP) {
		exp_reader_task = kthread_run(rcu_torture_exp_reader, NULL, "rcu_torture_exprd");
		if (!exp_reader_task)
			return -1;
	}
	for (unsigned long i = 0; i < torture_params.nfakewriters &&
			i < TORTURE_MAX_FAKEWRITERS; i++) {
		fakewriter_tasks[i] = kthread_run(rcu_torture_fakewriter, (void *)i,
						  "rcu_torture_fw%lu", i);
		if (!fakewriter_tasks[i])
			return -1;
	}
	return torture_barrier_start();
}

/* false if the thread is stuck (then it is left running, and leaked). */
static bool torture_join(struct task **pp, const char *what, unsigned long deadline)
{
	long left = (long)(deadline - jiffies);
	bool ok = true;
	int code;

	if (!*pp)
		return true;
	if (!kthread_join_timeout(*pp, MAX(left, 1L), &code)) {
		atomic_long_inc(&torture_errors.stall);
		torture_report("%s did not stop (stuck in a grace-period wait?)", what);
		ok = false;
	}
	*pp = NULL;
	return ok;
}

/* One deadline for them all: a stuck grace period costs its wait once. */
bool torture_writer_stop(void)
{
	unsigned long deadline = jiffies + TORTURE_WAIT_LIMIT + 10 * HZ;
	bool ok = torture_join(&writer_task, "the writer", deadline);

	wake_up(&exp_rd_wq);
	ok &= torture_join(&exp_reader_task, "the expedited writer's reader", deadline);

	for (int i = 0; i < TORTURE_MAX_FAKEWRITERS; i++)
		ok &= torture_join(&fakewriter_tasks[i], "a fake writer", deadline);
	ok &= torture_join(torture_barrier_task(), "the rcu_barrier() tester", deadline);
	return ok;
}
