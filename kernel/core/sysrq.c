/*
 * The console request key: Ctrl-T (like BSD's SIGINFO key) on the serial
 * console prints the kernel's statistics: interrupts and memory, which
 * the core keeps, then what each subsystem above it registered
 * (include/sysrq.h: the scheduler its run queues, tasks, softirqs and
 * timers; RCU its grace periods and callbacks). Useful while a test or a
 * lab runs, before there is a shell.
 *
 * The key arrives in the serial receive interrupt; the printing is done in
 * process context, because some of it takes locks that an interrupt must
 * not wait for. The core has no threads of its own: it marks the key
 * pending and asks the scheduler layer, through sysrq_schedule()
 * (include/upcalls.h), to call sysrq_run() from a worker.
 *
 * Ctrl-Y dumps the trace buffers (include/trace.h) the same way, without
 * stopping them: the records of the moment, for tools/timeline.py.
 */
#include <sysrq.h>
#include <printk.h>
#include <upcalls.h>
#include <kmalloc.h>
#include <mm.h>
#include <trace.h>
#include <arch/irq.h>

#define SYSRQ_KEY	0x14		/* Ctrl-T */
#define TRACE_KEY	0x19		/* Ctrl-Y */

/* Keys pressed and not yet served: bits of the two below. */
#define PENDING_STATS	1UL
#define PENDING_TRACE	2UL
static unsigned long sysrq_pending;

unsigned long sysrq_dumps;		/* statistics dumps completed (tests) */

/* Registered at boot, on the boot CPU, before the work queues run. */
static struct sysrq_report *sysrq_reports, **sysrq_tail = &sysrq_reports;

void sysrq_register_report(struct sysrq_report *r)
{
	r->next = NULL;
	*sysrq_tail = r;
	sysrq_tail = &r->next;
}

static void sysrq_show_stats(void)
{
	printk("---- statistics (Ctrl-T) ----\n");
	show_interrupts();
	kmalloc_show_stats();
	pmm_show();
	for (struct sysrq_report *r = sysrq_reports; r; r = r->next)
		r->show();
	printk("---- end of statistics ----\n");
	WRITE_ONCE(sysrq_dumps, sysrq_dumps + 1);
}

/*
 * Process context. The exchange takes every key pressed so far; a key
 * pressed after it is served by the next call, which sysrq_schedule()
 * queues. Presses that come while a call is queued share it: one dump.
 */
void sysrq_run(void)
{
	unsigned long keys = __atomic_exchange_n(&sysrq_pending, 0, __ATOMIC_ACQ_REL);

	if (keys & PENDING_TRACE)
		trace_dump();
	if (keys & PENDING_STATS)
		sysrq_show_stats();
}

static void sysrq_request(unsigned long key)
{
	__atomic_fetch_or(&sysrq_pending, key, __ATOMIC_RELEASE);
	if (!sysrq_schedule())		/* no work queues yet: forget it */
		__atomic_fetch_and(&sysrq_pending, ~key, __ATOMIC_RELAXED);
}

bool console_sysrq(char c)
{
	if (c == TRACE_KEY) {
		sysrq_request(PENDING_TRACE);
		return true;
	}
	if (c != SYSRQ_KEY)
		return false;
	sysrq_request(PENDING_STATS);
	return true;
}
