/*
 * SRCU notifier chains (include/notifier.h, kernel/lib/notifier.c), kmalloc
 * poisoning on:
 *
 *   ktest=srcu_notifier_chain    priority order, NOTIFY_STOP, -EEXIST and
 *                                -ENOENT, and a callback that sleeps.
 *   ktest=srcu_notifier_stress   two callers per CPU walk one chain over and
 *       over; its callbacks sleep a tick in one call of four and check their
 *       block's magic before and after. A writer keeps three blocks on the
 *       chain, registering a new one and unregistering the oldest, which it
 *       then frees (the poison overwrites magic and notifier_call). A
 *       callback that finds poison panics; a walk that reaches a freed block
 *       faults on its poisoned pointers. Either means the unregistration
 *       returned while a caller was still inside: with real SRCU it never
 *       happens; with srcu_break=1 (scenario srcu-notifier-srcu_break-smp4) the
 *       boot panics within a few grace periods.
 */
#include <notifier.h>
#include <ktest.h>
#include <cmdline.h>
#include <kmalloc.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <atomic.h>
#include <panic.h>
#include <errno.h>
#include <printk.h>
#include <string.h>

#define NB_LIVE		0x6e6f746966794e42UL	/* "notifyNB" */

struct stress_nb {
	unsigned long magic;
	struct notifier_block nb;
	unsigned long id;
};

static unsigned long srcu_notifier_duration_s = 2;
CMDLINE_ULONG("srcu_notifier.duration", srcu_notifier_duration_s, 1, 3600,
	      "srcu_notifier.duration=S: the SRCU notifier stress runs S seconds (default 2, 1..3600)");

static struct srcu_notifier_head stress_chain;
static volatile bool nb_stopping;
static atomic_long_t nb_calls, nb_sleeps, nb_walks, nb_swaps;

static void nb_check(struct stress_nb *s, const char *when)
{
	unsigned long m = READ_ONCE(s->magic);

	if (m != NB_LIVE)
		panic("srcu-notifier: a callback %s its sleep found magic %lx: its block was "
		      "freed while a caller was inside", when, m);
}

static int stress_cb(struct notifier_block *nb, unsigned long action, void *data)
{
	struct stress_nb *s = container_of(nb, struct stress_nb, nb);

	nb_check(s, "before");
	atomic_long_inc(&nb_calls);
	if ((action & 3) == 0) {
		/* What the chain is for: a callback that blocks. */
		schedule_timeout_uninterruptible(1);
		atomic_long_inc(&nb_sleeps);
	} else {
		udelay(action & 15);
	}
	nb_check(s, "after");
	return NOTIFY_OK;
}

static int nb_caller(void *arg)
{
	unsigned long n = (unsigned long)arg;

	while (!READ_ONCE(nb_stopping)) {
		srcu_notifier_call_chain(&stress_chain, n++, NULL);
		atomic_long_inc(&nb_walks);
		cond_resched();
	}
	return 0;
}

static struct stress_nb *nb_new(unsigned long id)
{
	struct stress_nb *s = kmalloc(sizeof(*s));

	if (!s)
		panic("srcu-notifier: out of memory");
	s->magic = NB_LIVE;
	s->id = id;
	s->nb.notifier_call = stress_cb;
	s->nb.priority = (int)(id % 3);
	return s;
}

KTEST(srcu_notifier_stress)
{
	struct task *callers[2 * CONFIG_NR_CPUS];
	struct stress_nb *ring[3];
	unsigned int nr = 2 * num_online_cpus(), i;
	struct kmalloc_stats k0, k1;
	unsigned long id = 0, deadline;

	rcu_barrier();			/* dead tasks are freed by call_rcu() */
	kmalloc_get_stats(&k0);
	KT_ASSERT(t, srcu_init_notifier_head(&stress_chain, "nb_stress") == 0, "init");
	for (i = 0; i < ARRAY_SIZE(ring); i++) {
		ring[i] = nb_new(id++);
		srcu_notifier_chain_register(&stress_chain, &ring[i]->nb);
	}
	WRITE_ONCE(nb_stopping, false);
	for (i = 0; i < nr; i++)
		callers[i] = kthread_run(nb_caller, (void *)(unsigned long)i, "nb_caller/%u", i);
	/* This thread is the writer: swap the oldest block for a new one. */
	deadline = jiffies + msecs_to_jiffies(srcu_notifier_duration_s * 1000);
	while (time_before(jiffies, deadline)) {
		unsigned int slot = id % ARRAY_SIZE(ring);
		struct stress_nb *old = ring[slot];

		ring[slot] = nb_new(id++);
		srcu_notifier_chain_register(&stress_chain, &ring[slot]->nb);
		KT_EXPECT(t, srcu_notifier_chain_unregister(&stress_chain, &old->nb) == 0,
			  "unregister block %lu", old->id);
		kfree(old);		/* poisons magic and notifier_call */
		atomic_long_inc(&nb_swaps);
	}
	WRITE_ONCE(nb_stopping, true);
	for (i = 0; i < nr; i++)
		kthread_join(callers[i]);
	for (i = 0; i < ARRAY_SIZE(ring); i++) {
		srcu_notifier_chain_unregister(&stress_chain, &ring[i]->nb);
		kfree(ring[i]);
	}
	kt_info("srcu-notifier: %u callers on %u CPUs: walks %ld, callbacks %ld (slept inside %ld), "
		"blocks swapped %ld, chain grace periods %lu", nr, num_online_cpus(),
		atomic_long_read(&nb_walks), atomic_long_read(&nb_calls),
		atomic_long_read(&nb_sleeps), atomic_long_read(&nb_swaps),
		stress_chain.srcu.srcu_gp_count);
	srcu_cleanup_notifier_head(&stress_chain);
	rcu_barrier();			/* the callers' task structs */
	kmalloc_get_stats(&k1);
	KT_EXPECT(t, atomic_long_read(&nb_sleeps) > 0 && atomic_long_read(&nb_swaps) > 0,
		  "sleeps %ld swaps %ld", atomic_long_read(&nb_sleeps), atomic_long_read(&nb_swaps));
	KT_EXPECT(t, k1.objects == k0.objects, "kmalloc objects %ld -> %ld", k0.objects, k1.objects);
}

/* ---- The chain's rules, one at a time. */

static struct srcu_notifier_head rule_chain;
static char rule_log[8];
static unsigned int rule_n;

static int rule_cb(struct notifier_block *nb, unsigned long action, void *data)
{
	if (rule_n < sizeof(rule_log) - 1)
		rule_log[rule_n++] = (char)('0' + nb->priority);
	if (action == 1)
		schedule_timeout_uninterruptible(1);	/* allowed: SRCU */
	return nb->priority == 5 && action == 2 ? NOTIFY_STOP : NOTIFY_OK;
}

KTEST(srcu_notifier_chain)
{
	struct notifier_block a = { .notifier_call = rule_cb, .priority = 1 };
	struct notifier_block b = { .notifier_call = rule_cb, .priority = 5 };
	struct notifier_block c = { .notifier_call = rule_cb, .priority = 3 };
	int ret;

	KT_ASSERT(t, srcu_init_notifier_head(&rule_chain, "nb_rules") == 0, "init");
	KT_EXPECT(t, srcu_notifier_call_chain(&rule_chain, 0, NULL) == NOTIFY_DONE, "empty chain");
	KT_EXPECT(t, srcu_notifier_chain_register(&rule_chain, &a) == 0, "register a");
	KT_EXPECT(t, srcu_notifier_chain_register(&rule_chain, &b) == 0, "register b");
	KT_EXPECT(t, srcu_notifier_chain_register(&rule_chain, &c) == 0, "register c");
	KT_EXPECT(t, srcu_notifier_chain_register(&rule_chain, &c) == -EEXIST, "c twice");
	rule_n = 0;
	ret = srcu_notifier_call_chain(&rule_chain, 1, NULL);
	rule_log[rule_n] = 0;
	KT_EXPECT(t, ret == NOTIFY_OK && !strcmp(rule_log, "531"), "called %s, returned %d",
		  rule_log, ret);
	rule_n = 0;
	ret = srcu_notifier_call_chain(&rule_chain, 2, NULL);
	rule_log[rule_n] = 0;
	KT_EXPECT(t, ret == NOTIFY_OK && !strcmp(rule_log, "5"), "NOTIFY_STOP: called %s, returned %d",
		  rule_log, ret);
	KT_EXPECT(t, srcu_notifier_chain_unregister(&rule_chain, &c) == 0, "unregister c");
	KT_EXPECT(t, srcu_notifier_chain_unregister(&rule_chain, &c) == -ENOENT, "c again");
	rule_n = 0;
	srcu_notifier_call_chain(&rule_chain, 3, NULL);
	rule_log[rule_n] = 0;
	KT_EXPECT(t, !strcmp(rule_log, "51"), "after unregistering c: called %s", rule_log);
	srcu_notifier_chain_unregister(&rule_chain, &a);
	srcu_notifier_chain_unregister(&rule_chain, &b);
	srcu_cleanup_notifier_head(&rule_chain);
}
