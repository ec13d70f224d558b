/*
 * The RCU API on whatever variant is built (the torture test, in
 * kernel/rcu/torture/, is the heavy check; these are the basic
 * contracts): callbacks wait for a grace period, synchronize_kernel()
 * waits, rcu_barrier() waits for every earlier callback, the polled API
 * agrees with the grace-period counters, sleeping inside a read-side
 * section is reported, and a CPU that holds up a grace period gets a stall
 * warning naming it.
 */
#include <ktest.h>
#include <rcupdate.h>
#include <rculist.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <kmalloc.h>
#include <printk.h>
#include <arch/cpu.h>
#include <rcu_test.h>

static atomic_t cb_runs;

static void count_cb(void *arg)
{
	atomic_inc(&cb_runs);
	if (arg)
		*(volatile unsigned long *)arg = rcu_gp_completed();
}

KTEST(rcu_callback_after_grace_period)
{
	static struct rcu_head h;
	static volatile unsigned long seen_completed;
	unsigned long c0 = rcu_gp_completed();

	atomic_set(&cb_runs, 0);
	call_rcu(&h, count_cb, (void *)&seen_completed);
	rcu_barrier();
	KT_EXPECT(t, atomic_read(&cb_runs) == 1, "callback ran %d times", atomic_read(&cb_runs));
	KT_EXPECT(t, (long)(seen_completed - c0) >= 1,
		  "the callback ran before any grace period completed (%lu -> %lu)", c0,
		  seen_completed);
}

KTEST(rcu_synchronize_waits_for_grace_period)
{
	unsigned long c0 = rcu_gp_completed();
	u64 t0 = ktime_get_ns();

	synchronize_kernel();
	KT_EXPECT(t, (long)(rcu_gp_completed() - c0) >= 1,
		  "synchronize_kernel() returned with no grace period completed");
	kt_info("synchronize_kernel took %lu us", (unsigned long)((ktime_get_ns() - t0) / 1000));
}

KTEST(rcu_barrier_waits_for_all)
{
	enum { N = 500 };
	struct rcu_head *h = kmalloc(sizeof(*h) * N);

	KT_ASSERT(t, h, "no memory");
	atomic_set(&cb_runs, 0);
	for (int i = 0; i < N; i++)
		call_rcu(&h[i], count_cb, NULL);
	rcu_barrier();
	KT_EXPECT(t, atomic_read(&cb_runs) == N, "%d of %d callbacks ran before rcu_barrier returned",
		  atomic_read(&cb_runs), N);
	kfree(h);
}

KTEST(rcu_polled_api)
{
	unsigned long c = get_state_synchronize_rcu();

	KT_EXPECT(t, !poll_state_synchronize_rcu(c), "a fresh cookie is already satisfied");
	c = start_poll_synchronize_rcu();
	/* Liveness, by the clock: a grace period needs every CPU, and the
	 * host may hold one; 10 s is far past any stall seen. */
	for (u64 t0 = ktime_get_ns(); ktime_get_ns() - t0 < 10000000000ULL &&
	     !poll_state_synchronize_rcu(c); )
		msleep(1);
	KT_EXPECT(t, poll_state_synchronize_rcu(c), "no grace period in 10 s after start_poll");
	c = get_state_synchronize_rcu();
	cond_synchronize_rcu(c);
	KT_EXPECT(t, poll_state_synchronize_rcu(c), "cond_synchronize_rcu returned too early");
}

/*
 * Every cookie start_poll_synchronize_rcu() hands out must complete on an
 * idle machine. The case that breaks it: a poller that got cookie G+1,
 * saw it complete while this CPU's start_poll callback was still queued,
 * and asked again got G+2, and nothing else asks for that one. The window
 * is held open, not waited for: a callback queued on the same CPU just
 * before start_poll's runs ahead of it in the same batch (a CPU's
 * callbacks run in the order queued), so while it runs G+1 is over and
 * the poll callback is still queued, and it asks again itself. A variant
 * with one global list may run it on another CPU, whose start_poll state
 * is not the one in question: that try is repeated.
 *
 * Where the first callback runs before G+1 is over (a grace period began
 * between the two queues; Tiny RCU counts one begun at the first
 * call_rcu(), so the poll callback rides it), G+1 itself must still
 * complete, and the next tries queue the first callback once more from
 * inside itself, ahead of whatever the poll callback queues next.
 */
enum { PA_QUEUED, PA_EARLY, PA_ASKED, PA_RETRY };

static struct poll_again {
	unsigned int cpu;		/* where both callbacks were queued */
	unsigned long c1, c2;
	bool requeue;			/* queue again once if G+1 is not over */
	atomic_t state;
	struct rcu_head h;
} pa;

static void poll_again_cb(void *arg)
{
	struct poll_again *p = arg;

	if (!poll_state_synchronize_rcu(p->c1)) {
		if (p->requeue) {
			p->requeue = false;
			call_rcu(&p->h, poll_again_cb, p);
			return;
		}
		atomic_set(&p->state, PA_EARLY);
		return;
	}
	if (smp_processor_id() != p->cpu) {
		atomic_set(&p->state, PA_RETRY);
		return;
	}
	p->c2 = start_poll_synchronize_rcu();
	atomic_set(&p->state, PA_ASKED);	/* a full barrier: c2 first */
}

/* Wait up to 5 s, idle, for cookie c. */
static bool poll_idle_wait(unsigned long c)
{
	for (u64 t0 = ktime_get_ns(); ktime_get_ns() - t0 < 5000000000ULL &&
	     !poll_state_synchronize_rcu(c); )
		msleep(1);
	return poll_state_synchronize_rcu(c);
}

KTEST(rcu_poll_again_while_queued)
{
	bool requeue = false;
	int st = PA_RETRY, tries;

	for (tries = 1; tries <= 10; tries++) {
		rcu_barrier();		/* no poll callback of an earlier cookie queued */
		pa.requeue = requeue;
		atomic_set(&pa.state, PA_QUEUED);
		preempt_disable();	/* both on one CPU's list, in this order */
		pa.cpu = smp_processor_id();
		call_rcu(&pa.h, poll_again_cb, &pa);
		pa.c1 = start_poll_synchronize_rcu();
		preempt_enable();
		for (u64 t0 = ktime_get_ns(); ktime_get_ns() - t0 < 10000000000ULL &&
		     (st = atomic_read(&pa.state)) == PA_QUEUED; )
			msleep(1);
		KT_ASSERT(t, st != PA_QUEUED, "no grace period in 10 s for cookie %lu", pa.c1);
		if (st == PA_ASKED)
			break;
		if (st == PA_EARLY) {
			KT_ASSERT(t, poll_idle_wait(pa.c1), "cookie %lu from "
				  "start_poll_synchronize_rcu() not complete after 5 s idle: %lu "
				  "grace periods started, %lu completed", pa.c1, rcu_gp_started(),
				  rcu_gp_completed());
			requeue = true;
		}
	}
	KT_ASSERT(t, st == PA_ASKED, "%d tries, and no second start_poll while the first one's "
		  "callback was queued", tries - 1);
	/* Idle from here: only the second cookie's own request can end it. */
	bool done = poll_idle_wait(pa.c2);

	kt_info("cookie %lu done, then %lu asked for on CPU %u (try %d)", pa.c1, pa.c2, pa.cpu,
		tries);
	KT_EXPECT(t, done, "cookie %lu from a second start_poll_synchronize_rcu() (the first, "
		  "%lu, complete, its callback still queued) not complete after 5 s idle: %lu "
		  "grace periods started, %lu completed", pa.c2, pa.c1, rcu_gp_started(),
		  rcu_gp_completed());
	rcu_barrier();
}

/* An RCU-protected list: readers see a whole element or none. */
struct item {
	struct list_head list;
	struct rcu_head rcu;
	int key;
	int check;		/* key * 7: a reader verifies the element */
};

static LIST_HEAD(items);
static DEFINE_SPINLOCK(items_lock);

KTEST(rcu_list_helpers)
{
	int sum = 0, n = 0;
	struct item *it;

	for (int k = 1; k <= 10; k++) {
		it = kmalloc(sizeof(*it));
		KT_ASSERT(t, it, "no memory");
		it->key = k;
		it->check = k * 7;
		spin_lock(&items_lock);
		list_add_tail_rcu(&it->list, &items);
		spin_unlock(&items_lock);
	}
	rcu_read_lock();
	list_for_each_entry_rcu(it, &items, list) {
		KT_EXPECT(t, it->check == it->key * 7, "torn element %d", it->key);
		sum += it->key;
		n++;
	}
	rcu_read_unlock();
	KT_EXPECT(t, n == 10 && sum == 55, "walked %d elements, sum %d", n, sum);
	spin_lock(&items_lock);
	while (!list_empty(&items)) {
		it = list_first_entry(&items, struct item, list);
		list_del_rcu(&it->list);
		kfree_rcu(it, rcu);
	}
	spin_unlock(&items_lock);
	rcu_barrier();
}

/* Sleeping inside a read-side critical section is reported by might_sleep(). */
KTEST(rcu_read_side_might_sleep)
{
	unsigned long w0 = might_sleep_warnings();

	if (!rcu_read_side_visible()) {
		ktest_skip(t, "rcu_read_lock() is empty here (no CONFIG_RCU_DEBUG_READ)");
		return;
	}
	rcu_read_lock();
	might_sleep();
	rcu_read_unlock();
	KT_EXPECT(t, might_sleep_warnings() == w0 + 1, "might_sleep() inside rcu_read_lock() "
		  "gave %lu warnings", might_sleep_warnings() - w0);
	might_sleep();
	KT_EXPECT(t, might_sleep_warnings() == w0 + 1, "might_sleep() outside warned");
}

/* A CPU that spins with interrupts off holds up the grace period: warned. */
static volatile int spin_hold;

static volatile int spin_started;

static void spin_irqs_off(void *arg)
{
	u64 end = ktime_get_ns() + (u64)(unsigned long)arg * 1000000ULL;

	WRITE_ONCE(spin_started, 1);
	while (READ_ONCE(spin_hold) && ktime_get_ns() < end)
		cpu_relax();
}

KTEST(rcu_stall_warning)
{
	static struct rcu_head h;
	unsigned long s0 = rcu_stall_warnings();
	unsigned int victim = nr_cpu_ids - 1;
	unsigned long timeout = rcu_stall_timeout_ms();

	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs a CPU to stall and one to notice");
		return;
	}
	if (timeout > 2000) {
		ktest_skip(t, "stall timeout above 2 s: boot with rcu_stall_timeout=500");
		return;
	}
	unsigned long b0 = nmi_backtraces_done(victim);

	atomic_set(&cb_runs, 0);
	spin_hold = 1;
	spin_started = 0;
	/* The spin's own bound outlasts both waits below. */
	smp_call_function_single(victim, spin_irqs_off, (void *)(timeout * 6), false);
	while (!READ_ONCE(spin_started))
		cpu_relax();
	/* Only now want a grace period: a fast variant cannot finish it
	 * before the victim stops answering. */
	call_rcu(&h, count_cb, NULL);
	for (unsigned long ms = 0; ms < timeout * 3 && rcu_stall_warnings() == s0; ms += 10)
		msleep(10);
	/*
	 * The count moves before the warning's NMI reaches the victim: keep
	 * it spinning until its backtrace is out, or the backtrace shows it
	 * back in the idle loop instead of in spin_irqs_off().
	 */
	for (unsigned long ms = 0; ms < timeout * 2 && rcu_stall_warnings() > s0 &&
	     nmi_backtraces_done(victim) == b0; ms += 10)
		msleep(10);
	spin_hold = 0;
	KT_EXPECT(t, rcu_stall_warnings() > s0, "no stall warning while CPU %u spun %lu ms",
		  victim, timeout * 3);
	KT_EXPECT(t, cpumask_test(victim, &rcu_last_stall_mask),
		  "the warning did not name CPU %u", victim);
	KT_EXPECT(t, nmi_backtraces_done(victim) > b0, "CPU %u printed no NMI backtrace", victim);
	rcu_barrier();
	KT_EXPECT(t, atomic_read(&cb_runs) == 1, "the callback did not run after the stall ended");
}
