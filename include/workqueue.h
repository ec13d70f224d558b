/*
 * Work queues: run a function later in process context (a kernel thread),
 * where it may sleep.
 *
 * A workqueue has one worker thread per CPU; queue_work() puts the item on
 * the current CPU's worker, queue_work_on() on a chosen one. The shared
 * "events" queue (Linux 2.4's keventd) takes schedule_work() and its 2.4
 * name schedule_task(), which rcu-taskq uses (seed 000 Figure 25).
 * An item is queued at most once at a time (WORK_PENDING); flush_work()
 * waits until it is neither queued nor running.
 */
#ifndef _WORKQUEUE_H
#define _WORKQUEUE_H

#include <list.h>
#include <atomic.h>

struct workqueue_struct;

#define WORK_PENDING	0

struct work_struct {
	struct list_head entry;
	unsigned long flags;			/* WORK_PENDING */
	void (*func)(struct work_struct *w);
	struct workqueue_struct *wq;		/* last queued on */
	int cpu;				/* last queued on */
};

#define INIT_WORK(w, f) do {				\
		INIT_LIST_HEAD(&(w)->entry);		\
		(w)->flags = 0;				\
		(w)->func = (f);			\
		(w)->wq = NULL;				\
		(w)->cpu = -1;				\
	} while (0)

#define DECLARE_WORK(n, f) \
	struct work_struct n = { LIST_HEAD_INIT((n).entry), 0, (f), NULL, -1 }

struct workqueue_struct *create_workqueue(const char *name);
/* false if it was already pending. */
bool queue_work(struct workqueue_struct *wq, struct work_struct *w);
bool queue_work_on(unsigned int cpu, struct workqueue_struct *wq, struct work_struct *w);
/* Wait until w is neither pending nor running. true if it had to wait. */
bool flush_work(struct work_struct *w);
/* Wait until everything queued on wq before the call has run. */
void flush_workqueue(struct workqueue_struct *wq);

extern struct workqueue_struct *system_wq;	/* "events": keventd */
bool schedule_work(struct work_struct *w);
bool schedule_work_on(unsigned int cpu, struct work_struct *w);
#define schedule_task(w)	schedule_work(w)	/* Linux 2.4's name */
void flush_scheduled_work(void);

void workqueues_init(void);
/* Is the calling task a worker of wq (running one of its items)? */
bool current_is_worker(struct workqueue_struct *wq);

#endif
