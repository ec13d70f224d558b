/* Work queues (include/workqueue.h): process context, may sleep, flush. */
#include <ktest.h>
#include <workqueue.h>
#include <sched.h>
#include <smp.h>
#include <time.h>

struct probe_work {
	struct work_struct work;
	volatile int cpu;
	volatile bool atomic_ctx;
	volatile bool slept;
	volatile int runs;
};

static void probe_work_fn(struct work_struct *w)
{
	struct probe_work *p = container_of(w, struct probe_work, work);

	p->cpu = smp_processor_id();
	p->atomic_ctx = in_interrupt() || preempt_count() != 0 || irqs_disabled();
	msleep(10);			/* a work item may sleep */
	p->slept = true;
	p->runs++;
}

/*
 * A gate: the first item on each CPU's worker, holding it until the test
 * has queued and re-queued its probes behind it. Without it a remote
 * worker could take a probe (clearing its pending bit) between the two
 * schedule_work_on() calls below, if the host held this vCPU there, and
 * the second call would rightly queue it again.
 */
static struct completion wq_gate;

static void gate_work_fn(struct work_struct *w)
{
	wait_for_completion(&wq_gate);
}

KTEST(workqueue_process_context_and_flush)
{
	static struct probe_work p[CONFIG_NR_CPUS];
	static struct work_struct gate[CONFIG_NR_CPUS];
	unsigned int cpu;

	init_completion(&wq_gate);
	for_each_online_cpu(cpu) {
		INIT_WORK(&gate[cpu], gate_work_fn);
		KT_EXPECT(t, schedule_work_on(cpu, &gate[cpu]), "queueing the gate on CPU %u failed", cpu);
	}
	for_each_online_cpu(cpu) {
		INIT_WORK(&p[cpu].work, probe_work_fn);
		p[cpu].cpu = -1;
		p[cpu].slept = false;
		p[cpu].runs = 0;
		KT_EXPECT(t, schedule_work_on(cpu, &p[cpu].work), "queueing on CPU %u failed", cpu);
		KT_EXPECT(t, !schedule_work_on(cpu, &p[cpu].work),
			  "an item already pending was queued twice");
	}
	complete_all(&wq_gate);
	for_each_online_cpu(cpu) {
		flush_work(&p[cpu].work);
		KT_EXPECT(t, p[cpu].slept, "flush_work returned before CPU %u's item finished", cpu);
		KT_EXPECT(t, p[cpu].runs == 1, "CPU %u's item ran %d times", cpu, p[cpu].runs);
		KT_EXPECT(t, p[cpu].cpu == (int)cpu, "item for CPU %u ran on CPU %d", cpu, p[cpu].cpu);
		KT_EXPECT(t, !p[cpu].atomic_ctx, "item ran in atomic context");
	}
}

KTEST(workqueue_flush_all)
{
	static struct probe_work p[8];

	for (int i = 0; i < 8; i++) {
		INIT_WORK(&p[i].work, probe_work_fn);
		p[i].runs = 0;
		schedule_work(&p[i].work);
	}
	flush_scheduled_work();
	for (int i = 0; i < 8; i++)
		KT_EXPECT(t, p[i].runs == 1, "item %d: %d runs after flush_scheduled_work", i,
			  p[i].runs);
}
