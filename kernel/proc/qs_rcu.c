/*
 * qs_rcu(op, n): RCU work on demand from user space.
 *
 * An idle kernel starts no grace period: nothing calls call_rcu() or
 * synchronize_rcu(), so a student stopped in gdb at `qs-rcu-gp` would wait
 * forever. This call lets the shell (`rcu sync`, `rcu call N`, `rcu
 * barrier`, user/bin/sh.c) make an RCU update happen whenever the student
 * likes, through the public API only (include/rcupdate.h), the way any
 * RCU user would:
 *
 *   QS_RCU_SYNC      synchronize_rcu(): returns after a full grace period
 *   QS_RCU_CALL n    queues n call_rcu() callbacks, each freeing its own
 *                    record; returns at once with n (the grace period and
 *                    the callbacks happen afterwards, for gdb to watch)
 *   QS_RCU_BARRIER   rcu_barrier(): returns once every callback queued
 *                    before it, on any CPU, has run
 *
 * Any user may call it. The callbacks it has queued and that have not run
 * yet are counted, and a call that would take that count past
 * QS_RCU_MAX_CALLS gets -EAGAIN, so a loop of `rcu call` (or the fuzzer)
 * cannot pin all of memory behind a grace period. A record that cannot be allocated ends the loop: the call
 * returns how many it queued, or -ENOMEM for none.
 */
#include "proc.h"
#include <syscall.h>
#include <kmalloc.h>
#include <atomic.h>
#include <errno.h>

struct qs_rcu_record {
	struct rcu_head rcu;
};

static atomic_long_t qs_rcu_pending;		/* queued by QS_RCU_CALL, not yet run */

static void qs_rcu_free(void *arg)
{
	kfree(arg);
	atomic_long_dec(&qs_rcu_pending);
}

static long qs_rcu_call(unsigned long n)
{
	unsigned long i;

	if (n == 0 || n > QS_RCU_MAX_CALLS)
		return -EINVAL;
	/* Reserve first: two callers cannot both pass the limit. */
	if (atomic_long_add_return(n, &qs_rcu_pending) > QS_RCU_MAX_CALLS) {
		atomic_long_sub(n, &qs_rcu_pending);
		return -EAGAIN;
	}
	for (i = 0; i < n; i++) {
		struct qs_rcu_record *r = kmalloc(sizeof(*r));

		if (!r)
			break;
		call_rcu(&r->rcu, qs_rcu_free, r);
	}
	atomic_long_sub(n - i, &qs_rcu_pending);	/* the ones never queued */
	return i ? (long)i : -ENOMEM;
}

static long sys_qs_rcu(struct pt_regs *r)
{
	switch (SYSCALL_ARG0(r)) {
	case QS_RCU_SYNC:
		synchronize_rcu();
		return 0;
	case QS_RCU_CALL:
		return qs_rcu_call(SYSCALL_ARG1(r));
	case QS_RCU_BARRIER:
		rcu_barrier();
		return 0;
	default:
		return -EINVAL;
	}
}
SYSCALL_DEFINE(SYS_qs_rcu, sys_qs_rcu);
