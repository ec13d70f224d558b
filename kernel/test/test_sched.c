/*
 * Scheduler tests, part 1: kernel threads and the blocking primitives.
 *
 * Every wait here is bounded (a join with a time-out), so a lost wake-up
 * shows up as a failed test, not as a hung run.
 */
#include <ktest.h>
#include <sched.h>
#include <semaphore.h>
#include <mutex.h>
#include <completion.h>
#include <smp.h>
#include <time.h>
#include <printk.h>
#include <rcupdate.h>
#include <mm.h>
#include <string.h>

#define JOIN_TIMEOUT	(10 * HZ)

/* Join, or report the thread as stuck (and leak it: it may still run). */
static bool join_or_fail(struct ktest_ctx *t, struct task *p, int *code)
{
	const char *name = p->name;
	bool ok = kthread_join_timeout(p, JOIN_TIMEOUT, code);

	KT_EXPECT(t, ok, "thread %s did not finish within %d s", name, JOIN_TIMEOUT / HZ);
	return ok;
}

/* ---------------------------------------------------------------- threads */

static int return_arg(void *arg)
{
	msleep(1);
	return (int)(long)arg;
}

KTEST(sched_kthread_create_join)
{
	enum { N = 16 };
	struct task *p[N];
	long alive0;

	rcu_barrier();		/* earlier tests' dead tasks: freed by call_rcu() */
	alive0 = nr_tasks_alive();

	for (int i = 0; i < N; i++) {
		p[i] = kthread_run(return_arg, (void *)(long)(i * 7), "ret%d", i);
		KT_ASSERT(t, p[i], "kthread_run %d failed", i);
	}
	for (int i = 0; i < N; i++) {
		int code = -1;
		if (join_or_fail(t, p[i], &code))
			KT_EXPECT(t, code == i * 7, "thread %d exit code %d", i, code);
	}
	/*
	 * Each dead task is freed by the task that ran after it on its CPU:
	 * soon, unless the host holds that vCPU; up to 5 s by the clock.
	 */
	for (u64 t0 = ktime_get_ns(); ktime_get_ns() - t0 < 5000000000ULL && nr_tasks_alive() != alive0; ) {
		msleep(1);
		rcu_barrier();
	}
	KT_EXPECT(t, nr_tasks_alive() == alive0, "%ld tasks alive, %ld before",
		  nr_tasks_alive(), alive0);
}

static int until_stopped(void *arg)
{
	int *loops = arg;

	while (!kthread_should_stop()) {
		(*loops)++;
		schedule_timeout_interruptible(1);
	}
	return 42;
}

KTEST(sched_kthread_stop)
{
	int loops = 0;
	struct task *p = kthread_run(until_stopped, &loops, "stopme");

	KT_ASSERT(t, p, "kthread_run failed");
	msleep(30);
	kt_info("it looped %d times in 30 ms", READ_ONCE(loops));
	/*
	 * Stopped before its first run, a kthread never calls its function
	 * (no loop, no 42): give its CPU, which the host may hold, up to
	 * 5 s to run it once.
	 */
	for (int ms = 0; ms < 5000 && !READ_ONCE(loops); ms += 10)
		msleep(10);
	KT_EXPECT(t, READ_ONCE(loops) > 0, "the thread never ran in 5 s");
	KT_EXPECT(t, kthread_stop(p) == 42, "exit code");
}

/*
 * A new kernel thread's stack holds nothing but zeros below the first
 * frame kthread_create() builds, whatever its block held before. The
 * test first writes a pattern into as many stack-sized blocks as it can
 * take (up to SCRUB) and frees them: the buddy allocator's lists are
 * LIFO, so the new stack is one of them, and without the zeroing the
 * pattern is still there. (Stale words under a stack are what let a
 * dead program's pages keep QEMU's translations of their code, which
 * made a boot's second chat run slow: docs/chat.md.)
 */
KTEST(sched_kthread_stack_zeroed)
{
	enum { SCRUB = 32 };
	phys_addr_t blk[SCRUB];
	unsigned long dirty = 0, words = 0, first = 0;
	int n = 0, code = -1;
	struct task *p;

	while (n < SCRUB && (blk[n] = alloc_pages(TASK_STACK_ORDER)))
		memset(phys_to_virt(blk[n++]), 0xa5, TASK_STACK_SIZE);
	while (n > 0)
		free_pages(blk[--n], TASK_STACK_ORDER);
	p = kthread_create(return_arg, (void *)7L, "zstack");
	KT_ASSERT(t, p, "kthread_create failed");
	/* Not yet woken: everything between the end marker and p->rsp is unused. */
	for (const u64 *w = (const u64 *)p->stack + 1; (unsigned long)w < p->rsp; w++, words++)
		if (*w && !dirty++)
			first = (unsigned long)w - p->stack;
	KT_EXPECT(t, !dirty, "%lu of the %lu words below the new stack's first frame are "
		  "not zero (the first at offset %#lx)", dirty, words, first);
	wake_up_process(p);
	if (join_or_fail(t, p, &code))
		KT_EXPECT(t, code == 7, "exit code %d", code);
}

/* ---------------------------------------------------------------- semaphores */

#define PP_ITERS	(num_online_cpus() > 2 ? 300 : 600)

struct pingpong {
	struct semaphore ping, pong;
	int iters;
	int a_done, b_done;
};

static int ping_side(void *arg)
{
	struct pingpong *pp = arg;

	for (int i = 0; i < pp->iters; i++) {
		up(&pp->ping);
		down(&pp->pong);
		pp->a_done++;
	}
	return 0;
}

static int pong_side(void *arg)
{
	struct pingpong *pp = arg;

	for (int i = 0; i < pp->iters; i++) {
		down(&pp->ping);
		pp->b_done++;
		up(&pp->pong);
	}
	return 0;
}

/*
 * Pairs of threads bounce through two semaphores: half the pairs bound
 * to neighbouring CPUs (every wake-up crosses CPUs), half unbound. A
 * lost wake-up leaves a pair stuck, and the join times out.
 */
KTEST(sched_semaphore_pingpong)
{
	unsigned int n = num_online_cpus();
	unsigned int pairs = 2 * n < 4 ? 4 : 2 * n;
	static struct pingpong pp[32];
	struct task *a[32], *b[32];
	u64 t0 = ktime_get_ns();

	if (pairs > 32)
		pairs = 32;
	for (unsigned int k = 0; k < pairs; k++) {
		sema_init(&pp[k].ping, 0);
		sema_init(&pp[k].pong, 0);
		pp[k].iters = PP_ITERS;
		pp[k].a_done = pp[k].b_done = 0;
		a[k] = kthread_create(ping_side, &pp[k], "ping%u", k);
		b[k] = kthread_create(pong_side, &pp[k], "pong%u", k);
		KT_ASSERT(t, a[k] && b[k], "no memory");
		if (k % 2 == 0) {
			kthread_bind(a[k], k / 2 % n);
			kthread_bind(b[k], (k / 2 + 1) % n);
		}
	}
	for (unsigned int k = 0; k < pairs; k++) {
		wake_up_process(a[k]);
		wake_up_process(b[k]);
	}
	for (unsigned int k = 0; k < pairs; k++) {
		join_or_fail(t, a[k], NULL);
		join_or_fail(t, b[k], NULL);
		KT_EXPECT(t, pp[k].a_done == pp[k].iters && pp[k].b_done == pp[k].iters,
			  "pair %u: %d and %d of %d rounds", k, pp[k].a_done, pp[k].b_done,
			  pp[k].iters);
		KT_EXPECT(t, pp[k].ping.count == 0 && pp[k].pong.count == 0,
			  "pair %u: counts %u %u left over", k, pp[k].ping.count, pp[k].pong.count);
	}
	kt_info("%u pairs x %d round trips on %u CPUs in %lu ms", pairs, PP_ITERS, n,
		(unsigned long)((ktime_get_ns() - t0) / 1000000));
}

/* A counting semaphore admits at most `count` holders at once. */
static struct semaphore gate;
static int inside, max_inside;

static int gate_user(void *arg)
{
	for (int i = 0; i < 20; i++) {
		down(&gate);
		int now = __atomic_add_fetch(&inside, 1, __ATOMIC_SEQ_CST);
		int m = READ_ONCE(max_inside);
		while (now > m && !__atomic_compare_exchange_n(&max_inside, &m, now, false,
							   __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			;
		if (i % 4 == 0)
			msleep(1);
		else
			yield();
		__atomic_sub_fetch(&inside, 1, __ATOMIC_SEQ_CST);
		up(&gate);
	}
	return 0;
}

KTEST(sched_semaphore_counting)
{
	enum { N = 8, SLOTS = 3 };
	struct task *p[N];

	sema_init(&gate, SLOTS);
	inside = max_inside = 0;
	for (int i = 0; i < N; i++)
		p[i] = kthread_run(gate_user, NULL, "gate%d", i);
	for (int i = 0; i < N; i++)
		join_or_fail(t, p[i], NULL);
	KT_EXPECT(t, max_inside <= SLOTS, "%d inside at once, limit %d", max_inside, SLOTS);
	KT_EXPECT(t, max_inside >= 1, "nobody got in");
	KT_EXPECT(t, gate.count == SLOTS, "count %u at the end", gate.count);
	KT_EXPECT(t, down_trylock(&gate) == 0, "down_trylock on a free semaphore");
	up(&gate);
}

static int interruptible_sleeper(void *arg)
{
	return down_interruptible(arg);
}

KTEST(sched_semaphore_interruptible)
{
	static struct semaphore s;
	struct task *p;
	int code = 0;

	sema_init(&s, 0);
	p = kthread_run(interruptible_sleeper, &s, "intr");
	KT_ASSERT(t, p, "no memory");
	/*
	 * Interrupt it only once it sleeps in down_interruptible(): its CPU,
	 * which the host may hold, gets up to 5 s to get it there.
	 */
	for (int ms = 0; ms < 5000 && READ_ONCE(p->state) != TASK_INTERRUPTIBLE; ms += 10)
		msleep(10);
	KT_EXPECT(t, p->state == TASK_INTERRUPTIBLE, "sleeper state %ld after 5 s", p->state);
	task_interrupt(p);
	if (join_or_fail(t, p, &code))
		KT_EXPECT(t, code == -EINTR, "down_interruptible returned %d", code);
	KT_EXPECT(t, down_timeout(&s, 2) == -ETIMEDOUT, "down_timeout on an empty semaphore");
}

/* ---------------------------------------------------------------- mutexes */

static DEFINE_MUTEX(counter_mutex);
static volatile unsigned long shared_counter;

static int mutex_user(void *arg)
{
	for (int i = 0; i < 200; i++) {
		mutex_lock(&counter_mutex);
		unsigned long v = shared_counter;
		if (i % 16 == 0)
			yield();		/* hold it across a switch */
		shared_counter = v + 1;
		mutex_unlock(&counter_mutex);
		cond_resched();
	}
	return 0;
}

KTEST(sched_mutex_exclusion)
{
	unsigned int n = num_online_cpus() * 2 + 2;
	struct task *p[40];

	if (n > 40)
		n = 40;
	shared_counter = 0;
	for (unsigned int i = 0; i < n; i++)
		p[i] = kthread_run(mutex_user, NULL, "mutex%u", i);
	for (unsigned int i = 0; i < n; i++)
		join_or_fail(t, p[i], NULL);
	KT_EXPECT(t, shared_counter == n * 200, "counter %lu, expected %u", shared_counter, n * 200);
	KT_EXPECT(t, !mutex_is_locked(&counter_mutex), "still locked");
	KT_EXPECT(t, mutex_trylock(&counter_mutex), "trylock of a free mutex");
	KT_EXPECT(t, !mutex_trylock(&counter_mutex), "trylock of a held mutex");
	mutex_unlock(&counter_mutex);
}

/* ---------------------------------------------------------------- completions, wait queues, sleeps */

static DECLARE_WAIT_QUEUE_HEAD(flag_wq);
static volatile int flag;

static int set_flag_later(void *arg)
{
	msleep(10);
	flag = 1;
	wake_up(&flag_wq);
	complete(arg);
	return 0;
}

KTEST(sched_waitqueue_completion)
{
	static struct completion done;
	struct task *p;
	u64 t0;
	long left;

	init_completion(&done);
	flag = 0;
	p = kthread_run(set_flag_later, &done, "setflag");
	KT_ASSERT(t, p, "no memory");
	wait_event(flag_wq, flag == 1);
	KT_EXPECT(t, flag == 1, "woke before the flag");
	KT_EXPECT(t, wait_for_completion_timeout(&done, 5 * HZ) > 0, "completion timed out");
	join_or_fail(t, p, NULL);

	/* Timing is checked in jiffies, the unit of the timeout: TSC time
	 * between ticks jitters under TCG (a test checks liveness, not speed). */
	unsigned long j0 = jiffies;
	t0 = ktime_get_ns();
	left = wait_event_timeout(flag_wq, flag == 2, 3);
	KT_EXPECT(t, left == 0, "wait_event_timeout returned %ld on a false condition", left);
	KT_EXPECT(t, jiffies - j0 >= 2, "returned after %lu jiffies (%lu us)", jiffies - j0,
		  (unsigned long)((ktime_get_ns() - t0) / 1000));
	KT_EXPECT(t, wait_for_completion_timeout(&done, 2) == 0, "a used completion completed again");
	complete_all(&done);
	KT_EXPECT(t, wait_for_completion_timeout(&done, 2) > 0, "complete_all");
	KT_EXPECT(t, wait_for_completion_timeout(&done, 2) > 0, "complete_all, twice");
}

KTEST(sched_msleep)
{
	u64 t0 = ktime_get_ns();
	unsigned long j0 = jiffies;

	msleep(20);
	u64 ns = ktime_get_ns() - t0;
	/* Never early, in the sleep's own unit (jiffies); ns is reported only. */
	KT_EXPECT(t, jiffies - j0 >= msecs_to_jiffies(20), "msleep(20) slept %lu jiffies (%lu us)",
		  jiffies - j0, (unsigned long)(ns / 1000));
	kt_info("msleep(20) took %lu us", (unsigned long)(ns / 1000));
}
