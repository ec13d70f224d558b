/*
 * A reader preempted on a CPU that then goes offline must still hold up
 * every grace period until it ends (docs/rcu/preempt.md, "CPU hotplug").
 *
 * In the variants whose readers can be preempted (rcu-preempt), the
 * preempted reader is counted on its CPU's counters; when that CPU goes
 * offline the count must move with the task (kernel/rcu/
 * rcu_preempt_hotplug.c), not vanish with the CPU. The test, with the
 * public API only: a thread bound to CPU c enters a reader, has itself
 * preempted (need_resched + preempt_enable: an involuntary switch, so it
 * is counted on c), says it is ready, and spins in the reader for HOLD_MS.
 * Meanwhile the test takes c offline and calls synchronize_rcu(), which
 * must not return while the reader is still inside. Two rounds: the
 * reader still bound to c (frozen inside a reader on a dying CPU, so the
 * scheduler must move it), and one that widened its affinity after being
 * counted (moved like any queued task); either way its count moves at
 * offline.
 */
#include <ktest.h>
#include <cpuhotplug.h>
#include <rcupdate.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <errno.h>

/*
 * Longer than a grace period (rcu-preempt's, about 250 ms) plus the up to
 * 100 ms the stopper lets a bound thread run on to a voluntary switch
 * (kernel/sched/hotplug.c): the reader must still be inside when
 * synchronize_rcu() would return without it.
 */
#define HOLD_MS		700

struct hpr {
	bool widen;
	volatile bool ready, inside;
};

static int hpr_thread(void *arg)
{
	struct hpr *h = arg;
	u64 end;

	rcu_read_lock();
	WRITE_ONCE(h->inside, true);
	preempt_disable();
	set_need_resched();
	preempt_enable();	/* preempted inside the reader: counted on this CPU */
	if (h->widen) {
		cpumask_t all;

		cpumask_copy(&all, &cpu_online_mask);
		preempt_disable();	/* the affinity changes, the task stays for now */
		set_cpus_allowed(current, &all);
		preempt_enable();
	}
	smp_mb();		/* counted and inside before the test takes the CPU */
	WRITE_ONCE(h->ready, true);
	end = ktime_get_ns() + HOLD_MS * 1000000ULL;
	while (ktime_get_ns() < end)
		cpu_relax();	/* no voluntary switch: still the same reader */
	smp_mb();		/* the reader's accesses before it says it is done */
	WRITE_ONCE(h->inside, false);
	rcu_read_unlock();
	return 0;
}

KTEST(hotplug_preempted_reader)
{
	unsigned int cpu = nr_cpu_ids - 1;

	if (!rcu_read_side_preemptible()) {
		ktest_skip(t, "readers are not preemptible in this build");
		return;
	}
	if (nr_cpu_ids < 2) {
		ktest_skip(t, "one CPU: none to take offline");
		return;
	}
	for (int round = 0; round < 2; round++) {
		struct hpr h = { .widen = round == 1 };
		struct task *p;
		bool inside_after;
		u64 t0, t1;
		int err;

		rcu_barrier();
		p = kthread_create_on_cpu(hpr_thread, &h, cpu, "rcu_hpr_reader");
		KT_ASSERT(t, p, "no memory for the reader thread");
		wake_up_process(p);
		while (!READ_ONCE(h.ready))
			msleep(1);
		t0 = ktime_get_ns();
		err = cpu_down(cpu);
		if (err == -EOPNOTSUPP) {
			kthread_join(p);
			ktest_skip(t, "the RCU variant built in does not support CPU hotplug");
			return;
		}
		KT_EXPECT(t, err == 0, "cpu_down(%u) = %d", cpu, err);
		synchronize_rcu();
		inside_after = READ_ONCE(h.inside);
		t1 = ktime_get_ns();
		kt_info("round %d (%s): cpu%u down, synchronize_rcu() returned after %llu ms, "
			"reader %s", round, h.widen ? "affinity widened" : "bound to it", cpu,
			(unsigned long long)((t1 - t0) / 1000000),
			inside_after ? "STILL INSIDE" : "done");
		KT_EXPECT(t, !inside_after,
			  "synchronize_rcu() returned while a reader preempted on cpu%u before "
			  "it went offline was still inside", cpu);
		kthread_join(p);
		if (!err)
			KT_EXPECT(t, cpu_up(cpu) == 0, "cpu_up(%u)", cpu);
	}
}
