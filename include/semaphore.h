/*
 * Counting semaphores (Linux 2.4/2.6 style): down() takes one unit or
 * sleeps; up() gives one back, or hands it directly to the first sleeper
 * (FIFO), so a woken task never has to race for it and nothing is lost.
 */
#ifndef _SEMAPHORE_H
#define _SEMAPHORE_H

#include <list.h>
#include <spinlock.h>

struct semaphore {
	spinlock_t lock;
	unsigned int count;
	struct list_head wait_list;	/* struct semaphore_waiter, FIFO */
};

#define SEMAPHORE_INITIALIZER(name, n) \
	{ SPINLOCK_INIT(#name), (n), LIST_HEAD_INIT((name).wait_list) }
#define DEFINE_SEMAPHORE(name, n) \
	struct semaphore name = SEMAPHORE_INITIALIZER(name, n)

void sema_init(struct semaphore *s, unsigned int n);
void down(struct semaphore *s);
int down_interruptible(struct semaphore *s);	/* 0 or -EINTR */
int down_trylock(struct semaphore *s);		/* 0 if acquired (Linux's sense) */
int down_timeout(struct semaphore *s, long jiffies);	/* 0 or -ETIME */
void up(struct semaphore *s);

#endif
