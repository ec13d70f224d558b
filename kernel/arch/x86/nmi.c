/*
 * NMIs. Two kernel uses, both needing a CPU to answer even with
 * interrupts disabled (a CPU spinning on a lock with interrupts off would
 * never take an ordinary IPI):
 *   - panic: the panicking CPU sends an NMI to every other CPU; each says
 *     which CPU panicked and why, and stops for good;
 *   - backtraces: nmi_trigger_backtrace() asks CPUs to print their
 *     registers and stack (RCU stall warnings use it).
 * Then every NMI runs the chain of registered handlers (include/nmi.h,
 * kernel/module/nmi_handler.c: profilers, the periodic NMI source's
 * users). Each CPU counts its NMI entries and exits in nmi_seq, odd while
 * it is inside one, so that unregister_nmi_handler() can check that no
 * NMI it must wait for is still running.
 */
#include <smp.h>
#include <printk.h>
#include <panic.h>
#include <preempt.h>
#include <arch/irq.h>
#include <arch/cpu.h>
#include <time.h>
#include <nmi.h>
#include <upcalls.h>
#include <tick.h>

extern char panic_reason[];
static cpumask_t backtrace_mask;
static unsigned long unknown_nmis;
static DEFINE_PER_CPU(unsigned long, nmi_backtraces);
static DEFINE_PER_CPU(unsigned long, nmi_seq_count);

unsigned long nmi_seq(unsigned int cpu)
{
	return READ_ONCE(per_cpu(nmi_seq_count, cpu));
}

unsigned long nmi_count(unsigned int cpu)
{
	return nmi_seq(cpu) / 2;
}

unsigned long nmi_backtraces_done(unsigned int cpu)
{
	return READ_ONCE(per_cpu(nmi_backtraces, cpu));
}

void nmi_handler(struct pt_regs *regs);

void nmi_handler(struct pt_regs *regs)
{
	unsigned int me = smp_processor_id();
	int pc = READ_ONCE(panic_cpu);
	unsigned long *seq = this_cpu_ptr(&nmi_seq_count);
	int handled;

	preempt_count_add(NMI_OFFSET);
	/* Odd from here on. A locked add is a full barrier: the increment is
	 * visible before the chain's loads (unregister_nmi_handler() reads
	 * nmi_seq after unlinking: one of the two sees the other). */
	__atomic_fetch_add(seq, 1, __ATOMIC_SEQ_CST);
	if (pc >= 0 && pc != (int)me) {
		printk("CPU %u stopping: panic on CPU %d: %s (was at %pS)\n",
		       me, pc, panic_reason, (void *)regs->rip);
		for (;;)
			halt();			/* NMIs stay blocked: no iret */
	}
	/* make replay STOP=: parked until gdb lets the run go. */
	if (replay_nmi(regs))
		goto out;
	/* One NMI may carry several requests (NMIs do not queue): run all. */
	handled = nmi_handle_chain(regs);
	/* A parked CPU interrupted between its test of the unpark flag and
	 * its hlt: step over the hlt, or it would sleep through the wake-up
	 * this NMI may be (kernel/sched/hotplug.c, park_halt()). */
	if (cpu_is_parked(me) && regs->rip == (unsigned long)cpu_park_hlt)
		regs->rip++;
	if (cpumask_test_and_clear(me, &backtrace_mask)) {
		printk("NMI backtrace for CPU %u:\n", me);
		show_regs(regs);
		show_backtrace_regs(regs);
		this_cpu(nmi_backtraces)++;
	} else if (!handled && cpu_is_parked(me)) {
		/* cpu_up()'s wake-up for a parked CPU (kernel/sched/hotplug.c). */
	} else if (!handled && !nmi_timer_note_unclaimed()) {
		unknown_nmis++;
		printk("NMI received for unknown reason on CPU %u at %pS\n", me, (void *)regs->rip);
	}
out:
	/* Even again, after every load the handlers made (full barrier). */
	__atomic_fetch_add(seq, 1, __ATOMIC_SEQ_CST);
	preempt_count_sub(NMI_OFFSET);
}

/* Backtraces of the CPUs in mask (this CPU included if set); waits up to 1 s. */
void nmi_trigger_backtrace(const cpumask_t *mask)
{
	unsigned int cpu, me = smp_processor_id();

	cpumask_copy(&backtrace_mask, mask);
	if (cpumask_test_and_clear(me, &backtrace_mask)) {
		printk("backtrace for CPU %u (the requesting CPU):\n", me);
		dump_stack();
	}
	for_each_cpu(cpu, mask)
		if (cpu != me)
			smp_send_nmi(cpu);
	for (int i = 0; i < 1000 && !cpumask_empty(&backtrace_mask); i++)
		mdelay(1);
}
