/*
 * Work queues (include/workqueue.h): per-CPU worker threads.
 *
 * Each worker has a list of items under a spinlock and a wait queue it
 * sleeps on. The worker records which item it is running (current_work),
 * and a sequence number counts items finished, so flush_work() and
 * flush_workqueue() can wait for "this item done" and "everything queued
 * before now done" without a per-item completion.
 */
#include <workqueue.h>
#include <sched.h>
#include <spinlock.h>
#include <kmalloc.h>
#include <smp.h>
#include <panic.h>
#include <string.h>
#include <printk.h>

struct worker {
	spinlock_t lock;
	struct list_head items;
	struct wait_queue_head more_work;	/* the worker sleeps here */
	struct wait_queue_head work_done;	/* flushers sleep here */
	struct work_struct *current_work;
	unsigned long queued_seq, done_seq;
	struct task *task;
	struct workqueue_struct *wq;
	unsigned int cpu;
};

struct workqueue_struct {
	char name[16];
	struct worker workers[CONFIG_NR_CPUS];
};

struct workqueue_struct *system_wq;

static int worker_fn(void *arg)
{
	struct worker *wk = arg;

	for (;;) {
		unsigned long flags;
		struct work_struct *w;

		wait_event(wk->more_work, !list_empty(&wk->items));
		flags = spin_lock_irqsave(&wk->lock);
		w = container_of(wk->items.next, struct work_struct, entry);
		list_del_init(&w->entry);
		wk->current_work = w;
		/* Cleared before running: the function may queue itself again. */
		clear_bit(WORK_PENDING, &w->flags);
		spin_unlock_irqrestore(&wk->lock, flags);

		w->func(w);

		flags = spin_lock_irqsave(&wk->lock);
		wk->current_work = NULL;
		wk->done_seq++;
		spin_unlock_irqrestore(&wk->lock, flags);
		wake_up_all(&wk->work_done);
		cond_resched();
	}
	return 0;
}

struct workqueue_struct *create_workqueue(const char *name)
{
	struct workqueue_struct *wq = kzalloc(sizeof(*wq));
	unsigned int cpu;

	if (!wq)
		return NULL;
	strlcpy(wq->name, name, sizeof(wq->name));
	for_each_online_cpu(cpu) {
		struct worker *wk = &wq->workers[cpu];

		spin_lock_init(&wk->lock, "worker");
		INIT_LIST_HEAD(&wk->items);
		init_waitqueue_head(&wk->more_work);
		init_waitqueue_head(&wk->work_done);
		wk->wq = wq;
		wk->cpu = cpu;
		wk->task = kthread_create_on_cpu(worker_fn, wk, cpu, "%s/%u", name, cpu);
		BUG_ON(!wk->task);
		wake_up_process(wk->task);
	}
	return wq;
}

bool queue_work_on(unsigned int cpu, struct workqueue_struct *wq, struct work_struct *w)
{
	struct worker *wk;
	unsigned long flags;

	if (cpu >= nr_cpu_ids || !cpu_online(cpu) || test_and_set_bit(WORK_PENDING, &w->flags))
		return false;
	wk = &wq->workers[cpu];
	flags = spin_lock_irqsave(&wk->lock);
	w->wq = wq;
	w->cpu = cpu;
	list_add_tail(&w->entry, &wk->items);
	wk->queued_seq++;
	spin_unlock_irqrestore(&wk->lock, flags);
	wake_up(&wk->more_work);
	return true;
}

bool queue_work(struct workqueue_struct *wq, struct work_struct *w)
{
	unsigned int cpu;
	bool ret;

	preempt_disable();
	cpu = smp_processor_id();
	ret = queue_work_on(cpu, wq, w);
	preempt_enable();
	return ret;
}

static bool work_busy_on(struct worker *wk, struct work_struct *w)
{
	unsigned long flags = spin_lock_irqsave(&wk->lock);
	bool busy = wk->current_work == w || !list_empty(&w->entry);

	spin_unlock_irqrestore(&wk->lock, flags);
	return busy;
}

bool flush_work(struct work_struct *w)
{
	struct workqueue_struct *wq = READ_ONCE(w->wq);
	int cpu = READ_ONCE(w->cpu);
	struct worker *wk;

	might_sleep();
	if (!wq || cpu < 0)
		return false;
	wk = &wq->workers[cpu];
	if (!work_busy_on(wk, w))
		return false;
	wait_event(wk->work_done, !work_busy_on(wk, w));
	return true;
}

void flush_workqueue(struct workqueue_struct *wq)
{
	unsigned int cpu;

	might_sleep();
	for_each_online_cpu(cpu) {
		struct worker *wk = &wq->workers[cpu];
		unsigned long flags = spin_lock_irqsave(&wk->lock);
		unsigned long target = wk->queued_seq;

		spin_unlock_irqrestore(&wk->lock, flags);
		if (current == wk->task)
			continue;		/* would wait for itself */
		wait_event(wk->work_done, (long)(READ_ONCE(wk->done_seq) - target) >= 0);
	}
}

bool current_is_worker(struct workqueue_struct *wq)
{
	unsigned int cpu;

	for_each_online_cpu(cpu)
		if (wq->workers[cpu].task == current)
			return true;
	return false;
}

bool schedule_work(struct work_struct *w)
{
	return queue_work(system_wq, w);
}

bool schedule_work_on(unsigned int cpu, struct work_struct *w)
{
	return queue_work_on(cpu, system_wq, w);
}

void flush_scheduled_work(void)
{
	flush_workqueue(system_wq);
}

void workqueues_init(void)
{
	system_wq = create_workqueue("events");
	BUG_ON(!system_wq);
}
