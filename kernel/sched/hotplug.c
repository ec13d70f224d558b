/*
 * CPU hotplug: cpu_down() takes an application CPU out of service,
 * cpu_up() brings it back (docs/hotplug.md).
 *
 * Going down. The caller (any other CPU, a task) starts a stopper thread
 * bound to the dying CPU at the highest real-time priority, so that
 * whatever ran there is switched out, then waits for it. The stopper, on
 * the dying CPU:
 *   1. interrupts off: stops the local tick, clears the CPU from
 *      cpu_online_mask (a full barrier after it: a CPU that starts a grace
 *      period, picks a CPU for a wake-up or sends a call-function IPI from
 *      now on sees it gone), and tells RCU (rcu_hook_cpu_offline: the CPU
 *      leaves the masks and counters a grace period waits on, and hands
 *      its callbacks to a live CPU);
 *   2. interrupts still off (a tick, IPI or softirq taken after the
 *      report would run readers no grace period waits for): moves its
 *      queued tasks (those allowed elsewhere), timers and timed sleepers
 *      to a live CPU. Work items: the caller flushes the system work
 *      queue before it starts the stopper, and queue_work_on() refuses
 *      an offline CPU from then on;
 *   3. parks: hlt in a loop until cpu_up() sets the flag and sends an
 *      NMI; interrupts come back on only after RCU knows it again.
 * Its pending softirqs run just before step 1, while it is online; its
 * queued tasklets are taken over by the caller once it has parked.
 * Device interrupts need nothing: the IOAPIC routes every line to the
 * boot CPU (ioapic.c), which never goes down (-EBUSY).
 *
 * Why park instead of INIT and SIPI: the parked CPU keeps its GDT, IDT,
 * LAPIC, per-CPU area and idle task, so cpu_up() is an NMI and a few
 * microseconds, where a re-INIT would rebuild all of that through the
 * boot trampoline whose ap_boot_* slots are single-use. With interrupts
 * off only an NMI (or INIT, SMI) ends hlt, so nothing but cpu_up() wakes
 * it; a real machine would rather power the core off, which QEMU's CPUs
 * cannot.
 *
 * Kernel threads bound to the dying CPU (its ksoftirqd, its worker,
 * per-CPU RCU daemons) stay on its run queue, frozen, until it returns,
 * as Linux parks its per-CPU threads; and as Linux's kthread_park() lets
 * each park at a point of its own choosing, none is left frozen where it
 * was preempted (percpu_kthreads_park()). User tasks bound to it alone
 * move to a live CPU with their affinity broken, as Linux's
 * select_fallback_rq() does, and the console says so. One hotplug
 * operation at a time (hotplug_lock).
 */
#include "sched.h"
#include <cpuhotplug.h>
#include <completion.h>
#include <mutex.h>
#include <smp.h>
#include <time.h>
#include <tick.h>
#include <errno.h>
#include <printk.h>
#include <string.h>
#include <softirq.h>
#include <workqueue.h>
#include <timer.h>
#include <interrupt.h>
#include <rcu_hooks.h>
#include <fault_inject.h>
#include <arch/apic.h>
#include <arch/cpu.h>

static DEFINE_MUTEX(hotplug_lock);
static volatile bool cpu_parked[CONFIG_NR_CPUS];	/* in the park loop */
static volatile bool cpu_unpark[CONFIG_NR_CPUS];	/* cpu_up() says: come back */
/* cpu_down() under way: until this jiffy its per-CPU kernel threads are
 * not preempted (0: not going down). */
static volatile unsigned long cpu_parking_until[CONFIG_NR_CPUS];
/* How long the stopper waits for them to reach a voluntary switch. */
#define PARK_WAIT_MS	100
/* User tasks whose affinity the last cpu_down() broke, for its caller to
 * report (the stopper runs with interrupts off). hotplug_lock. */
#define BROKEN_MAX	8
static struct { int pid; char name[TASK_COMM_LEN]; } broken[BROKEN_MAX];
static unsigned int nr_broken;
static struct completion down_done, up_done;
static struct cpu_hotplug_stats hp_stats;

void cpus_read_lock(void)
{
	mutex_lock(&hotplug_lock);
}

void cpus_read_unlock(void)
{
	mutex_unlock(&hotplug_lock);
}

bool cpu_is_parked(unsigned int cpu)
{
	return cpu < CONFIG_NR_CPUS && READ_ONCE(cpu_parked[cpu]);
}

void cpu_hotplug_get_stats(struct cpu_hotplug_stats *out)
{
	mutex_lock(&hotplug_lock);
	*out = hp_stats;
	mutex_unlock(&hotplug_lock);
}

void cpu_hotplug_show(void)
{
	struct cpu_hotplug_stats st = hp_stats;	/* a racy copy is fine for a report */
	char line[160];
	int n = snprintf(line, sizeof(line), "cpus: online");
	unsigned int cpu;

	for_each_online_cpu(cpu)
		n += snprintf(line + n, sizeof(line) - n, " %u", cpu);
	n += snprintf(line + n, sizeof(line) - n, " (%u of %u); offline:", num_online_cpus(),
		      nr_cpu_ids);
	for_each_possible_cpu(cpu)
		if (!cpu_online(cpu))
			n += snprintf(line + n, sizeof(line) - n, " %u", cpu);
	printk("%s\n", line);
	printk("cpus: hotplug %lu down %lu up, down avg %lu us, up avg %lu us, %lu bound tasks moved\n",
	       st.downs, st.ups, st.downs ? (unsigned long)(st.down_ns_total / st.downs / 1000) : 0,
	       st.ups ? (unsigned long)(st.up_ns_total / st.ups / 1000) : 0, st.unbound);
}

const char *cpu_hotplug_unavailable(void)
{
	if (nr_cpu_ids < 2)
		return "one CPU: none to take offline";
	if (!rcu_hotplug_supported())
		return "the RCU variant built in does not support CPU hotplug";
	return NULL;
}

/* A live CPU to inherit the dying one's work: the boot CPU is always live. */
static unsigned int heir_cpu(unsigned int dying)
{
	(void)dying;
	return 0;
}

/* A kernel thread that may run on cpu alone: its ksoftirqd, its worker,
 * per-CPU RCU daemons, a test's bound thread. */
static bool percpu_kthread(const struct task *p, unsigned int cpu)
{
	return !p->proc && !p->is_idle && cpumask_test(cpu, &p->cpus_allowed) &&
	       cpumask_weight(&p->cpus_allowed) == 1;
}

/*
 * sched.h: from may_preempt(), for the task running here. While this
 * CPU is going down its per-CPU kernel threads run on to a switch of
 * their own (they block, yield or call cond_resched()): one preempted
 * here would freeze where it was, perhaps inside a trampoline, and hold
 * synchronize_rcu_tasks() until the CPU returned. Bounded: a thread that
 * never gives the CPU up is preempted again after PARK_WAIT_MS.
 */
bool hotplug_holds_preemption(struct task *p)
{
	unsigned int cpu = smp_processor_id();
	unsigned long until = READ_ONCE(cpu_parking_until[cpu]);

	return unlikely(until) && time_before(jiffies, until) && percpu_kthread(p, cpu);
}

/*
 * The first task queued on rq, neither running nor idle, that fn accepts,
 * referenced (put_task()). fn runs under the run-queue lock, interrupts
 * off: it may change p's affinity, not its queue.
 */
static struct task *rq_find(struct rq *rq, bool (*fn)(struct rq *rq, struct task *p))
{
	struct task *found = NULL;
	unsigned long flags = local_irq_save();

	spin_lock(&rq->lock);
	for (int prio = 0; prio < NR_PRIO && !found; prio++) {
		struct task *p;

		list_for_each_entry(p, &rq->queue[prio], run_list) {
			if (p != rq->curr && !p->is_idle && fn(rq, p)) {
				get_task(p);
				found = p;
				break;
			}
		}
	}
	spin_unlock(&rq->lock);
	local_irq_restore(flags);
	return found;
}

/* A per-CPU kernel thread of this run queue's CPU, queued after a preemption. */
static bool percpu_kthread_preempted(struct rq *rq, struct task *p)
{
	return p->preempted && percpu_kthread(p, rq->cpu);
}

/*
 * Step 0 on the dying CPU, before anything else: Linux's kthread_park()
 * for every per-CPU kernel thread at once. Tasks RCU counts a task
 * frozen on a parked CPU as quiescent only if its last switch away was
 * voluntary (rcu_tasks.c); a thread preempted here, by us or before
 * cpu_down() began, may be inside a trampoline. Its preemption is held
 * off (hotplug_holds_preemption()), so we step aside until each one has
 * run on to a switch of its own. One that has not within PARK_WAIT_MS
 * (a thread that never blocks) is taken as it is, and the console says
 * which: frozen, it holds Tasks RCU until the CPU returns.
 */
static void percpu_kthreads_park(unsigned int cpu)
{
	struct task *p;

	while ((p = rq_find(cpu_rq(cpu), percpu_kthread_preempted))) {
		if (!time_before(jiffies, READ_ONCE(cpu_parking_until[cpu]))) {
			printk("hotplug: cpu%u: %s/%d did not reach a voluntary switch in %u ms: "
			       "taken where it was preempted\n", cpu, p->name, p->pid, PARK_WAIT_MS);
			put_task(p);
			return;
		}
		put_task(p);
		msleep(1);
	}
}

/* May p leave the dying CPU? Under its run-queue lock (rq_find()). */
static bool movable(struct rq *rq, struct task *p)
{
	cpumask_t other;

	cpumask_copy(&other, &p->cpus_allowed);
	cpumask_clear_cpu(rq->cpu, &other);
	if (!cpumask_empty(&other))
		return true;
	if (p->proc) {
		/* A user task: its affinity is broken (Linux's select_fallback_rq()). */
		if (nr_broken < BROKEN_MAX) {
			broken[nr_broken].pid = p->pid;
			strlcpy(broken[nr_broken].name, p->name, TASK_COMM_LEN);
		}
		nr_broken++;
	} else if (rcu_hook_task_may_freeze(p)) {
		return false;	/* bound here: frozen until we return */
	}
	/* A grace period waits for it, or it is a user task: it runs elsewhere. */
	cpumask_copy(&p->cpus_allowed, &cpu_online_mask);
	hp_stats.unbound++;
	return true;
}

static void migrate_tasks_off(unsigned int cpu)
{
	struct task *p;
	int tries = 0;

	while ((p = rq_find(cpu_rq(cpu), movable)) && tries++ < 10000) {
		unsigned int target = select_task_cpu(p);
		unsigned long flags;

		if (target == cpu)
			target = heir_cpu(cpu);
		/* Run-queue locks are taken with interrupts off: the tick
		 * takes them in hard-IRQ context (set_cpus_allowed() does so). */
		flags = local_irq_save();
		move_queued_task(p, cpu, target);
		local_irq_restore(flags);
		put_task(p);
	}
	if (p)
		put_task(p);
}

/*
 * The park loop's hlt, at a global label: cpu_up()'s NMI may come after
 * the loop read cpu_unpark false and before the hlt, and with interrupts
 * off nothing else would end that hlt. The NMI handler steps over the hlt
 * when it interrupted a parked CPU right there (kernel/arch/x86/nmi.c),
 * so the loop reads the flag again. One copy of it: noinline, noclone.
 */
static __attribute__((noinline, noclone)) void park_halt(void)
{
	__asm__ __volatile__(".globl cpu_park_hlt\ncpu_park_hlt:\n\thlt" ::: "memory");
}

static void park_this_cpu(unsigned int cpu)
{
	/* Interrupts stay off: only cpu_up()'s NMI ends the hlt. */
	local_irq_disable();
	WRITE_ONCE(cpu_parked[cpu], true);
	complete(&down_done);
	while (!READ_ONCE(cpu_unpark[cpu]))
		park_halt();
	WRITE_ONCE(cpu_unpark[cpu], false);
	smp_call_unparked();		/* the TLB flushes it missed */
	WRITE_ONCE(cpu_parked[cpu], false);

	/* Back: the mirror of ap_main(): RCU first, then the tick, then
	 * online (a release: the CPU's state before anyone picks it). */
	rcu_hook_cpu_online(cpu);
	tick_start_this_cpu();
	smp_mb();
	cpumask_set(cpu, &cpu_online_mask);
	smp_mb();
	local_irq_enable();
	complete(&up_done);
}

static int cpu_stopper(void *arg)
{
	unsigned int cpu = smp_processor_id(), heir = heir_cpu(cpu);

	percpu_kthreads_park(cpu);
	/* Still online: a reader its softirqs run is one RCU waits for. */
	if (local_softirq_pending())
		do_softirq();
	local_irq_disable();
	/*
	 * A delay here, interrupts off and the tick still running, latches
	 * a tick and any call-function IPI sent meanwhile: they run when
	 * this CPU next enables interrupts, and must not run a reader that
	 * RCU has stopped waiting for.
	 */
	fault_inject(cpu_stopper_irqs_off, NULL);
	lapic_timer_stop();
	cpumask_clear_cpu(cpu, &cpu_online_mask);
	smp_mb();	/* gone from the mask before RCU forgets us (rcu_hooks.h) */
	rcu_hook_cpu_offline(cpu);
	/*
	 * From the report on, interrupts stay off until cpu_up() has made
	 * this CPU known to RCU again (park_this_cpu()): a tick, an IPI or
	 * a softirq taken here would run its readers where no grace period
	 * waits for them (rcu_hooks.h). What was latched runs after the
	 * return; what is raised here waits with it; its tasklets go to the
	 * CPU that ran cpu_down() (tasklets_takeover()).
	 */
	migrate_tasks_off(cpu);
	timers_migrate(cpu, heir);
	sleepers_migrate(cpu, heir);
	park_this_cpu(cpu);
	return 0;
}

/* One down or up that began at t0, under hotplug_lock: count it, its time. */
static void hp_account(u64 t0, unsigned long *count, u64 *total, u64 *max)
{
	u64 ns = ktime_get_ns() - t0;

	(*count)++;
	*total += ns;
	if (ns > *max)
		*max = ns;
}

int cpu_down(unsigned int cpu)
{
	struct task *t;
	u64 t0;
	int ret = 0;

	if (cpu == 0)
		return -EBUSY;
	if (cpu >= nr_cpu_ids)
		return -EINVAL;
	if (!rcu_hotplug_supported())
		return -EOPNOTSUPP;
	mutex_lock(&hotplug_lock);
	if (!cpu_online(cpu) || cpu_is_parked(cpu)) {
		ret = -EINVAL;
		goto out;
	}
	t0 = ktime_get_ns();
	flush_workqueue(system_wq);		/* its items run before it goes */
	init_completion(&down_done);
	t = kthread_create_on_cpu(cpu_stopper, NULL, cpu, "cpuhp/%u", cpu);
	if (!t) {
		ret = -ENOMEM;
		goto out;
	}
	sched_setscheduler(t, SCHED_FIFO, 99);
	nr_broken = 0;
	/* Before the stopper wakes: its wake-up must not preempt a per-CPU
	 * kernel thread either (hotplug_holds_preemption()). */
	WRITE_ONCE(cpu_parking_until[cpu], jiffies + msecs_to_jiffies(PARK_WAIT_MS));
	smp_mb();
	wake_up_process(t);
	wait_for_completion(&down_done);
	WRITE_ONCE(cpu_parking_until[cpu], 0);
	for (unsigned int i = 0; i < nr_broken && i < BROKEN_MAX; i++)
		printk("hotplug: process %d (%s) no longer affine to cpu%u\n", broken[i].pid,
		       broken[i].name, cpu);
	if (nr_broken > BROKEN_MAX)
		printk("hotplug: and %u more processes no longer affine to cpu%u\n",
		       nr_broken - BROKEN_MAX, cpu);
	tasklets_takeover(cpu);		/* parked: its lists are ours to empty */
	rcu_hook_cpu_dead(cpu);		/* here, a live CPU adopts its callbacks */
	put_task(t);	/* it finishes when the CPU comes back */
	hp_account(t0, &hp_stats.downs, &hp_stats.down_ns_total, &hp_stats.down_ns_max);
out:
	mutex_unlock(&hotplug_lock);
	return ret;
}

int cpu_up(unsigned int cpu)
{
	u64 t0;
	int ret = 0;

	if (cpu == 0 || cpu >= nr_cpu_ids)
		return -EINVAL;
	mutex_lock(&hotplug_lock);
	if (!cpu_is_parked(cpu)) {
		ret = -EINVAL;
		goto out;
	}
	t0 = ktime_get_ns();
	init_completion(&up_done);
	WRITE_ONCE(cpu_unpark[cpu], true);
	smp_mb();
	smp_send_nmi(cpu);
	wait_for_completion(&up_done);
	hp_account(t0, &hp_stats.ups, &hp_stats.up_ns_total, &hp_stats.up_ns_max);
out:
	mutex_unlock(&hotplug_lock);
	return ret;
}
