/*
 * rcutorture's CPU hotplug (Linux's onoff_interval): with torture.onoff=MS
 * a thread takes a random application CPU offline, waits MS to 2*MS,
 * brings it back, waits again, for the whole run, so that every grace
 * period of the run may see CPUs leave and return. A cpu_down() or
 * cpu_up() that fails (other than -EOPNOTSUPP, which stops the test with
 * one report) is a hotplug error: its own kind in the verdict. At the end
 * every CPU is brought back before the writer drains.
 */
#include "torture.h"
#include "../rcu_internal.h"
#include <cpuhotplug.h>
#include <cmdline.h>
#include <errno.h>
#include <printk.h>
#include <sched.h>
#include <smp.h>
#include <time.h>

static unsigned long torture_onoff_ms;
CMDLINE_ULONG_TAGGED("torture.onoff", torture_onoff, torture_onoff_ms, 0, 60000,
		     "torture.onoff=MS: take a random CPU offline and back every MS..2*MS ms "
		     "during rcu_torture (0: no hotplug, the default)");

static struct task *onoff_task;
static unsigned long onoff_downs, onoff_ups;

static void onoff_fail(const char *what, unsigned int cpu, int err)
{
	atomic_long_inc(&torture_errors.hotplug);
	torture_report("hotplug: %s cpu%u failed: %d", what, cpu, err);
}

/*
 * Once cpu_down() has returned, no grace period may wait for that CPU:
 * the one in flight dropped it, later ones copy cpu_online_mask without
 * it. A variant that still lists it as owing a quiescent state would
 * only be rescued when the CPU comes back (or hang if it never does).
 * Irqs off around the look: the tick takes the same locks (stall.c).
 */
static void onoff_check_owing(unsigned int cpu)
{
	struct rcu_stall_info si;

	for (int tries = 0; tries < 100; tries++) {
		unsigned long flags = local_irq_save();
		bool busy;

		cpumask_clear(&si.owing);
		busy = rcu_variant_stall_info(&si);
		local_irq_restore(flags);
		if (!busy)
			continue;	/* no grace period, or its lock was busy: again */
		if (cpumask_test(cpu, &si.owing))
			onoff_fail("down (still owes a grace period after offline)", cpu, -EBUSY);
		return;
	}
}

static int torture_onoff(void *arg)
{
	struct torture_rand r;
	unsigned long base = torture_onoff_ms;

	torture_rand_init(&r, 0x6f6e6f6666UL);
	while (!READ_ONCE(torture_stopping)) {
		unsigned int cpu = 1 + torture_random(&r) % (nr_cpu_ids - 1);
		int err = cpu_down(cpu);

		if (err == -EOPNOTSUPP) {
			printk("rcu-torture: onoff: %s cannot take a CPU offline\n",
			       rcu_variant_name());
			onoff_fail("down (unsupported)", cpu, err);
			break;
		}
		if (err)
			onoff_fail("down", cpu, err);
		else {
			onoff_downs++;
			onoff_check_owing(cpu);
		}
		msleep(base + torture_random(&r) % (base + 1));
		if (!err) {
			err = cpu_up(cpu);
			if (err)
				onoff_fail("up", cpu, err);
			else
				onoff_ups++;
		}
		if (!READ_ONCE(torture_stopping))
			msleep(base + torture_random(&r) % (base + 1));
	}
	return 0;
}

int torture_onoff_start(void)
{
	onoff_downs = onoff_ups = 0;
	if (!torture_onoff_ms || nr_cpu_ids < 2)
		return 0;
	onoff_task = kthread_run(torture_onoff, NULL, "rcu_torture_onoff");
	return onoff_task ? 0 : -ENOMEM;
}

void torture_onoff_stop(void)
{
	struct cpu_hotplug_stats st;

	if (!onoff_task)
		return;
	kthread_join(onoff_task);
	onoff_task = NULL;
	for (unsigned int cpu = 1; cpu < nr_cpu_ids; cpu++)
		if (cpu_is_parked(cpu) && cpu_up(cpu))
			onoff_fail("final up", cpu, -EINVAL);
	if (num_online_cpus() != nr_cpu_ids)
		onoff_fail("final count", num_online_cpus(), -EINVAL);
	cpu_hotplug_get_stats(&st);
	printk("rcu-torture: onoff: %lu downs, %lu ups every %lu..%lu ms; "
	       "down %lu us avg %lu us max, up %lu us avg %lu us max; %lu bound tasks moved; "
	       "%lu reads on a CPU out of cpu_online_mask\n",
	       onoff_downs, onoff_ups, torture_onoff_ms, 2 * torture_onoff_ms,
	       st.downs ? (unsigned long)(st.down_ns_total / st.downs / 1000) : 0,
	       (unsigned long)(st.down_ns_max / 1000),
	       st.ups ? (unsigned long)(st.up_ns_total / st.ups / 1000) : 0,
	       (unsigned long)(st.up_ns_max / 1000), st.unbound, torture_offline_reads());
}
