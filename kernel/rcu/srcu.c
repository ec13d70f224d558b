/*
 * Sleepable RCU (include/srcu.h, docs/rcu/srcu.md): the grace period.
 *
 * Follows the design of Linux's classic SRCU (kernel/rcu/srcu.c as of
 * v4.11, "srcu: Implement more-efficient reader counts") and the
 * per-CPU srcu_data counters that srcutree.c keeps: two ranks of per-CPU
 * lock and unlock counters, a flip of srcu_idx, and a scan that waits for
 * the old rank's sums to balance. Our own code, smaller: no srcu_node
 * tree, no per-CPU callback lists, one grace period at a time per domain.
 *
 * Quiescent state: a domain's reader has left (its unlock counted). Not a
 * context switch, so readers may sleep; not per CPU, so a sleeping reader
 * that wakes on another CPU is still counted (its unlock lands in the new
 * CPU's counter, and only the sums over all CPUs matter).
 *
 * A grace period (srcu_gp()):
 *   1. wait for the inactive rank to drain: a reader that read srcu_idx
 *      just before the previous flip but counted itself only after that
 *      grace period's scan is in this rank, and may hold what we unlinked;
 *   2. flip srcu_idx: new readers use the other rank;
 *   3. wait for the rank that was active to drain: every reader that
 *      began before step 2 is in it (or in the one step 1 drained).
 * Either step alone loses readers: without 1, the late reader above; without
 * 3, every reader that was simply inside its section when we flipped (the
 * mutant tests/mutants/srcu-one-rank.toml).
 *
 * Barriers (x86's smp_mb() is a full fence; named as in srcu.h):
 *   A  scan: between summing the unlocks and summing the locks;
 *   B  srcu_read_lock(): after the lock count;
 *   C  srcu_read_unlock(): before the unlock count;
 *   D  srcu_gp(): the updater's unlink before the first scan, and the last
 *      scan before the callbacks run or synchronize_srcu() returns;
 *   E  srcu_flip(): the first scan before the flip, the flip before the
 *      second scan.
 *
 * srcu_break=1 on the command line breaks the quiescent-state detection on
 * purpose, as rcu_break=1 does for the RCU variant (docs/rcu/busted.md):
 * every scan finds the rank drained, so a grace period ends at once, even
 * while a reader sleeps inside. The SRCU stress tests must then fail.
 */
#include "rcu_internal.h"
#include <srcu.h>
#include <sched.h>
#include <completion.h>
#include <kasan.h>
#include <kmalloc.h>
#include <smp.h>
#include <time.h>
#include <panic.h>
#include <printk.h>
#include <export.h>
#include <errno.h>
#include <string.h>
#include <cmdline.h>
#include <fault_inject.h>
#include <arch/cpu.h>

static bool srcu_break;

static int set_srcu_break(const char *val)
{
	unsigned long v = srcu_break;

	if (cmdline_parse_ulong("srcu_break", val, 0, 1, &v))
		return -1;
	srcu_break = v;
	return 0;
}
CMDLINE_PARAM("srcu_break", set_srcu_break,
	      "srcu_break=0|1: break SRCU's reader detection on purpose: grace periods "
	      "end at once (the SRCU stress tests must then fail; default 0)");

/*
 * The sum of rank idx's unlocks, then its locks. The unlocks come first
 * and A sits between: a reader's unlock follows its lock (C after B, on
 * whichever CPUs), so every unlock we counted has its lock counted too,
 * and locks == unlocks cannot be a reader's unlock seen without its lock.
 * A lock we count whose unlock we miss keeps the sums apart: we wait.
 * A lock we miss altogether comes after A, so by B's pairing that reader
 * sees the unlink (D) and cannot reach what we free.
 */
static bool srcu_readers_active_idx(struct srcu_struct *ss, int idx)
{
	unsigned long locks = 0, unlocks = 0;
	unsigned int cpu;

	if (srcu_break)
		return false;	/* broken on purpose: no reader is ever seen */
	for (cpu = 0; cpu < CONFIG_NR_CPUS; cpu++)
		unlocks += READ_ONCE(ss->sda[cpu].srcu_unlock_count[idx]);
	smp_mb();	/* A: the unlocks before the locks; pairs with B and C */
	for (cpu = 0; cpu < CONFIG_NR_CPUS; cpu++)
		locks += READ_ONCE(ss->sda[cpu].srcu_lock_count[idx]);
	return locks != unlocks;
}

/*
 * Wait for rank idx to drain: a few quick tries (most sections are
 * short), then sleep a tick at a time, since a reader may sleep as long
 * as it likes and we must not hold the CPU meanwhile.
 */
static __noinline void srcu_wait_rank(struct srcu_struct *ss, int idx)	/* gdb stops here */
{
	int tries = 0;

	while (srcu_readers_active_idx(ss, idx)) {
		if (++tries < 4)
			udelay(5);
		else
			schedule_timeout_uninterruptible(1);
	}
}

static void srcu_flip(struct srcu_struct *ss)
{
	smp_mb();	/* E: the first scan before readers may see the new rank */
	WRITE_ONCE(ss->srcu_idx, ss->srcu_idx + 1);
	smp_mb();	/* E: the flip before the second scan's sums */
}

/* One full grace period of ss; srcu_gp_mutex held. */
static void srcu_gp(struct srcu_struct *ss)
{
	int idx;

	WRITE_ONCE(ss->srcu_gp_seq, ss->srcu_gp_seq + 1);	/* odd: running */
	smp_mb();	/* D: the updater's unlink (and gp_seq) before the scans */
	idx = (READ_ONCE(ss->srcu_idx) & 1) ^ 1;
	WRITE_ONCE(ss->srcu_gp_phase, SRCU_GP_DRAIN_INACTIVE);
	srcu_wait_rank(ss, idx);
	srcu_flip(ss);
	WRITE_ONCE(ss->srcu_gp_phase, SRCU_GP_DRAIN_FLIPPED);
	srcu_wait_rank(ss, idx ^ 1);
	WRITE_ONCE(ss->srcu_gp_phase, SRCU_GP_IDLE);
	smp_mb();	/* D: the last scan before anything is freed */
	WRITE_ONCE(ss->srcu_gp_seq, ss->srcu_gp_seq + 1);	/* even: done */
	ss->srcu_gp_count++;
}

/*
 * A cookie is the gp_seq value at which a full grace period that began
 * after the call has ended: the next even value past the current one,
 * plus one more grace period if one is running (it may have scanned
 * already). rcu_seq_snap() in Linux, with one state bit.
 */
unsigned long get_state_synchronize_srcu(struct srcu_struct *ss)
{
	smp_mb();	/* the caller's unlink before the snapshot */
	return (READ_ONCE(ss->srcu_gp_seq) + 3) & ~1UL;
}
EXPORT_SYMBOL(get_state_synchronize_srcu);

bool poll_state_synchronize_srcu(struct srcu_struct *ss, unsigned long cookie)
{
	bool done = (long)(READ_ONCE(ss->srcu_gp_seq) - cookie) >= 0;

	smp_mb();	/* the grace period's end before the caller frees */
	return done;
}
EXPORT_SYMBOL(poll_state_synchronize_srcu);

/* As get_state_synchronize_srcu(), and makes sure a grace period runs
 * (the domain's kthread starts one) so that the cookie comes true. */
unsigned long start_poll_synchronize_srcu(struct srcu_struct *ss)
{
	unsigned long cookie = get_state_synchronize_srcu(ss);
	unsigned long flags = spin_lock_irqsave(&ss->srcu_cb_lock);

	if ((long)(cookie - ss->srcu_gp_req) > 0)
		ss->srcu_gp_req = cookie;
	spin_unlock_irqrestore(&ss->srcu_cb_lock, flags);
	wake_up(&ss->srcu_gp_wq);
	return cookie;
}
EXPORT_SYMBOL(start_poll_synchronize_srcu);

void synchronize_srcu(struct srcu_struct *ss)
{
	unsigned long cookie = get_state_synchronize_srcu(ss);

	might_sleep();
	mutex_lock(&ss->srcu_gp_mutex);
	/* Concurrent callers share: a grace period that ran while we waited
	 * for the mutex may be all we need. */
	if (!poll_state_synchronize_srcu(ss, cookie))
		srcu_gp(ss);
	mutex_unlock(&ss->srcu_gp_mutex);
}
EXPORT_SYMBOL(synchronize_srcu);

/* ---- call_srcu(): the domain's kthread. */

void call_srcu(struct srcu_struct *ss, struct rcu_head *head, void (*func)(void *arg), void *arg)
{
	unsigned long flags;

	head->func = func;
	head->arg = arg;
	kasan_record_queue(head, KASAN_QUEUED_BY_CALL_SRCU);
	flags = spin_lock_irqsave(&ss->srcu_cb_lock);
	list_add_tail(&head->list, &ss->srcu_cblist);
	spin_unlock_irqrestore(&ss->srcu_cb_lock, flags);
	wake_up(&ss->srcu_gp_wq);
}
EXPORT_SYMBOL(call_srcu);

static bool srcu_gp_wanted(struct srcu_struct *ss)
{
	return !poll_state_synchronize_srcu(ss, READ_ONCE(ss->srcu_gp_req));
}

static bool srcu_work_or_stop(struct srcu_struct *ss)
{
	return !list_empty(&ss->srcu_cblist) || srcu_gp_wanted(ss) || kthread_should_stop();
}

/*
 * Take every callback queued so far, run one grace period, invoke them in
 * order. A grace period that begins after the take began after each of
 * them was queued, as call_srcu() promises; later ones wait for the next.
 * In order and one batch at a time, so srcu_barrier()'s callback runs
 * after every earlier one. start_poll_synchronize_srcu() asks for a
 * grace period with no callback (srcu_gp_req).
 */
static int srcu_gp_kthread(void *arg)
{
	struct srcu_struct *ss = arg;

	for (;;) {
		LIST_HEAD(batch);
		unsigned long flags;

		bool wanted;

		wait_event(ss->srcu_gp_wq, srcu_work_or_stop(ss));
		fault_inject(srcu_kthread_woken, ss);
		flags = spin_lock_irqsave(&ss->srcu_cb_lock);
		list_splice_init(&ss->srcu_cblist, &batch);
		wanted = srcu_gp_wanted(ss);
		spin_unlock_irqrestore(&ss->srcu_cb_lock, flags);
		if (list_empty(&batch) && !wanted) {
			/*
			 * Nothing to do: either we were asked to stop, or the
			 * request we woke for was met meanwhile by another
			 * updater's synchronize_srcu(). Only the first ends
			 * the thread; the domain still needs it otherwise.
			 */
			if (kthread_should_stop())
				return 0;
			continue;
		}
		synchronize_srcu(ss);
		while (!list_empty(&batch)) {
			struct rcu_head *h = list_first_entry(&batch, struct rcu_head, list);

			list_del(&h->list);
			h->func(h->arg);
		}
		cond_resched();
	}
}

struct srcu_barrier_head {
	struct rcu_head head;
	struct completion done;
};

static void srcu_barrier_cb(void *arg)
{
	complete(&((struct srcu_barrier_head *)arg)->done);
}

void srcu_barrier(struct srcu_struct *ss)
{
	struct srcu_barrier_head b;

	might_sleep();
	init_completion(&b.done);
	call_srcu(ss, &b.head, srcu_barrier_cb, &b);
	wait_for_completion(&b.done);
}
EXPORT_SYMBOL(srcu_barrier);

/* ---- Domains. */

/* Every live domain, for gdb's qs-srcu (tools/gdb/srcu.py) and the tests. */
static LIST_HEAD(srcu_domain_list);
static DEFINE_MUTEX(srcu_domains_mutex);

int init_srcu_struct(struct srcu_struct *ss, const char *name)
{
	memset(ss, 0, sizeof(*ss));
	ss->name = name;
	mutex_init(&ss->srcu_gp_mutex, "srcu_gp_mutex");
	spin_lock_init(&ss->srcu_cb_lock, "srcu_cb_lock");
	INIT_LIST_HEAD(&ss->srcu_cblist);
	init_waitqueue_head(&ss->srcu_gp_wq);
	ss->srcu_gp_kthread = kthread_run(srcu_gp_kthread, ss, "srcu:%s", name);
	mutex_lock(&srcu_domains_mutex);
	list_add_tail(&ss->srcu_domains, &srcu_domain_list);
	mutex_unlock(&srcu_domains_mutex);
	if (srcu_break)
		printk("srcu: domain %s (BROKEN on purpose: srcu_break=1)\n", name);
	return ss->srcu_gp_kthread ? 0 : -ENOMEM;
}
EXPORT_SYMBOL(init_srcu_struct);

/* Each rank's locks and unlocks over all CPUs, unordered: a snapshot for
 * reports and checks, not for a grace period (that is srcu_readers_active_idx()). */
static void srcu_sums(struct srcu_struct *ss, unsigned long locks[2], unsigned long unlocks[2])
{
	locks[0] = locks[1] = unlocks[0] = unlocks[1] = 0;
	for (unsigned int cpu = 0; cpu < CONFIG_NR_CPUS; cpu++)
		for (int idx = 0; idx < 2; idx++) {
			locks[idx] += READ_ONCE(ss->sda[cpu].srcu_lock_count[idx]);
			unlocks[idx] += READ_ONCE(ss->sda[cpu].srcu_unlock_count[idx]);
		}
}

static long srcu_readers_now(struct srcu_struct *ss)
{
	unsigned long locks[2], unlocks[2];

	srcu_sums(ss, locks, unlocks);
	return (long)(locks[0] + locks[1] - unlocks[0] - unlocks[1]);
}

void cleanup_srcu_struct(struct srcu_struct *ss)
{
	might_sleep();
	mutex_lock(&srcu_domains_mutex);
	list_del_init(&ss->srcu_domains);
	mutex_unlock(&srcu_domains_mutex);
	if (ss->srcu_gp_kthread)
		kthread_stop(ss->srcu_gp_kthread);
	ss->srcu_gp_kthread = NULL;
	if (srcu_readers_now(ss) != 0 || !list_empty(&ss->srcu_cblist))
		printk("WARNING: cleanup_srcu_struct(%s): %ld readers, callbacks %s\n",
		       ss->name, srcu_readers_now(ss),
		       list_empty(&ss->srcu_cblist) ? "none" : "left");
}
EXPORT_SYMBOL(cleanup_srcu_struct);

static const char *const srcu_phase_name[] = {
	[SRCU_GP_IDLE] = "idle",
	[SRCU_GP_DRAIN_INACTIVE] = "draining the inactive rank",
	[SRCU_GP_DRAIN_FLIPPED] = "flipped, draining the old rank",
};

/*
 * One domain's state, for a report that a polled cookie or a callback
 * never came (rcutorture) and for Ctrl-T: where the grace period is,
 * what was asked of it, and each rank's sums, so that "a reader never
 * left" (locks != unlocks in the rank being drained) reads apart from
 * "nobody ran the grace period" (idle, gp_req past gp_seq).
 */
void srcu_show(struct srcu_struct *ss)
{
	unsigned long locks[2], unlocks[2];
	unsigned long seq = READ_ONCE(ss->srcu_gp_seq);
	int phase = READ_ONCE(ss->srcu_gp_phase);
	struct task *k = READ_ONCE(ss->srcu_gp_kthread);

	srcu_sums(ss, locks, unlocks);
	printk("srcu: domain %s: gp_seq %lu (%s), %s; gp_req %lu; srcu_idx %lu; "
	       "rank0 %lu locks %lu unlocks, rank1 %lu locks %lu unlocks; callbacks %s\n",
	       ss->name, seq, seq & 1 ? "running" : "idle",
	       phase >= 0 && phase < (int)ARRAY_SIZE(srcu_phase_name) ? srcu_phase_name[phase] : "?",
	       READ_ONCE(ss->srcu_gp_req), READ_ONCE(ss->srcu_idx),
	       locks[0], unlocks[0], locks[1], unlocks[1],
	       list_empty(&ss->srcu_cblist) ? "none queued" : "queued");
	if (k)
		printk("srcu: domain %s: kthread pid %d state %s on cpu%u\n", ss->name, k->pid,
		       task_state_name(READ_ONCE(k->state)), READ_ONCE(k->cpu));
}
EXPORT_SYMBOL(srcu_show);

/* Ctrl-T: every live domain. A trylock: the dump must not wait on a
 * domain being set up or torn down (it says so instead). */
void srcu_show_domains(void)
{
	struct srcu_struct *ss;
	unsigned int n = 0;

	if (!mutex_trylock(&srcu_domains_mutex)) {
		printk("srcu: domain list busy (a domain is being set up or cleaned up)\n");
		return;
	}
	list_for_each_entry(ss, &srcu_domain_list, srcu_domains) {
		srcu_show(ss);
		n++;
	}
	mutex_unlock(&srcu_domains_mutex);
	printk("srcu: domains: %u live\n", n);
}

bool srcu_readers_active(struct srcu_struct *ss)
{
	return srcu_readers_now(ss) > 0;
}
EXPORT_SYMBOL(srcu_readers_active);

/*
 * CPU hotplug (kernel/sched/hotplug.c): a task bound to a dying CPU may
 * stay there, frozen until the CPU returns, only outside every SRCU
 * section: one frozen inside would never reach its unlock, and every
 * grace period of that domain would wait for the CPU to come back. Called
 * on the dying CPU, p switched out and its run queue locked, so its depth
 * (srcu.h) is settled.
 */
bool srcu_task_may_freeze(struct task *p)
{
	return READ_ONCE(p->srcu_read_nesting) == 0;
}

#ifdef CONFIG_PROVE_RCU

/*
 * Each task keeps the domains it holds, innermost last, so that
 * srcu_dereference(p, &a) inside srcu_read_lock(&b) only, or inside
 * another task's section of a, is reported. Interrupts off while the
 * stack changes: a handler's reader pushes onto the interrupted task's
 * stack and pops before it returns, so it must not split our update.
 * Sections nested deeper than the array are counted but not named; the
 * check then gives them the benefit of the doubt.
 */
void srcu_prove_acquire(struct srcu_struct *ss)
{
	struct task *t = current;
	unsigned long flags;

	if (!t)
		return;
	flags = local_irq_save();
	if (t->srcu_held_depth < ARRAY_SIZE(t->srcu_held))
		t->srcu_held[t->srcu_held_depth] = ss;
	t->srcu_held_depth++;
	local_irq_restore(flags);
}
EXPORT_SYMBOL(srcu_prove_acquire);

void srcu_prove_release(struct srcu_struct *ss)
{
	struct task *t = current;
	unsigned long flags;
	unsigned int i, n;

	if (!t || !t->srcu_held_depth)
		return;		/* unlocked by another task than the locker's */
	flags = local_irq_save();
	n = t->srcu_held_depth;
	if (n > ARRAY_SIZE(t->srcu_held)) {
		t->srcu_held_depth--;	/* an unnamed one goes first */
	} else {
		/* Usually the innermost; out-of-order unlocks are legal. */
		for (i = n; i-- > 0;) {
			if (t->srcu_held[i] != ss)
				continue;
			for (; i + 1 < n; i++)
				t->srcu_held[i] = t->srcu_held[i + 1];
			t->srcu_held_depth--;
			break;
		}
	}
	local_irq_restore(flags);
}
EXPORT_SYMBOL(srcu_prove_release);

void srcu_prove_print_held(struct task *t)
{
	unsigned int i;

	if (!t)
		return;
	if (!t->srcu_held_depth)
		printk("  srcu: no SRCU read lock held by %s/%d\n", t->name, t->pid);
	for (i = 0; i < t->srcu_held_depth && i < ARRAY_SIZE(t->srcu_held); i++)
		printk("  srcu: #%u: %s/%d holds srcu_read_lock(%s)\n", i, t->name, t->pid,
		       t->srcu_held[i]->name);
}

bool srcu_read_lock_held(struct srcu_struct *ss)
{
	struct task *t = current;
	unsigned int i;

	if (!t || t->srcu_held_depth > ARRAY_SIZE(t->srcu_held))
		return true;
	for (i = 0; i < t->srcu_held_depth; i++)
		if (READ_ONCE(t->srcu_held[i]) == ss)
			return true;
	return false;
}

#else

bool srcu_read_lock_held(struct srcu_struct *ss)
{
	return true;
}

#endif
EXPORT_SYMBOL(srcu_read_lock_held);
