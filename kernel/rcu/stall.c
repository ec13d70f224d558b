/*
 * RCU CPU stall warnings.
 *
 * From the variant's tick hook, rcu_check_stall() looks at the grace period
 * in progress: if it began more than rcu_stall_timeout ms ago, one CPU (the
 * first to notice) prints which CPUs still owe it a quiescent state, the
 * grace-period number, the callback counts, the variant's own state, and
 * an NMI backtrace of each CPU that owes one (an NMI gets through even if
 * that CPU spins with interrupts off). It warns again after each further
 * timeout while the same grace period lasts.
 */
#include "rcu_internal.h"
#include <cmdline.h>
#include <time.h>
#include <smp.h>
#include <printk.h>
#include <string.h>

/* A sanitizer build's grace periods take SANITIZER_SLOWDOWN times as long (Kconfig). */
static unsigned long stall_timeout_ms = CONFIG_RCU_STALL_TIMEOUT_MS * CONFIG_SANITIZER_SLOWDOWN;
static u64 next_warn_ns;
static unsigned long warned_gp = ~0UL;
static int stall_warning_active;
cpumask_t rcu_last_stall_mask;	/* CPUs named by the last warning (tests) */

CMDLINE_ULONG("rcu_stall_timeout", stall_timeout_ms, 100, 600000,
	      "rcu_stall_timeout=<ms>: warn when a grace period lasts longer (100..600000, "
	      "default CONFIG_RCU_STALL_TIMEOUT_MS x CONFIG_SANITIZER_SLOWDOWN)");

unsigned long rcu_stall_timeout_ms(void)
{
	return stall_timeout_ms;
}

static void print_stall(struct rcu_stall_info *si, u64 age_ns)
{
	char line[256];
	unsigned int cpu;
	int n = snprintf(line, sizeof(line), "INFO: %s detected stalls on CPUs:",
			 rcu_variant_name());

	for_each_cpu(cpu, &si->owing)
		n += snprintf(line + n, sizeof(line) - n, " %u", cpu);
	if (cpumask_empty(&si->owing))
		snprintf(line + n, sizeof(line) - n, " none");
	printk("%s\n", line);
	if (si->why[0])
		printk("INFO: %s\n", si->why);
	unsigned long queued = 0;

	for_each_online_cpu(cpu)
		queued += READ_ONCE(per_cpu(rcu_cpu_stats, cpu).queued);
	printk("INFO: grace period %lu has lasted %lu ms (timeout %lu ms); callbacks queued %lu, "
	       "pending %lu\n", si->gpnum, (unsigned long)(age_ns / 1000000), stall_timeout_ms,
	       queued, rcu_pending_callbacks());
	rcu_variant_show_state();
	nmi_trigger_backtrace(&si->owing);
}

void rcu_check_stall(void)
{
	struct rcu_stall_info si;
	u64 now, age;

	if (!rcu_gp_in_progress())
		return;
	now = ktime_get_ns();
	age = now - READ_ONCE(rcu_gp_seq.start_ns);
	/* A grace period that began after our clock read looks negative. */
	if ((s64)age < 0 || age < stall_timeout_ms * 1000000ULL)
		return;
	si.why[0] = '\0';
	if (!rcu_variant_stall_info(&si))
		return;
	if (si.gpnum == READ_ONCE(warned_gp) && now < READ_ONCE(next_warn_ns))
		return;
	if (__atomic_exchange_n(&stall_warning_active, 1, __ATOMIC_ACQUIRE))
		return;				/* another CPU is printing */
	if (si.gpnum != warned_gp || now >= next_warn_ns) {
		warned_gp = si.gpnum;
		next_warn_ns = now + stall_timeout_ms * 1000000ULL;
		/* The mask first: whoever sees the count move sees the mask. */
		cpumask_copy(&rcu_last_stall_mask, &si.owing);
		smp_wmb();
		WRITE_ONCE(rcu_gp_stats.stalls, rcu_gp_stats.stalls + 1);
		print_stall(&si, age);
	}
	__atomic_store_n(&stall_warning_active, 0, __ATOMIC_RELEASE);
}
