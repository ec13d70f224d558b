/*
 * CPU exceptions.
 *
 * A kernel-mode exception that no fix-up handles is a kernel bug: we print
 * what happened (the exception, the faulting address for a page fault, all
 * registers, a symbolized backtrace) and panic. User-mode exceptions go to
 * user_exception() (include/upcalls.h: the process layer kills the process).
 * The NMI is the stop signal of panic and the backtrace request of stall
 * warnings (kernel/arch/x86/nmi.c).
 */
#include <arch/irq.h>
#include <arch/cpu.h>
#include <arch/gdt.h>
#include <percpu.h>
#include <preempt.h>
#include <printk.h>
#include <panic.h>
#include <ksyms.h>
#include <string.h>
#include <upcalls.h>

static const char *const exception_names[32] = {
	"divide error", "debug", "NMI", "breakpoint", "overflow",
	"bound range exceeded", "invalid opcode", "device not available",
	"double fault", "coprocessor segment overrun", "invalid TSS",
	"segment not present", "stack-segment fault", "general protection fault",
	"page fault", "reserved", "x87 floating-point error", "alignment check",
	"machine check", "SIMD floating-point error", "virtualization exception",
	"control protection exception", "reserved", "reserved", "reserved",
	"reserved", "reserved", "reserved", "hypervisor injection",
	"VMM communication", "security exception", "reserved",
};

void nmi_handler(struct pt_regs *regs);
void exception_dispatch(struct pt_regs *regs);

void show_regs(const struct pt_regs *r)
{
	printk("RIP: %04lx:%pS\n", r->cs, (void *)r->rip);
	printk("RSP: %04lx:%016lx RFLAGS: %08lx\n", r->ss, r->rsp, r->rflags);
	printk("RAX: %016lx RBX: %016lx RCX: %016lx\n", r->rax, r->rbx, r->rcx);
	printk("RDX: %016lx RSI: %016lx RDI: %016lx\n", r->rdx, r->rsi, r->rdi);
	printk("RBP: %016lx R08: %016lx R09: %016lx\n", r->rbp, r->r8, r->r9);
	printk("R10: %016lx R11: %016lx R12: %016lx\n", r->r10, r->r11, r->r12);
	printk("R13: %016lx R14: %016lx R15: %016lx\n", r->r13, r->r14, r->r15);
	printk("CR0: %016lx CR2: %016lx CR3: %016lx CR4: %016lx\n",
	       read_cr0(), read_cr2(), read_cr3(), read_cr4());
	printk("preempt_count: %08x\n", preempt_count());
}

static bool kernel_stack_addr(unsigned long a)
{
	return a >= 0xffff800000000000UL && !(a & 7);
}

/*
 * Walk the frame-pointer chain (the kernel is built with
 * -fno-omit-frame-pointer): each frame holds [saved rbp][return address].
 */
static void show_backtrace_chain(unsigned long rbp)
{
	for (int depth = 0; depth < 32 && rbp && kernel_stack_addr(rbp); depth++) {
		unsigned long *frame = (unsigned long *)rbp;
		unsigned long ret = frame[1];

		if (!ret || !ksym_is_text(ret))
			break;
		/* Return addresses point after the call: show the call site. */
		printk("  [<%016lx>] %pS\n", ret, (void *)(ret - 1));
		if (frame[0] <= rbp && !on_ist_stack(rbp))
			break;			/* stacks grow down: must go up */
		rbp = frame[0];
	}
}

void show_backtrace(unsigned long rip, unsigned long rbp)
{
	printk("Call Trace:\n");
	if (rip)
		printk("  [<%016lx>] %pS\n", rip, (void *)rip);
	show_backtrace_chain(rbp);
}

/*
 * A fault at a function's first instruction (before "push rbp") or its
 * second (before "mov rsp, rbp") has not linked a frame yet: its caller's
 * return address is on top of the stack, and the rbp chain would skip the
 * caller. Print that address first.
 */
void show_backtrace_regs(const struct pt_regs *regs)
{
	struct ksym_info fn;

	if (!user_mode(regs) && ksym_resolve(regs->rip, &fn) && fn.offset <= 1) {
		unsigned long ret = ((unsigned long *)regs->rsp)[fn.offset];
		if (ksym_is_text(ret)) {
			printk("Call Trace:\n");
			printk("  [<%016lx>] %pS\n", regs->rip, (void *)regs->rip);
			printk("  [<%016lx>] %pS (no frame yet)\n", ret, (void *)(ret - 1));
			show_backtrace_chain(regs->rbp);
			return;
		}
	}
	show_backtrace(regs->rip, regs->rbp);
}

void dump_stack(void)
{
	show_backtrace(0, read_rbp());
}

bool fixup_exception(struct pt_regs *regs)
{
	extern const struct exception_table_entry __ex_table_start[], __ex_table_end[];

	for (const struct exception_table_entry *e = __ex_table_start; e < __ex_table_end; e++) {
		if (e->insn == regs->rip) {
			regs->rip = e->fixup;
			return true;
		}
	}
	return false;
}

void exception_dispatch(struct pt_regs *regs)
{
	unsigned int v = regs->vector;
	const char *name = exception_names[v];

	if (v == 2) {
		nmi_handler(regs);
		return;
	}
	if (user_mode(regs)) {
		user_exception(regs, name);
		return;
	}
	if ((v == 14 || v == 13) && fixup_exception(regs))
		return;
	if (v == 14) {
		unsigned long addr = read_cr2();
		u64 e = regs->error_code;
		panic_regs(regs, "page fault at %016lx: %s %s, %s%s", addr,
			   e & 1 ? "protection violation on" : "no page for",
			   e & 16 ? "instruction fetch" : e & 2 ? "write" : "read",
			   e & 4 ? "user" : "kernel", e & 8 ? ", reserved bit set" : "");
	}
	if (v == 8)
		panic_regs(regs, "double fault (kernel stack overflow?)");
	panic_regs(regs, "%s (vector %u, error code %#lx)", name, v, regs->error_code);
}
