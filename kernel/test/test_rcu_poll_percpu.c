/*
 * poll-percpu only (per-CPU rcu-poll, kernel/rcu/rcu_poll_percpu.c, seed
 * 004 section 3): "callbacks always run on the CPU that registered
 * them". On every online CPU a bound thread queues callbacks, each of
 * which records the CPU it runs on; after rcu_barrier() every callback
 * must have run, on the CPU of its thread, in softirq context. Skips
 * itself on other variants.
 */
#include <ktest.h>
#include <rcupdate.h>
#include <sched.h>
#include <smp.h>
#include <string.h>
#include <printk.h>
#include <arch/cpu.h>

#define PP_PER_CPU	32

struct pp_cb {
	struct rcu_head head;
	int queued_on;
	volatile int ran_on;
	volatile int in_softirq;
};

static struct pp_cb pp_cbs[CONFIG_NR_CPUS][PP_PER_CPU];

static void pp_callback(void *arg)
{
	struct pp_cb *c = arg;

	c->in_softirq = in_softirq();
	c->ran_on = smp_processor_id();
}

static int pp_queue_thread(void *arg)
{
	struct pp_cb *cbs = arg;
	int i;

	for (i = 0; i < PP_PER_CPU; i++) {
		cbs[i].queued_on = smp_processor_id();
		call_rcu(&cbs[i].head, pp_callback, &cbs[i]);
		if (i % 8 == 7)
			msleep(4);		/* spread them over several grace periods */
	}
	return 0;
}

KTEST(rcu_poll_percpu_callbacks_run_where_queued)
{
	struct task *tasks[CONFIG_NR_CPUS];
	unsigned int cpu, bad = 0;
	int i;

	if (strcmp(rcu_variant_name(), "poll-percpu") != 0) {
		ktest_skip(t, "not poll-percpu");
		return;
	}
	memset(pp_cbs, 0, sizeof(pp_cbs));
	for (cpu = 0; cpu < CONFIG_NR_CPUS; cpu++)
		for (i = 0; i < PP_PER_CPU; i++) {
			pp_cbs[cpu][i].queued_on = -1;
			pp_cbs[cpu][i].ran_on = -1;
		}
	for_each_online_cpu(cpu) {
		tasks[cpu] = kthread_create_on_cpu(pp_queue_thread, pp_cbs[cpu], cpu, "pp_queue/%u", cpu);
		KT_EXPECT(t, tasks[cpu] != NULL, "thread for cpu%u", cpu);
		if (tasks[cpu])
			wake_up_process(tasks[cpu]);
	}
	for_each_online_cpu(cpu)
		if (tasks[cpu])
			kthread_join(tasks[cpu]);
	rcu_barrier();
	for_each_online_cpu(cpu) {
		for (i = 0; i < PP_PER_CPU; i++) {
			struct pp_cb *c = &pp_cbs[cpu][i];

			if (c->queued_on != (int)cpu || c->ran_on != (int)cpu || !c->in_softirq) {
				if (bad++ < 4)
					KT_EXPECT(t, false, "callback %d of cpu%u: queued on %d, ran on %d, in_softirq %d",
						  i, cpu, c->queued_on, c->ran_on, c->in_softirq);
			}
		}
	}
	KT_EXPECT(t, bad == 0, "%u of %u callbacks not run on their own CPU",
		  bad, num_online_cpus() * PP_PER_CPU);
	kt_info("%u CPUs x %d callbacks, each ran on the CPU that queued it",
		num_online_cpus(), PP_PER_CPU);
}
