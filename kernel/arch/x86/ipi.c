/*
 * Inter-processor interrupts: reschedule, call a function on other CPUs,
 * and NMI.
 *
 * Call-function requests travel in "call slots": each sending CPU owns one
 * slot per target CPU (so no allocation, and usable before kmalloc). A
 * sender waits until its slot for that target is free, fills it, pushes it
 * onto the target's lock-free queue (a compare-and-swap on the queue head)
 * and sends the IPI. The target's handler takes the whole queue at once
 * (one exchange), runs each function and frees each slot. A sender that
 * asked to wait spins until its slot is freed, i.e. until the function has
 * run. Interrupts are disabled on the target while the function runs.
 *
 * A slot's busy: 0 free; CALL_QUEUED from send until the target takes
 * it; CALL_RUNNING while the target runs fn; CALL_ABANDONED if its
 * sender stopped waiting because the target was parked by CPU hotplug
 * (then fn must never run: the sender's arg may be gone). The target
 * and a sender that gives up decide between them with one
 * compare-and-swap from CALL_QUEUED.
 */
#include <trace.h>
#include <smp.h>
#include <percpu.h>
#include <barrier.h>
#include <preempt.h>
#include <printk.h>
#include <panic.h>
#include <arch/apic.h>
#include <arch/irq.h>
#include <arch/cpu.h>
#include <upcalls.h>

enum { CALL_FREE, CALL_QUEUED, CALL_RUNNING, CALL_ABANDONED };

struct call_slot {
	struct call_slot *next;
	smp_call_func_t fn;
	void *arg;
	int busy;			/* CALL_*: not free until the target is done */
};

static DEFINE_PER_CPU(struct call_slot[CONFIG_NR_CPUS], call_slots);	/* [target] */
static DEFINE_PER_CPU(struct call_slot *, call_queue);

static void call_function_interrupt(struct pt_regs *regs, void *arg)
{
	struct call_slot *s = __atomic_exchange_n(this_cpu_ptr(&call_queue), NULL,
						  __ATOMIC_ACQUIRE);
	struct call_slot *rev = NULL;

	trace_event(TRACE_IRQ, TR_IPI, VEC_CALL_FUNCTION, 0);
	while (s) {			/* reverse: run in the order they were sent */
		struct call_slot *n = s->next;
		s->next = rev;
		rev = s;
		s = n;
	}
	while (rev) {
		struct call_slot *n = rev->next;
		smp_call_func_t fn = rev->fn;
		void *a = rev->arg;
		int queued = CALL_QUEUED;

		/* Not if its sender gave up on us while we were parked. */
		if (__atomic_compare_exchange_n(&rev->busy, &queued, CALL_RUNNING, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			fn(a);
		smp_store_release(&rev->busy, CALL_FREE);	/* slot free: fn has run */
		rev = n;
	}
}

static void reschedule_interrupt(struct pt_regs *regs, void *arg)
{
	trace_event(TRACE_IRQ, TR_IPI, VEC_RESCHEDULE, 0);
	scheduler_ipi();
}

/*
 * CPU hotplug (kernel/sched/hotplug.c): a sender that read cpu_online_mask
 * just before the target left it may queue a call the parked target will
 * not answer (interrupts off). It gives up waiting once it sees the target
 * parked, marking its slot CALL_ABANDONED, and the target, which takes the
 * queue when it enables interrupts again, frees that slot without running
 * fn. A call whose sender still waits (it saw the target unparked) runs
 * then, as any other. The returning CPU flushes its whole TLB, for the
 * shootdowns it missed (here, on it, interrupts off, before it is online).
 */
void smp_call_unparked(void)
{
	u64 cr4 = read_cr4();

	write_cr4(cr4 & ~X86_CR4_PGE);		/* drops global entries too */
	write_cr4(cr4);
}

static bool queue_call(unsigned int cpu, smp_call_func_t fn, void *arg)
{
	struct call_slot *s = &this_cpu(call_slots)[cpu];
	struct call_slot **q = per_cpu_ptr(&call_queue, cpu);
	struct call_slot *head;

	while (smp_load_acquire(&s->busy)) {	/* our previous call to cpu still queued */
		if (cpu_is_parked(cpu))
			return false;
		cpu_relax();
	}
	s->fn = fn;
	s->arg = arg;
	s->busy = CALL_QUEUED;
	head = READ_ONCE(*q);
	do {
		s->next = head;
	} while (!__atomic_compare_exchange_n(q, &head, s, false,
					      __ATOMIC_RELEASE, __ATOMIC_RELAXED));
	lapic_send_ipi(cpu_apic_id[cpu], VEC_CALL_FUNCTION);
	return true;
}

static void wait_call(unsigned int cpu)
{
	struct call_slot *s = &this_cpu(call_slots)[cpu];

	while (smp_load_acquire(&s->busy)) {
		int queued = CALL_QUEUED;

		/* Parked: give up, unless the target has begun fn (then it
		 * is not parked, only our look was old: wait for it). */
		if (cpu_is_parked(cpu) &&
		    __atomic_compare_exchange_n(&s->busy, &queued, CALL_ABANDONED, false,
						__ATOMIC_RELAXED, __ATOMIC_RELAXED))
			return;			/* never run (above) */
		cpu_relax();
	}
}

int smp_call_function_single(unsigned int cpu, smp_call_func_t fn, void *arg, bool wait)
{
	if (cpu >= nr_cpu_ids || !cpu_online(cpu))
		return -1;
	preempt_disable();
	if (cpu == smp_processor_id()) {
		unsigned long flags = local_irq_save();
		fn(arg);
		local_irq_restore(flags);
	} else {
		if (queue_call(cpu, fn, arg) && wait)
			wait_call(cpu);
	}
	preempt_enable();
	return 0;
}

/* Queue fn on every online CPU but this one; optionally run it here too. */
static void call_many(smp_call_func_t fn, void *arg, bool wait, bool self)
{
	unsigned int cpu, me;

	preempt_disable();
	me = smp_processor_id();
	for_each_online_cpu(cpu)
		if (cpu != me)
			queue_call(cpu, fn, arg);
	if (self) {
		unsigned long flags = local_irq_save();
		fn(arg);
		local_irq_restore(flags);
	}
	if (wait)
		for_each_online_cpu(cpu)
			if (cpu != me)
				wait_call(cpu);
	preempt_enable();
}

void smp_call_function(smp_call_func_t fn, void *arg, bool wait)
{
	call_many(fn, arg, wait, false);
}

void on_each_cpu(smp_call_func_t fn, void *arg, bool wait)
{
	call_many(fn, arg, wait, true);
}

void smp_send_reschedule(unsigned int cpu)
{
	lapic_send_ipi(cpu_apic_id[cpu], VEC_RESCHEDULE);
}

void smp_send_nmi(unsigned int cpu)
{
	lapic_send_nmi(cpu_apic_id[cpu]);
}

void smp_send_nmi_allbutself(void)
{
	unsigned int cpu, me = smp_processor_id();

	for_each_online_cpu(cpu)
		if (cpu != me)
			smp_send_nmi(cpu);
}

void ipi_init(void)
{
	irq_set_handler(VEC_CALL_FUNCTION, call_function_interrupt, NULL, "call-function");
	irq_set_handler(VEC_RESCHEDULE, reschedule_interrupt, NULL, "reschedule");
}
