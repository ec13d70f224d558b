/*
 * The idle overhead of the built-in RCU variant (seed 000 Table 2): the
 * cycles its hooks add to a context switch and to a timer tick while no
 * callback is in flight. After rcu_barrier() (nothing queued anywhere),
 * the hooks are called directly, with interrupts off, many times, and an
 * empty call through the same kind of function pointer is subtracted.
 * rcu-taskq's hooks are empty: its figure should be 0.
 */
#include <ktest.h>
#include <rcupdate.h>
#include <rcu_hooks.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <arch/cpu.h>
#include <rcu_test.h>

#define HOOK_CALLS	20000

static void __noinline empty_switch_hook(bool voluntary)
{
	barrier();
}

static void __noinline empty_tick_hook(enum tick_context ctx)
{
	barrier();
}

static u64 time_switch_hook(void (*hook)(bool))
{
	u64 t0 = rdtsc_ordered();

	for (int i = 0; i < HOOK_CALLS; i++)
		hook(true);
	return rdtsc_ordered() - t0;
}

static u64 time_tick_hook(void (*hook)(enum tick_context))
{
	u64 t0 = rdtsc_ordered();

	for (int i = 0; i < HOOK_CALLS; i++)
		hook(TICK_KERNEL);
	return rdtsc_ordered() - t0;
}

static long per_call(u64 hook, u64 base)
{
	long d = (long)(hook - base) / HOOK_CALLS;
	return d < 0 ? 0 : d;
}

KTEST(bench_rcu_idle_overhead)
{
	void (*volatile sw)(bool) = rcu_hook_context_switch;
	void (*volatile tk)(enum tick_context) = rcu_hook_tick;
	u64 base_sw = ~0ULL, base_tk = ~0ULL, hook_sw = ~0ULL, hook_tk = ~0ULL;
	unsigned long flags;

	/* No callback in flight anywhere. A task that dies meanwhile queues
	 * one (its struct is freed by call_rcu()), so try a few times. */
	for (int i = 0; i < 10 && (i == 0 || rcu_pending_callbacks()); i++)
		rcu_barrier();
	KT_EXPECT(t, rcu_pending_callbacks() == 0, "callbacks still pending");
	preempt_disable();
	flags = local_irq_save();
	for (int round = 0; round < 3; round++) {	/* best of three: noise only adds */
		base_sw = MIN(base_sw, time_switch_hook(empty_switch_hook));
		hook_sw = MIN(hook_sw, time_switch_hook(sw));
		base_tk = MIN(base_tk, time_tick_hook(empty_tick_hook));
		hook_tk = MIN(hook_tk, time_tick_hook(tk));
	}
	local_irq_restore(flags);
	preempt_enable();
	bench_json("{\"bench\":\"rcu_idle_overhead\",\"variant\":\"%s\",\"cpus\":%u,"
		   "\"context_switch_cycles\":%ld,\"tick_cycles\":%ld}",
		   rcu_variant_name(), num_online_cpus(), per_call(hook_sw, base_sw),
		   per_call(hook_tk, base_tk));
	kt_info("%s adds %ld cycles to a context switch and %ld to a tick with no callbacks",
		rcu_variant_name(), per_call(hook_sw, base_sw), per_call(hook_tk, base_tk));
}
