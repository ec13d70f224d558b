/*
 * Invoking the callbacks whose grace period is over, the same for every
 * variant: seed 000 Figure 38, X-rcu's rcu_invoke_callbacks() (rcu-poll's,
 * Figure 43, walks its one global list the same way). Each head is
 * unlinked before its function runs: the function may free the element
 * that holds it, or queue it again with call_rcu().
 *
 * Each callback is counted as it runs, not once per batch, so that
 * rcu_pending_callbacks() (queued - invoked: torture's flood bound, the
 * amlat benchmark's load) does not lag a whole batch behind while a long
 * batch runs. Callbacks run in softirq or process context on this CPU:
 * the count stays this CPU's.
 */
#include "rcu_internal.h"
#include <arch/cpu.h>

void rcu_invoke_callbacks(struct list_head *list)
{
	struct rcu_cpu_stats *s = this_cpu_ptr(&rcu_cpu_stats);
	unsigned long n = 0;
	u64 t0 = trace_enabled(TRACE_RCU) ? rdtsc() : 0;

	while (!list_empty(list)) {
		struct rcu_head *h = container_of(list->next, struct rcu_head, list);

		list_del(&h->list);
		rcu_prove_dequeue(h);	/* func may queue h again */
		trace_event(TRACE_RCU, TR_CB_INVOKE, h, 0);
		h->func(h->arg);
		WRITE_ONCE(s->invoked, s->invoked + 1);
		n++;
	}
	if (n > s->max_batch)
		s->max_batch = n;
	rcu_trace_batch(n, t0);
}

/*
 * A batch of n callbacks ended on this CPU, begun at TSC t0 (0: not
 * timed): for the timeline, the batch and the callbacks still pending here.
 */
void rcu_trace_batch(unsigned long n, u64 t0)
{
	struct rcu_cpu_stats *s = this_cpu_ptr(&rcu_cpu_stats);

	if (!trace_enabled(TRACE_RCU) || !n)
		return;
	trace_event(TRACE_RCU, TR_CB_BATCH, n, t0 ? rdtsc() - t0 : 0);
	trace_event(TRACE_RCU, TR_CB_PENDING,
		    READ_ONCE(s->queued) > READ_ONCE(s->invoked) ? s->queued - s->invoked : 0, 0);
}

/*
 * One callback at a time, for a caller that decides after each one
 * whether to go on (the realtime options: seed 003 Figures 4 and 14); it
 * reports the batch with rcu_stats_batch() when it stops.
 */
void rcu_invoke_one(struct list_head *list)
{
	struct rcu_cpu_stats *s = this_cpu_ptr(&rcu_cpu_stats);
	struct rcu_head *h = container_of(list->next, struct rcu_head, list);

	list_del(&h->list);
	rcu_prove_dequeue(h);
	trace_event(TRACE_RCU, TR_CB_INVOKE, h, 0);
	h->func(h->arg);
	WRITE_ONCE(s->invoked, s->invoked + 1);
}
