/*
 * Deferred frees for the ID table, seed 004 section 4.4 (Figure 12).
 *
 * ipc_lock() can find an object (or an array of slots) just as it is
 * taken out of the table: it loaded the pointer before ipc_rmid() or
 * grow_ary() replaced it. So nothing the table ever pointed at is freed
 * until a grace period has passed: every reader that might hold such a
 * pointer is then known to have left its rcu_read_lock() section.
 *
 * ipc_rcu_alloc() puts a struct ipc_rcu_kmalloc (Figure 9) in front of
 * the memory; ipc_rcu_free() hands that header's rcu_head to call_rcu(),
 * whose callback kfree()s the whole block. (The paper's version also
 * chose between kfree() and vfree() by size; kmalloc() here serves every
 * size, so one path does.)
 *
 * In ipc=global mode no reader holds a pointer outside ids->ary, so the
 * memory is freed at once, as Linux 2.5.42 did.
 *
 * Until its grace period ends a block sits on ipc_rcu_pending (gdb's
 * qs-ipc lists them, with the function that freed each: freeary for a
 * semaphore set, grow_ary for an old array). The list lock is taken with
 * interrupts off because the callbacks run in softirq context.
 */
#include "util.h"
#include <kmalloc.h>
#include <spinlock.h>
#include <string.h>

static LIST_HEAD(ipc_rcu_pending);
static DEFINE_SPINLOCK(ipc_rcu_lock);
static long ipc_rcu_npending;

void *ipc_rcu_alloc(int size)
{
	struct ipc_rcu_kmalloc *hdr = kmalloc(sizeof(*hdr) + size);

	if (!hdr)
		return NULL;
	INIT_LIST_HEAD(&hdr->pending);
	hdr->size = size;
	hdr->freed_by = NULL;
	return hdr + 1;
}

/* After a grace period: no ipc_lock() can still hold the block. */
static void ipc_rcu_free_cb(void *arg)
{
	struct ipc_rcu_kmalloc *hdr = arg;
	unsigned long flags = spin_lock_irqsave(&ipc_rcu_lock);

	list_del(&hdr->pending);
	ipc_rcu_npending--;
	spin_unlock_irqrestore(&ipc_rcu_lock, flags);
	kfree(hdr);
}

/* Figure 12 (ipc_rcu_free() is a macro that adds the caller's name). */
void __ipc_rcu_free(void *ptr, int size, const char *caller)
{
	struct ipc_rcu_kmalloc *free;
	unsigned long flags;

	if (!ptr)
		return;
	free = (struct ipc_rcu_kmalloc *)ptr - 1;
	if (ipc_mode == IPC_MODE_GLOBAL) {
		kfree(free);
		return;
	}
	free->freed_by = caller;
	flags = spin_lock_irqsave(&ipc_rcu_lock);
	list_add_tail(&free->pending, &ipc_rcu_pending);
	ipc_rcu_npending++;
	spin_unlock_irqrestore(&ipc_rcu_lock, flags);
	call_rcu(&free->rcu, ipc_rcu_free_cb, free);
}

long ipc_rcu_pending_count(void)
{
	return READ_ONCE(ipc_rcu_npending);
}
