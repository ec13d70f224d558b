/*
 * might_sleep(): warns in each atomic context, and through every blocking
 * primitive (called where it would not actually block, so nothing really
 * sleeps in atomic context here); stays quiet where sleeping is allowed.
 * The warnings are counted by might_sleep_warnings().
 */
#include <ktest.h>
#include <sched.h>
#include <semaphore.h>
#include <mutex.h>
#include <completion.h>
#include <spinlock.h>
#include <smp.h>
#include <arch/irq.h>
#include <arch/apic.h>

static volatile int irq_probe_ran;

static void irq_probe(struct pt_regs *regs, void *arg)
{
	might_sleep();
	irq_probe_ran = 1;
}

#define EXPECT_WARNS(t, what, code)						\
	do {									\
		unsigned long __w0 = might_sleep_warnings();			\
		code;								\
		KT_EXPECT(t, might_sleep_warnings() == __w0 + 1,		\
			  "%s: %lu warnings, expected 1", what,		\
			  might_sleep_warnings() - __w0);			\
	} while (0)

#define EXPECT_QUIET(t, what, code)						\
	do {									\
		unsigned long __w0 = might_sleep_warnings();			\
		code;								\
		KT_EXPECT(t, might_sleep_warnings() == __w0,			\
			  "%s: %lu warnings in an allowed context", what,	\
			  might_sleep_warnings() - __w0);			\
	} while (0)

KTEST(sched_might_sleep_contexts)
{
	static DEFINE_SPINLOCK(lock);
	static struct semaphore sem;
	static DEFINE_MUTEX(mtx);
	static struct completion done;
	static DECLARE_WAIT_QUEUE_HEAD(wq);
	unsigned long flags;

	sema_init(&sem, 1);
	init_completion(&done);

	/* Forbidden contexts. */
	EXPECT_WARNS(t, "spinlock held", { spin_lock(&lock); might_sleep(); spin_unlock(&lock); });
	EXPECT_WARNS(t, "preemption disabled", { preempt_disable(); might_sleep(); preempt_enable(); });
	EXPECT_WARNS(t, "interrupts disabled", { flags = local_irq_save(); might_sleep(); local_irq_restore(flags); });
	EXPECT_WARNS(t, "bottom halves disabled", {
		preempt_count_add(SOFTIRQ_DISABLE_OFFSET); might_sleep();
		preempt_count_sub(SOFTIRQ_DISABLE_OFFSET); });
	EXPECT_WARNS(t, "hard interrupt", {
		irq_probe_ran = 0;
		irq_set_handler(VEC_TEST, irq_probe, NULL, "test");
		preempt_disable();
		lapic_send_ipi(cpu_apic_id[smp_processor_id()], VEC_TEST);
		preempt_enable();
		for (int i = 0; i < 1000000 && !irq_probe_ran; i++)
			cpu_relax();
		irq_set_handler(VEC_TEST, NULL, NULL, "test");
	});
	KT_EXPECT(t, irq_probe_ran, "the self-IPI never arrived");

	/* Every blocking primitive checks, even when it would not block. */
	complete_all(&done);
	EXPECT_WARNS(t, "down()", { spin_lock(&lock); down(&sem); spin_unlock(&lock); up(&sem); });
	EXPECT_WARNS(t, "mutex_lock()", { spin_lock(&lock); mutex_lock(&mtx); spin_unlock(&lock); mutex_unlock(&mtx); });
	EXPECT_WARNS(t, "wait_for_completion()", { preempt_disable(); wait_for_completion(&done); preempt_enable(); });
	EXPECT_WARNS(t, "wait_event()", { preempt_disable(); wait_event(wq, true); preempt_enable(); });

	/* Allowed: plain thread context, and the same calls after the locks. */
	EXPECT_QUIET(t, "thread context", might_sleep());
	EXPECT_QUIET(t, "after spin_unlock", { spin_lock(&lock); spin_unlock(&lock); might_sleep(); });
	EXPECT_QUIET(t, "blocking primitives", {
		down(&sem); up(&sem);
		mutex_lock(&mtx); mutex_unlock(&mtx);
		wait_for_completion(&done);
		wait_event(wq, true);
		msleep(1);
		cond_resched();
		yield();
	});
	kt_info("%lu warnings so far (the first few printed with a backtrace)", might_sleep_warnings());
}
