/*
 * rcutorture's reader segments (torture.segments=1; Linux's rcutorture
 * calls them "extendables"): a read-side section that starts with
 * rcu_read_lock() and is then extended, in a random chain, by sections
 * of interrupts off, softirqs off, preemption off and nested
 * rcu_read_lock()s, each entered and left in a random order, so that the
 * element the reader picked up is held across the hand-over from one
 * kind of protection to another (rcu_read_unlock() with interrupts off,
 * local_irq_enable() with preemption off, ...).
 *
 * Which of those protect a reader is the variant's design, and the
 * variant says so (rcu_read_side_extensions(), rcu_internal.h): a
 * variant whose quiescent states are only context switches, user and
 * idle ticks counts all three; rcu-preempt counts none of them, only
 * rcu_read_lock(). The reader holds its element only while at least one
 * protection its variant counts is held; the moment the last one goes it
 * checks the element and drops it. A check that finds the element freed
 * or aged by a whole grace period is an error, printed with the chain of
 * segments the reader went through, so the hand-over that let a
 * quiescent state in can be read off the console.
 */
#include "torture.h"
#include "../rcu_internal.h"
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <printk.h>
#include <softirq.h>
#include <string.h>
#include <arch/cpu.h>

#define SEG_MAX_STEPS		12
#define SEG_MAX_READERS		8

/* Protections a segment step takes or drops. */
enum seg_prot { SEG_RCU, SEG_PREEMPT, SEG_IRQ, SEG_BH, SEG_NR };
static const char seg_name[SEG_NR][8] = { "rcu", "preempt", "irq", "bh" };

struct seg_state {
	int held[SEG_NR];		/* nesting of each */
	unsigned int ext;		/* rcu_read_side_extensions() */
	char trail[SEG_MAX_STEPS * 12 + 16];
	int tlen;
};

static struct task *seg_tasks[SEG_MAX_READERS];
static unsigned int nr_seg_tasks;
atomic_long_t torture_seg_reads, torture_seg_steps;
/* Hand-overs to an irqs-off segment with a reschedule pending: the ones
 * a preempt_enable() that switched with interrupts off would betray. */
static atomic_long_t torture_seg_resched;

static bool seg_counts(const struct seg_state *s, enum seg_prot k)
{
	switch (k) {
	case SEG_RCU:
		return true;
	case SEG_PREEMPT:
		return s->ext & RCU_EXT_PREEMPT;
	case SEG_IRQ:
		return s->ext & RCU_EXT_IRQ;
	default:
		return s->ext & RCU_EXT_BH;
	}
}

/* Does the reader hold any protection its variant counts as read-side? */
static bool seg_protected(const struct seg_state *s)
{
	for (int k = 0; k < SEG_NR; k++)
		if (s->held[k] && seg_counts(s, k))
			return true;
	return false;
}

static void seg_note(struct seg_state *s, char op, enum seg_prot k)
{
	if (s->tlen < (int)sizeof(s->trail) - 12)
		s->tlen += snprintf(s->trail + s->tlen, sizeof(s->trail) - s->tlen,
				    "%s%c%s", s->tlen ? " " : "", op, seg_name[k]);
}

/*
 * Can protection k be taken (take) or dropped now? Softirqs are enabled
 * and disabled only with interrupts on (local_bh_enable() may run them),
 * and at most two levels of each nest.
 */
static bool seg_allowed(const struct seg_state *s, enum seg_prot k, bool take)
{
	if (k == SEG_BH && s->held[SEG_IRQ])
		return false;
	if (k == SEG_IRQ)
		return take ? !s->held[SEG_IRQ] : s->held[SEG_IRQ];
	return take ? s->held[k] < 2 : s->held[k] > 0;
}

static void seg_do(struct seg_state *s, enum seg_prot k, bool take)
{
	seg_note(s, take ? '+' : '-', k);
	atomic_long_inc(&torture_seg_steps);
	if (!take && k != SEG_IRQ && s->held[SEG_IRQ] && preempt_count() == 1 &&
	    READ_ONCE(cpu_local()->need_resched))
		atomic_long_inc(&torture_seg_resched);
	switch (k) {
	case SEG_RCU:
		take ? rcu_read_lock() : rcu_read_unlock();
		break;
	case SEG_PREEMPT:
		take ? preempt_disable() : preempt_enable();
		break;
	case SEG_IRQ:
		take ? local_irq_disable() : local_irq_enable();
		break;
	default:
		take ? local_bh_disable() : local_bh_enable();
		break;
	}
	s->held[k] += take ? 1 : -1;
}

/*
 * The element held since the reader picked it up is checked as its last
 * counted protection goes: not freed, not aged by a whole grace period,
 * and no grace period that began after the pick-up (rcu_gp_started()
 * had not counted it) has ended (the grace-period check of
 * torture_readers.c, which needs no retirement to land in the window).
 */
static void seg_check(struct seg_state *s, struct rcu_torture *p, int pipe0,
		      unsigned long gp_started)
{
	unsigned long mark = READ_ONCE(p->rtort_mark);
	int pipe = READ_ONCE(p->rtort_pipe_count);
	unsigned long done = rcu_gp_completed();

	if (mark == RTORT_MARK && pipe <= 1 && (long)(done - gp_started) <= 0)
		return;
	atomic_long_inc(&torture_errors.segment);
	torture_report("segments: cpu%u %s (age %d -> %d, grace periods started %lu, "
		       "completed %lu) after: %s", smp_processor_id(),
		       mark != RTORT_MARK ? "element freed" : pipe > 1 ? "element aged" :
		       "a grace period began and ended", pipe0, pipe, gp_started, done, s->trail);
}

/*
 * A short busy wait: long ones while preemption (but not interrupts) is
 * off, so the tick can ask for a reschedule that the hand-over must not
 * honour before the read-side section ends.
 */
static void seg_delay(struct seg_state *s, struct torture_rand *r)
{
	unsigned long x = torture_random(r);

	if (x % 4)
		return;
	if (s->held[SEG_IRQ])
		udelay((x >> 8) % 50);
	else if (s->held[SEG_PREEMPT] || s->held[SEG_BH] || s->held[SEG_RCU])
		udelay((x >> 8) % 1000);
}

/* Drop every level of k; the element goes with the last counted protection. */
static void seg_release(struct seg_state *s, struct rcu_torture **pp, int pipe0,
			unsigned long gp0, enum seg_prot k)
{
	while (s->held[k]) {
		if (*pp) {
			bool still;

			s->held[k]--;
			still = seg_protected(s);
			s->held[k]++;
			if (!still) {
				seg_check(s, *pp, pipe0, gp0);
				*pp = NULL;
			}
		}
		seg_do(s, k, false);
	}
}

static void seg_one_read(struct torture_rand *r)
{
	struct seg_state s = { .ext = rcu_read_side_extensions() };
	unsigned int steps = 2 + torture_random(r) % (SEG_MAX_STEPS - 2);
	struct rcu_torture *p;
	unsigned long gp0;
	int pipe0;

	seg_do(&s, SEG_RCU, true);
	gp0 = rcu_gp_started();
	p = rcu_dereference_check(rcu_torture_current, 1);
	pipe0 = p ? READ_ONCE(p->rtort_pipe_count) : 0;
	atomic_long_inc(&torture_seg_reads);
	for (unsigned int i = 0; i < steps; i++) {
		unsigned long x = torture_random(r);
		enum seg_prot k = x % SEG_NR;
		bool take = (x >> 4) & 1;

		if (!seg_allowed(&s, k, take))
			continue;
		/* Leaving the last counted protection: the element goes with it. */
		if (!take && p) {
			bool still;

			s.held[k]--;
			still = seg_protected(&s);
			s.held[k]++;
			if (!still) {
				seg_check(&s, p, pipe0, gp0);
				p = NULL;
			}
		}
		seg_do(&s, k, take);
		if (!p && seg_protected(&s)) {
			gp0 = rcu_gp_started();
			p = rcu_dereference_check(rcu_torture_current, 1);
			pipe0 = p ? READ_ONCE(p->rtort_pipe_count) : 0;
			seg_note(&s, '@', SEG_RCU);
		}
		seg_delay(&s, r);
	}
	/*
	 * Unwind: softirqs first (they go on only with interrupts on); then,
	 * every other time, close the remaining levels inside an irqs-off
	 * segment, the hand-over where a reschedule must wait.
	 */
	if (!s.held[SEG_IRQ] && (torture_random(r) & 1)) {
		seg_release(&s, &p, pipe0, gp0, SEG_BH);
		seg_do(&s, SEG_IRQ, true);
	}
	seg_release(&s, &p, pipe0, gp0, SEG_RCU);
	seg_release(&s, &p, pipe0, gp0, SEG_PREEMPT);
	seg_release(&s, &p, pipe0, gp0, SEG_IRQ);
	seg_release(&s, &p, pipe0, gp0, SEG_BH);
}

static int rcu_torture_segments(void *arg)
{
	struct torture_rand r;

	torture_rand_init(&r, 7000 + (unsigned long)arg);
	while (!READ_ONCE(torture_stopping)) {
		seg_one_read(&r);
		if (!(torture_random(&r) % 64))
			torture_sleep(1);
		cond_resched();
		torture_stutter_wait();
	}
	return 0;
}

int torture_segments_start(void)
{
	unsigned int n = MIN(num_online_cpus(), SEG_MAX_READERS);

	atomic_long_set(&torture_seg_reads, 0);
	atomic_long_set(&torture_seg_steps, 0);
	atomic_long_set(&torture_seg_resched, 0);
	nr_seg_tasks = 0;
	if (!torture_params.segments)
		return 0;
	printk("rcu-torture: segments: %u readers; the variant counts rcu%s%s%s as read-side\n",
	       n, rcu_read_side_extensions() & RCU_EXT_PREEMPT ? ", preempt-off" : "",
	       rcu_read_side_extensions() & RCU_EXT_IRQ ? ", irqs-off" : "",
	       rcu_read_side_extensions() & RCU_EXT_BH ? ", bh-off" : "");
	for (unsigned int i = 0; i < n; i++) {
		struct task *t = kthread_create_on_cpu(rcu_torture_segments, (void *)(unsigned long)i,
						       i, "rcu_torture_seg%u", i);

		if (!t)
			return -1;
		seg_tasks[nr_seg_tasks++] = t;
		wake_up_process(t);
	}
	return 0;
}

void torture_segments_stop(void)
{
	int code;

	for (unsigned int i = 0; i < nr_seg_tasks; i++) {
		if (!kthread_join_timeout(seg_tasks[i], 30 * HZ, &code)) {
			atomic_long_inc(&torture_errors.stall);
			torture_report("segment reader %u did not stop", i);
		}
		seg_tasks[i] = NULL;
	}
	if (nr_seg_tasks)
		printk("rcu-torture: segments: %ld reads, %ld steps, %ld with a reschedule "
		       "pending as the last preemption-off level went inside an irqs-off one\n",
		       atomic_long_read(&torture_seg_reads), atomic_long_read(&torture_seg_steps),
		       atomic_long_read(&torture_seg_resched));
	nr_seg_tasks = 0;
}
