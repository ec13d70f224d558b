/*
 * TLB shootdown for the kernel half. Kernel mappings are global (CR4.PGE),
 * so a CR3 switch does not drop them: when a mapping goes away (a module's
 * pages, kernel/module/area.c) every CPU must invalidate it before the
 * page is reused, or a CPU could go on reading and executing freed memory
 * through a stale entry. The initiator flushes its own TLB and asks every
 * other CPU to flush its, by IPI, and waits for all of them.
 */
#include <mm.h>
#include <smp.h>
#include <arch/cpu.h>

struct flush_range {
	unsigned long start, end;
};

/* Past this many pages a full flush (a CR4.PGE toggle) is cheaper. */
#define FLUSH_ALL_PAGES	64

static void flush_local(void *arg)
{
	const struct flush_range *r = arg;

	if ((r->end - r->start) / PAGE_SIZE > FLUSH_ALL_PAGES) {
		u64 cr4 = read_cr4();

		write_cr4(cr4 & ~X86_CR4_PGE);	/* drops global entries too */
		write_cr4(cr4);
		return;
	}
	for (unsigned long a = r->start; a < r->end; a += PAGE_SIZE)
		invlpg((void *)a);
}

void flush_tlb_kernel_range(unsigned long start, unsigned long end)
{
	struct flush_range r = { start & PAGE_MASK, end };

	/* Waits for the other CPUs: call it with interrupts on (smp.h). */
	on_each_cpu(flush_local, &r, true);
}
