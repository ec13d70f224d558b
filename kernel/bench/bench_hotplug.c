/*
 * CPU hotplug benchmarks (BENCH lines, never asserted; docs/hotplug.md):
 *   ktest=bench_hotplug   cpu_down()/cpu_up() latency, and
 *                         synchronize_rcu() latency with no hotplug
 *                         against with a CPU going off and on meanwhile.
 * Also a correctness test (hotplug_basic): the boot CPU refuses, every
 * other CPU goes down and comes back, the online count follows.
 */
#include <ktest.h>
#include <cpuhotplug.h>
#include <rcupdate.h>
#include <rcu_hooks.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <errno.h>

#define GP_SAMPLES	20

KTEST(hotplug_basic)
{
	if (!rcu_hotplug_supported()) {
		KT_EXPECT(t, cpu_down(1) == -EOPNOTSUPP || nr_cpu_ids < 2,
			  "a variant without hotplug must refuse");
		ktest_skip(t, "the RCU variant built in does not support CPU hotplug");
		return;
	}
	KT_EXPECT(t, cpu_down(0) == -EBUSY, "the boot CPU must refuse to go down");
	for (unsigned int cpu = 1; cpu < nr_cpu_ids; cpu++) {
		int err = cpu_down(cpu);

		KT_EXPECT(t, err == 0, "cpu_down(%u) = %d", cpu, err);
		KT_EXPECT(t, !cpu_online(cpu), "cpu%u still online", cpu);
		KT_EXPECT(t, num_online_cpus() == nr_cpu_ids - 1, "online %u", num_online_cpus());
		KT_EXPECT(t, cpu_down(cpu) == -EINVAL, "cpu%u went down twice", cpu);
		synchronize_rcu();	/* a grace period without it must end */
		rcu_barrier();
		err = cpu_up(cpu);
		KT_EXPECT(t, err == 0, "cpu_up(%u) = %d", cpu, err);
		KT_EXPECT(t, cpu_online(cpu), "cpu%u not back", cpu);
	}
	KT_EXPECT(t, num_online_cpus() == nr_cpu_ids, "online %u of %u", num_online_cpus(),
		  nr_cpu_ids);
}

static volatile bool toggling;

static int bench_toggler(void *arg)
{
	unsigned int cpu = 1;

	while (READ_ONCE(toggling)) {
		if (!cpu_down(cpu)) {
			msleep(10);
			cpu_up(cpu);
		}
		msleep(10);
		cpu = cpu + 1 < nr_cpu_ids ? cpu + 1 : 1;
	}
	return 0;
}

static u64 gp_avg_ns(void)
{
	u64 total = 0;

	for (int i = 0; i < GP_SAMPLES; i++) {
		u64 t0 = ktime_get_ns();

		synchronize_rcu();
		total += ktime_get_ns() - t0;
	}
	return total / GP_SAMPLES;
}

KTEST(bench_hotplug)
{
	struct cpu_hotplug_stats a, b;
	struct task *tg;
	u64 gp_quiet, gp_onoff;

	if (!rcu_hotplug_supported() || nr_cpu_ids < 2) {
		ktest_skip(t, "no CPU hotplug with this variant or CPU count");
		return;
	}
	cpu_hotplug_get_stats(&a);
	for (int i = 0; i < 10; i++) {
		unsigned int cpu = 1 + i % (nr_cpu_ids - 1);

		KT_EXPECT(t, cpu_down(cpu) == 0, "cpu_down(%u)", cpu);
		KT_EXPECT(t, cpu_up(cpu) == 0, "cpu_up(%u)", cpu);
	}
	cpu_hotplug_get_stats(&b);
	gp_quiet = gp_avg_ns();
	WRITE_ONCE(toggling, true);
	tg = kthread_run(bench_toggler, NULL, "hp_toggler");
	KT_EXPECT(t, tg != NULL, "toggler");
	if (!tg)
		return;
	gp_onoff = gp_avg_ns();
	WRITE_ONCE(toggling, false);
	kthread_join(tg);
	KT_EXPECT(t, num_online_cpus() == nr_cpu_ids, "online %u of %u", num_online_cpus(),
		  nr_cpu_ids);
	bench_json("{\"bench\":\"hotplug\",\"variant\":\"%s\",\"cpus\":%u,\"preempt\":\"%s\","
		   "\"down_us_avg\":%lu,\"up_us_avg\":%lu,\"gp_us_avg\":%lu,"
		   "\"gp_onoff_us_avg\":%lu,\"gp_samples\":%d}",
		   rcu_variant_name(), nr_cpu_ids, preempt_model_name(),
		   (unsigned long)((b.down_ns_total - a.down_ns_total) / 10 / 1000),
		   (unsigned long)((b.up_ns_total - a.up_ns_total) / 10 / 1000),
		   (unsigned long)(gp_quiet / 1000), (unsigned long)(gp_onoff / 1000), GP_SAMPLES);
}
