/*
 * Affinity, migration and load balancing.
 *
 * A task may only be moved between run queues while it is not running:
 *   - a queued, not running task moves under both run-queue locks
 *     (move_queued_task);
 *   - a running task that may no longer stay (set_cpus_allowed) is taken
 *     off its queue by __schedule() at its next switch and moved by the
 *     task that runs next, once the old stack is free (migrate_after_switch);
 *   - a sleeping task is placed on an allowed CPU when it wakes up
 *     (select_task_cpu).
 *
 * Load balancing is a periodic pull, from each CPU's tick: every tick on
 * an idle CPU, every BALANCE_INTERVAL on a busy one. A CPU that has at
 * least two tasks fewer than the busiest CPU takes one queued (not
 * running) task from it that is allowed to run here, highest priority
 * first.
 */
#include "sched.h"
#include <smp.h>
#include <time.h>

#define BALANCE_INTERVAL	(HZ / 20 ? HZ / 20 : 1)	/* 50 ms when busy */

bool move_queued_task(struct task *p, unsigned int from, unsigned int to)
{
	struct rq *src = cpu_rq(from), *dst = cpu_rq(to);
	bool ok;

	double_rq_lock(src, dst);
	ok = READ_ONCE(p->cpu) == (int)from && task_on_rq_queued(p) && src->curr != p &&
	     !p->is_idle && cpumask_test(to, &p->cpus_allowed) && cpu_online(to);
	if (ok) {
		dequeue_task_migrating(src, p);
		WRITE_ONCE(p->cpu, to);	/* read unlocked: try_to_wake_up(), ps */
		enqueue_task(dst, p, false);
		p->migrations++;
		src->stats.migrations_out++;
		dst->stats.migrations_in++;
		check_preempt(dst, p);
	}
	double_rq_unlock(src, dst);
	flush_resched_ipis();
	return ok;
}

static bool allowed_cpu_online(struct task *p)
{
	unsigned int cpu;

	for_each_online_cpu(cpu)
		if (cpumask_test(cpu, &p->cpus_allowed))
			return true;
	return false;
}

/*
 * p was running on this CPU, may not stay, and __schedule() has just
 * taken it off the queue; it is switched out now (we run in the next
 * task, interrupts off). Queue it on a CPU it may use.
 */
void migrate_after_switch(struct task *p)
{
	for (;;) {
		unsigned int cpu = READ_ONCE(p->cpu);
		unsigned int target = select_task_cpu(p);
		struct rq *rq = cpu_rq(cpu), *trq = cpu_rq(target);

		double_rq_lock(rq, trq);
		if (READ_ONCE(p->cpu) == (int)cpu && !cpumask_test(target, &p->cpus_allowed) &&
		    !cpumask_empty(&p->cpus_allowed) && !allowed_cpu_online(p)) {
			/*
			 * The CPUs it chose went offline before this switch
			 * (CPU hotplug: set_cpus_allowed() saw one online):
			 * select_task_cpu() has nowhere to put it, and we
			 * would loop with interrupts off until one returns.
			 * Any online CPU, as Linux's select_fallback_rq().
			 */
			cpumask_copy(&p->cpus_allowed, &cpu_online_mask);
		}
		if (READ_ONCE(p->cpu) != (int)cpu ||
		    !cpumask_test(target, &p->cpus_allowed)) {
			double_rq_unlock(rq, trq);
			if (cpumask_empty(&p->cpus_allowed))
				return;
			continue;
		}
		/* __schedule() left it migrating; a wake-up meanwhile only
		 * set it running. Nobody else queues it. */
		if (p->on_rq == TASK_ON_RQ_MIGRATING) {
			if (target != cpu) {
				WRITE_ONCE(p->cpu, target);
				p->migrations++;
				rq->stats.migrations_out++;
				trq->stats.migrations_in++;
			}
			enqueue_task(trq, p, false);
			check_preempt(trq, p);
		}
		double_rq_unlock(rq, trq);
		return;
	}
}

int set_cpus_allowed(struct task *p, const cpumask_t *mask)
{
	unsigned long flags;
	unsigned int cpu, target = CONFIG_NR_CPUS;
	struct rq *rq;
	bool running, queued;

	for_each_cpu(cpu, mask)
		if (cpu_online(cpu)) {
			target = cpu;
			break;
		}
	if (target == CONFIG_NR_CPUS || p->is_idle)
		return -EINVAL;

	flags = local_irq_save();
	rq = task_rq_lock(p);
	cpumask_copy(&p->cpus_allowed, mask);
	cpu = rq->cpu;
	if (cpumask_test(cpu, mask)) {
		spin_unlock(&rq->lock);
		local_irq_restore(flags);
		return 0;
	}
	running = rq->curr == p;
	queued = task_on_rq_queued(p);
	if (running)
		resched_curr(rq);	/* __schedule() moves it at its next switch */
	spin_unlock(&rq->lock);
	flush_resched_ipis();

	if (!running && queued)
		move_queued_task(p, cpu, target);
	local_irq_restore(flags);
	if (running && p == current && !preempt_count())
		__schedule(SM_YIELD);	/* go now; we return on an allowed CPU */
	/* With preemption disabled, current moves at preempt_enable(): an
	 * involuntary switch (rcutorture migrates preempted readers so). */
	/* A sleeping task moves when it wakes (select_task_cpu). A task
	 * running on another CPU moves at its next switch: at once with
	 * CONFIG_KPREEMPT (the IPI preempts it), at its next preemption point
	 * without. */
	return 0;
}

int set_cpus_allowed_one(struct task *p, unsigned int cpu)
{
	cpumask_t m;

	cpumask_clear(&m);
	cpumask_set(cpu, &m);
	return set_cpus_allowed(p, &m);
}

/* A queued, not running task on src that may run on dst, highest priority first. */
static struct task *pick_movable(struct rq *src, unsigned int dst)
{
	for (int prio = 0; prio < NR_PRIO; prio++) {
		struct task *p;

		if (!test_bit(prio, src->bitmap))
			continue;
		list_for_each_entry(p, &src->queue[prio], run_list)
			if (p != src->curr && cpumask_test(dst, &p->cpus_allowed))
				return p;
	}
	return NULL;
}

/* From this CPU's tick, interrupts off. */
void load_balance_tick(struct rq *rq)
{
	unsigned int cpu, busiest = CONFIG_NR_CPUS, max = 0;
	unsigned int mine = READ_ONCE(rq->nr_running);
	struct rq *src;
	struct task *p;

	if (mine && time_before(jiffies, rq->next_balance))
		return;
	rq->next_balance = jiffies + BALANCE_INTERVAL;
	for_each_online_cpu(cpu) {
		unsigned int n = nr_running_cpu(cpu);
		if (cpu != rq->cpu && n > max) {
			max = n;
			busiest = cpu;
		}
	}
	if (busiest == CONFIG_NR_CPUS || max < mine + 2)
		return;
	src = cpu_rq(busiest);
	double_rq_lock(rq, src);
	if (src->nr_running >= rq->nr_running + 2 && (p = pick_movable(src, rq->cpu))) {
		dequeue_task_migrating(src, p);
		WRITE_ONCE(p->cpu, rq->cpu);	/* read unlocked: try_to_wake_up(), ps */
		enqueue_task(rq, p, false);
		p->migrations++;
		src->stats.migrations_out++;
		rq->stats.migrations_in++;
		rq->stats.balance_pulls++;
		check_preempt(rq, p);
	}
	double_rq_unlock(rq, src);
	flush_resched_ipis();
}
