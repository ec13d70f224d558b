/*
 * Per-CPU variables.
 *
 * DEFINE_PER_CPU() puts a variable in the .percpu section, which is only a
 * template: at boot each CPU gets its own copy (kernel/arch/x86/percpu.c),
 * and the CPU's GS base points at its copy. At offset 0 of every copy sits a
 * struct cpu_local, so the hottest per-CPU fields (the CPU number, the
 * current task, preempt_count) are one %gs-relative load away, even from
 * assembly. Any other per-CPU variable is reached by adding this CPU's
 * offset (cpu_local.offset) to the template address.
 *
 * A per-CPU pointer from this_cpu_ptr() is only stable while the task
 * cannot migrate: with preemption or interrupts disabled.
 */
#ifndef _PERCPU_H
#define _PERCPU_H

#include <compiler.h>

struct task;

struct cpu_local {
	struct cpu_local *self;		/* %gs:0  */
	unsigned long offset;		/* %gs:8  this copy - template */
	unsigned int cpu;		/* %gs:16 smp_processor_id() */
	unsigned int apic_id;		/* %gs:20 */
	struct task *current;		/* %gs:24 */
	int preempt_count;		/* %gs:32 see <preempt.h> */
	int need_resched;		/* %gs:36 */
	unsigned long kernel_stack;	/* %gs:40 top of the current task's stack */
	unsigned long user_rsp;		/* %gs:48 scratch for syscall entry */
	int in_idle;			/* %gs:56 the idle loop is running */
	int in_nmi;			/* %gs:60 */
	int rcu_read_depth;		/* %gs:64 rcu_read_lock() nesting (debug) */
#ifdef CONFIG_KASAN
	u64 rcu_read_since;		/* TSC at the outermost rcu_read_lock() */
#endif
};

#define CPU_LOCAL_CPU		16
#define CPU_LOCAL_CURRENT	24
#define CPU_LOCAL_PREEMPT	32
#define CPU_LOCAL_RCU_DEPTH	64

#define DEFINE_PER_CPU(type, name) \
	__section(".percpu") __typeof__(type) name
#define DECLARE_PER_CPU(type, name) \
	extern __typeof__(type) name

extern unsigned long __per_cpu_offset[];
extern char __percpu_start[], __percpu_end[];

static __always_inline unsigned long this_cpu_off(void)
{
	unsigned long off;
	__asm__ __volatile__("movq %%gs:8, %0" : "=r"(off));
	return off;
}

/*
 * The address of a CPU's copy is the template's address plus an offset.
 * The compiler must not know that the result is derived from the template
 * object (it would assume it stays inside it: wrong bounds warnings, and
 * licence to miscompile), so the arithmetic is hidden behind an empty asm.
 */
#define RELOC_HIDE(ptr, off)							\
	({ unsigned long __p;							\
	   __asm__ ("" : "=r"(__p) : "0"(ptr));					\
	   (__typeof__(ptr))(__p + (off)); })

#define per_cpu_ptr(ptr, cpu)	RELOC_HIDE(ptr, __per_cpu_offset[cpu])
#define per_cpu(var, cpu)	(*per_cpu_ptr(&(var), cpu))
#define this_cpu_ptr(ptr)	RELOC_HIDE(ptr, this_cpu_off())
/* The papers write this_cpu(rcu_qsctr); so do we. */
#define this_cpu(var)		(*this_cpu_ptr(&(var)))

static __always_inline struct cpu_local *cpu_local(void)
{
	struct cpu_local *c;
	__asm__ __volatile__("movq %%gs:0, %0" : "=r"(c));
	return c;
}

static __always_inline unsigned int smp_processor_id(void)
{
	unsigned int id;
	__asm__ __volatile__("movl %%gs:16, %0" : "=r"(id));
	return id;
}

extern struct cpu_local cpu_local_template;	/* the template's header */

void percpu_init_boot_cpu(void);
void percpu_setup_cpu(unsigned int cpu, unsigned int apic_id);
void percpu_load(unsigned int cpu);

#endif
