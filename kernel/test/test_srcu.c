/*
 * SRCU tests (include/srcu.h, docs/rcu/srcu.md), kmalloc poisoning on:
 *
 *   ktest=srcu_torture   readers that sleep inside their sections (a tick
 *                        at a time) check an element's magic before and
 *                        after the sleep, while a writer replaces it and
 *                        frees the old one by synchronize_srcu(),
 *                        call_srcu() and the polled API in turn. A grace
 *                        period that ends before a sleeping reader leaves
 *                        lets the writer free the element under it: the
 *                        reader sees poison (0x6b...) or a reused object.
 *   ktest=srcu_domains   a reader asleep for a second in one domain does
 *                        not hold up another domain's grace period, nor
 *                        RCU's; its own domain's grace period waits for it.
 *   ktest=srcu_kthread_spurious_wake
 *                        the domain's kthread, woken for a polled grace
 *                        period that another updater's synchronize_srcu()
 *                        then provides, keeps serving the domain: a later
 *                        start_poll cookie and call_srcu() still complete.
 *
 * SRCU does not depend on the RCU variant, so both pass under every one,
 * rcu-busted included; the mutant tests/mutants/srcu-one-rank.toml (a
 * grace period that flips without waiting for the old rank) must fail the
 * torture.
 */
#include <srcu.h>
#include <ktest.h>
#include <cmdline.h>
#include <kmalloc.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <atomic.h>
#include <printk.h>
#include <fault_inject.h>

#define SRCU_LIVE	0x5eed5eed5eed5eedUL

struct srcu_elem {
	unsigned long magic;
	unsigned long gen;
	struct rcu_head rh;
};

static unsigned long srcu_torture_duration_s = 2;
CMDLINE_ULONG("srcu_torture.duration", srcu_torture_duration_s, 1, 3600,
	      "srcu_torture.duration=S: the SRCU torture runs S seconds (default 2, 1..3600)");

static struct srcu_struct torture_ss;
static struct srcu_elem __rcu *srcu_cur;
static volatile bool srcu_stopping;
static struct {
	atomic_long_t reads, sleeps, bad, updates, sync, async, polled;
	atomic_long_t inflight;
	atomic_t reports;
} st;

static void srcu_check(struct srcu_elem *p, const char *when)
{
	unsigned long m = READ_ONCE(p->magic);

	if (m == SRCU_LIVE)
		return;
	atomic_long_inc(&st.bad);
	if (atomic_inc_return(&st.reports) <= 3)
		printk("srcu-torture: ERROR: cpu%u reader %s its sleep found magic %lx "
		       "(element freed inside the section)\n", smp_processor_id(), when, m);
}

static int srcu_reader(void *arg)
{
	unsigned long n = (unsigned long)arg;

	while (!READ_ONCE(srcu_stopping)) {
		int idx = srcu_read_lock(&torture_ss);
		struct srcu_elem *p = srcu_dereference(srcu_cur, &torture_ss);

		srcu_check(p, "before");
		if ((++n & 3) == 0) {
			/* Sleep inside the section: what no other RCU allows. */
			schedule_timeout_uninterruptible(1);
			atomic_long_inc(&st.sleeps);
		} else {
			udelay(n & 15);
		}
		srcu_check(p, "after");
		srcu_read_unlock(&torture_ss, idx);
		atomic_long_inc(&st.reads);
		cond_resched();
	}
	return 0;
}

static void srcu_free_cb(void *arg)
{
	struct srcu_elem *p = arg;

	p->magic = 0;
	kfree(p);
	atomic_long_dec(&st.inflight);
}

static int srcu_writer(void *arg)
{
	unsigned long gen = 1;

	while (!READ_ONCE(srcu_stopping)) {
		struct srcu_elem *n = kmalloc(sizeof(*n)), *old;

		n->magic = SRCU_LIVE;
		n->gen = ++gen;
		/* Only this thread writes srcu_cur. */
		old = rcu_dereference_protected(srcu_cur, 1);
		rcu_assign_pointer(srcu_cur, n);
		atomic_long_inc(&st.updates);
		switch (gen % 3) {
		case 0:
			synchronize_srcu(&torture_ss);
			old->magic = 0;
			kfree(old);
			atomic_long_inc(&st.sync);
			break;
		case 1:
			atomic_long_inc(&st.inflight);
			call_srcu(&torture_ss, &old->rh, srcu_free_cb, old);
			atomic_long_inc(&st.async);
			if (atomic_long_read(&st.inflight) > 64)
				srcu_barrier(&torture_ss);
			break;
		default: {
			unsigned long c = start_poll_synchronize_srcu(&torture_ss);

			while (!poll_state_synchronize_srcu(&torture_ss, c))
				schedule_timeout_uninterruptible(1);
			old->magic = 0;
			kfree(old);
			atomic_long_inc(&st.polled);
		}
		}
		/*
		 * Let readers pick up the new element before the next unlink:
		 * they then sit in the rank of the last flip, the readers a
		 * scan of only the other rank would leave out.
		 */
		if (gen & 1)
			schedule_timeout_uninterruptible(1);
	}
	return 0;
}

static bool srcu_torture_run(struct ktest_ctx *t)
{
	struct task *readers[2 * CONFIG_NR_CPUS], *writer;
	unsigned int nr = 2 * num_online_cpus(), i;
	struct kmalloc_stats k0, k1;
	struct srcu_elem *last;
	u64 t0 = ktime_get_ns();
	bool ok;

	rcu_barrier();			/* dead tasks are freed by call_rcu() */
	kmalloc_get_stats(&k0);
	KT_EXPECT(t, init_srcu_struct(&torture_ss, "torture") == 0, "init_srcu_struct");
	last = kmalloc(sizeof(*last));
	last->magic = SRCU_LIVE;
	last->gen = 0;
	RCU_INIT_POINTER(srcu_cur, last);
	WRITE_ONCE(srcu_stopping, false);
	for (i = 0; i < nr; i++)
		readers[i] = kthread_run(srcu_reader, (void *)(unsigned long)i, "srcu_reader/%u", i);
	writer = kthread_run(srcu_writer, NULL, "srcu_writer");
	schedule_timeout_uninterruptible(msecs_to_jiffies(srcu_torture_duration_s * 1000));
	WRITE_ONCE(srcu_stopping, true);
	kthread_join(writer);
	for (i = 0; i < nr; i++)
		kthread_join(readers[i]);
	srcu_barrier(&torture_ss);
	last = rcu_dereference_protected(srcu_cur, 1);
	RCU_INIT_POINTER(srcu_cur, NULL);
	kfree(last);
	cleanup_srcu_struct(&torture_ss);
	rcu_barrier();			/* the readers' and writer's task structs */
	kmalloc_get_stats(&k1);

	printk("srcu-torture: %llu ms, %u readers on %u CPUs, rcu=%s: reads %ld (slept inside %ld); "
	       "updates %ld (synchronize %ld, call_srcu %ld, polled %ld); srcu grace periods %lu\n",
	       (unsigned long long)((ktime_get_ns() - t0) / 1000000), nr, num_online_cpus(),
	       rcu_variant_name(), atomic_long_read(&st.reads), atomic_long_read(&st.sleeps),
	       atomic_long_read(&st.updates), atomic_long_read(&st.sync),
	       atomic_long_read(&st.async), atomic_long_read(&st.polled),
	       torture_ss.srcu_gp_count);
	ok = atomic_long_read(&st.bad) == 0;
	if (ok)
		printk("srcu-torture: SUCCESS\n");
	else
		printk("srcu-torture: FAILURE: %ld reads found a freed element\n",
		       atomic_long_read(&st.bad));
	KT_EXPECT(t, k1.objects == k0.objects, "kmalloc objects %ld -> %ld", k0.objects, k1.objects);
	KT_EXPECT(t, atomic_long_read(&st.sleeps) > 0 && atomic_long_read(&st.sync) > 0 &&
		  atomic_long_read(&st.async) > 0 && atomic_long_read(&st.polled) > 0,
		  "sleeps %ld sync %ld async %ld polled %ld", atomic_long_read(&st.sleeps),
		  atomic_long_read(&st.sync), atomic_long_read(&st.async),
		  atomic_long_read(&st.polled));
	return ok;
}

KTEST(srcu_torture)
{
	KT_EXPECT(t, srcu_torture_run(t), "srcu-torture: FAILURE");
}

/* ---- Domains are independent. */

static struct srcu_struct dom_a, dom_b;
static volatile int dom_reader_state;	/* 1 inside (asleep), 2 left */

static int dom_reader(void *arg)
{
	int idx = srcu_read_lock(&dom_a);

	WRITE_ONCE(dom_reader_state, 1);
	schedule_timeout_uninterruptible(msecs_to_jiffies(1000));
	WRITE_ONCE(dom_reader_state, 2);
	srcu_read_unlock(&dom_a, idx);
	return 0;
}

KTEST(srcu_domains)
{
	struct task *r;
	int state_b, state_rcu;

	KT_EXPECT(t, init_srcu_struct(&dom_a, "a") == 0, "init a");
	KT_EXPECT(t, init_srcu_struct(&dom_b, "b") == 0, "init b");
	KT_EXPECT(t, !srcu_readers_active(&dom_a), "a reader of a before any");
	WRITE_ONCE(dom_reader_state, 0);
	r = kthread_run(dom_reader, NULL, "srcu_dom_reader");
	while (READ_ONCE(dom_reader_state) == 0)
		schedule_timeout_uninterruptible(1);
	KT_EXPECT(t, srcu_readers_active(&dom_a), "no reader of a seen while one sleeps");
	KT_EXPECT(t, !srcu_readers_active(&dom_b), "a reader of b seen");
	/* Liveness, not timing: b's grace period must not need a's reader to
	 * leave, so it ends while that reader still sleeps (a second). */
	synchronize_srcu(&dom_b);
	state_b = READ_ONCE(dom_reader_state);
	synchronize_rcu();
	state_rcu = READ_ONCE(dom_reader_state);
	KT_EXPECT(t, state_b == 1, "synchronize_srcu(b) waited for a's reader");
	KT_EXPECT(t, state_rcu == 1, "synchronize_rcu() waited for an SRCU reader");
	/* Safety: a's grace period waits for it. */
	synchronize_srcu(&dom_a);
	KT_EXPECT(t, READ_ONCE(dom_reader_state) == 2,
		  "synchronize_srcu(a) returned while a's reader slept inside");
	kthread_join(r);
	kt_info("srcu grace periods: a %lu, b %lu", dom_a.srcu_gp_count, dom_b.srcu_gp_count);
	cleanup_srcu_struct(&dom_a);
	cleanup_srcu_struct(&dom_b);
}

/* ---- The kthread outlives a request someone else met. */

static struct srcu_struct wake_ss;
static volatile int wake_armed;
static volatile int wake_cb_ran;

/*
 * At srcu_kthread_woken, in the kthread: it woke for a request, and
 * before it looks again another updater's grace period meets it. Once.
 */
static int wake_other_updater(void *arg)
{
	if (arg == &wake_ss && __atomic_exchange_n(&wake_armed, 0, __ATOMIC_ACQ_REL))
		synchronize_srcu(&wake_ss);
	return 0;
}

static void wake_cb(void *arg)
{
	WRITE_ONCE(wake_cb_ran, 1);
}

/* Liveness, not timing: generous bound, so a stuck domain ends the test. */
static bool wake_wait(bool (*done)(unsigned long), unsigned long c)
{
	for (int i = 0; i < 10 * HZ; i++) {
		if (done(c))
			return true;
		schedule_timeout_uninterruptible(1);
	}
	return false;
}

static bool wake_poll_done(unsigned long c)
{
	return poll_state_synchronize_srcu(&wake_ss, c);
}

static bool wake_cb_done(unsigned long c)
{
	return READ_ONCE(wake_cb_ran);
}

KTEST(srcu_kthread_spurious_wake)
{
	struct rcu_head rh;
	unsigned long c;
	bool polled, called;

	if (fault_set_handler(FAULT_srcu_kthread_woken, NULL)) {
		printk("srcu-kthread-wake: skipped (needs CONFIG_FAULT_INJECT)\n");
		return;
	}
	KT_ASSERT(t, init_srcu_struct(&wake_ss, "wake") == 0, "init_srcu_struct");
	WRITE_ONCE(wake_armed, 1);
	fault_set_handler(FAULT_srcu_kthread_woken, wake_other_updater);
	c = start_poll_synchronize_srcu(&wake_ss);
	KT_EXPECT(t, wake_wait(wake_poll_done, c), "the first cookie %lu never completed", c);
	fault_set_handler(FAULT_srcu_kthread_woken, NULL);
	KT_EXPECT(t, !READ_ONCE(wake_armed), "the kthread never reached srcu_kthread_woken");

	c = start_poll_synchronize_srcu(&wake_ss);
	polled = wake_wait(wake_poll_done, c);
	WRITE_ONCE(wake_cb_ran, 0);
	call_srcu(&wake_ss, &rh, wake_cb, NULL);
	called = wake_wait(wake_cb_done, 0);
	printk("srcu-kthread-wake: after a request another updater met: start_poll cookie %s, "
	       "call_srcu() callback %s\n", polled ? "completed" : "never completed",
	       called ? "ran" : "never ran");
	if (!polled || !called)
		srcu_show(&wake_ss);
	KT_EXPECT(t, polled, "poll_state_synchronize_srcu(%lu) still false after 10 s: "
		  "the domain's kthread stopped serving it", c);
	KT_EXPECT(t, called, "call_srcu() callback not run after 10 s");
	if (called)
		cleanup_srcu_struct(&wake_ss);	/* else the callback still points at rh */
}
