/*
 * Tasklets (include/interrupt.h), as in Linux 2.5/2.6.
 *
 * Each CPU has two singly linked lists, one per softirq (HI and TASKLET).
 * tasklet_schedule() sets SCHED and, if it was clear, appends the tasklet
 * to this CPU's list and raises the softirq: so the tasklet runs on the CPU
 * that scheduled it. The softirq action takes the whole list with
 * interrupts off, then for each tasklet tries to set RUN: if another CPU
 * is running it (it was rescheduled there and queued here meanwhile), or
 * it is disabled, it goes back on the list for a later pass. Otherwise SCHED
 * is cleared *before* the function runs, so a tasklet_schedule() from
 * inside the function (or from an interrupt during it) queues it again.
 */
#include <trace.h>
#include <interrupt.h>
#include <sched.h>
#include <percpu.h>
#include <smp.h>
#include <panic.h>
#include <arch/cpu.h>

struct tasklet_list {
	struct tasklet_struct *head;
	struct tasklet_struct **tail;
};

static DEFINE_PER_CPU(struct tasklet_list, tasklet_vec);
static DEFINE_PER_CPU(struct tasklet_list, tasklet_hi_vec);

void tasklet_init(struct tasklet_struct *t, void (*func)(unsigned long), unsigned long data)
{
	t->next = NULL;
	t->state = 0;
	atomic_set(&t->count, 0);
	t->func = func;
	t->data = data;
}

static void list_append(struct tasklet_list *l, struct tasklet_struct *t)
{
	if (!l->tail)
		l->tail = &l->head;
	t->next = NULL;
	*l->tail = t;
	l->tail = &t->next;
}

static void schedule_on(struct tasklet_struct *t, struct tasklet_list *percpu_list,
			unsigned int softirq)
{
	unsigned long flags;

	if (test_and_set_bit(TASKLET_STATE_SCHED, &t->state))
		return;			/* already queued: it will run */
	flags = local_irq_save();
	list_append(this_cpu_ptr(percpu_list), t);
	raise_softirq_irqoff(softirq);
	local_irq_restore(flags);
}

void tasklet_schedule(struct tasklet_struct *t)
{
	schedule_on(t, &tasklet_vec, TASKLET_SOFTIRQ);
}

void tasklet_hi_schedule(struct tasklet_struct *t)
{
	schedule_on(t, &tasklet_hi_vec, HI_SOFTIRQ);
}

static void tasklet_action_common(struct tasklet_list *percpu_list, unsigned int softirq)
{
	struct tasklet_list *l = this_cpu_ptr(percpu_list);
	struct tasklet_struct *list;

	local_irq_disable();
	list = l->head;
	l->head = NULL;
	l->tail = &l->head;
	local_irq_enable();

	while (list) {
		struct tasklet_struct *t = list;

		list = list->next;
		if (!test_and_set_bit(TASKLET_STATE_RUN, &t->state)) {
			if (!atomic_read(&t->count)) {
				if (!test_and_clear_bit(TASKLET_STATE_SCHED, &t->state))
					panic("tasklet %p on a list without SCHED set", t);
				trace_event(TRACE_SOFTIRQ, TR_TASKLET_ENTRY, t->func, 0);
				t->func(t->data);
				trace_event(TRACE_SOFTIRQ, TR_TASKLET_EXIT, 0, 0);
				clear_bit(TASKLET_STATE_RUN, &t->state);
				continue;
			}
			clear_bit(TASKLET_STATE_RUN, &t->state);
		}
		/* Running elsewhere, or disabled: try again on a later pass. */
		local_irq_disable();
		list_append(l, t);
		raise_softirq_irqoff(softirq);
		local_irq_enable();
	}
}

static void tasklet_action(void)
{
	tasklet_action_common(&tasklet_vec, TASKLET_SOFTIRQ);
}

static void tasklet_hi_action(void)
{
	tasklet_action_common(&tasklet_hi_vec, HI_SOFTIRQ);
}

static void tasklet_unlock_wait(struct tasklet_struct *t)
{
	while (test_bit(TASKLET_STATE_RUN, &t->state))
		cpu_relax();
}

void tasklet_disable(struct tasklet_struct *t)
{
	atomic_inc(&t->count);
	smp_mb();
	tasklet_unlock_wait(t);
}

void tasklet_enable(struct tasklet_struct *t)
{
	smp_mb();
	atomic_dec(&t->count);
}

void tasklet_kill(struct tasklet_struct *t)
{
	might_sleep();
	while (test_bit(TASKLET_STATE_SCHED, &t->state))
		yield();
	tasklet_unlock_wait(t);
}

void tasklet_init_softirqs(void)
{
	open_softirq(TASKLET_SOFTIRQ, tasklet_action);
	open_softirq(HI_SOFTIRQ, tasklet_hi_action);
}

/*
 * CPU hotplug, on the CPU that ran cpu_down(), once the dead CPU has
 * parked (interrupts off there until it returns): its queued tasklets
 * join this CPU's lists and run here, as Linux's takeover_tasklets()
 * does. Only a CPU appends to its own lists, and the parked one appends
 * nothing, so its lists are ours to empty; what it queued is seen here
 * through the completion cpu_down() waited on. A tasklet keeps
 * TASKLET_STATE_SCHED throughout, so nobody queues it twice meanwhile.
 */
void tasklets_takeover(unsigned int dead)
{
	struct tasklet_list *src[2] = { per_cpu_ptr(&tasklet_vec, dead),
					per_cpu_ptr(&tasklet_hi_vec, dead) };
	unsigned int nr[2] = { TASKLET_SOFTIRQ, HI_SOFTIRQ };
	unsigned long flags = local_irq_save();
	struct tasklet_list *dst[2] = { this_cpu_ptr(&tasklet_vec), this_cpu_ptr(&tasklet_hi_vec) };

	for (int i = 0; i < 2; i++) {
		struct tasklet_struct *t = src[i]->head;

		src[i]->head = NULL;
		src[i]->tail = &src[i]->head;
		if (!t)
			continue;
		while (t) {
			struct tasklet_struct *next = t->next;

			list_append(dst[i], t);
			t = next;
		}
		raise_softirq_irqoff(nr[i]);
	}
	local_irq_restore(flags);
}
