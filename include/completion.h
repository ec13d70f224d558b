/*
 * Completions: "this has happened" for one or for all waiters. complete()
 * lets exactly one wait_for_completion() through (done counts them);
 * complete_all() lets everyone through from then on.
 */
#ifndef _COMPLETION_H
#define _COMPLETION_H

#include <wait.h>

struct completion {
	unsigned int done;		/* UINT_MAX after complete_all() */
	struct wait_queue_head wait;
};

#define COMPLETION_INITIALIZER(name) \
	{ 0, WAIT_QUEUE_HEAD_INIT((name).wait) }
#define DECLARE_COMPLETION(name) \
	struct completion name = COMPLETION_INITIALIZER(name)

void init_completion(struct completion *c);
void reinit_completion(struct completion *c);
void complete(struct completion *c);
void complete_all(struct completion *c);
void wait_for_completion(struct completion *c);
/* Jiffies left (>= 1) if completed, 0 on time-out. */
long wait_for_completion_timeout(struct completion *c, long timeout);
/* 0, or -EINTR if the task was interrupted first. */
int wait_for_completion_interruptible(struct completion *c);
bool try_wait_for_completion(struct completion *c);
bool completion_done(struct completion *c);

#endif
