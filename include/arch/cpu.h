/* x86-64 control registers, MSRs, CPUID, interrupt flag. */
#ifndef _ARCH_CPU_H
#define _ARCH_CPU_H

#include <types.h>

#define MSR_EFER		0xc0000080
#define MSR_STAR		0xc0000081
#define MSR_LSTAR		0xc0000082
#define MSR_SFMASK		0xc0000084
#define MSR_FS_BASE		0xc0000100
#define MSR_GS_BASE		0xc0000101
#define MSR_KERNEL_GS_BASE	0xc0000102
#define MSR_APIC_BASE		0x1b
#define MSR_TSC_DEADLINE	0x6e0

#define EFER_NXE		(1UL << 11)
#define X86_EFLAGS_IF		(1UL << 9)
#define X86_CR4_PGE		(1UL << 7)
#define X86_CR4_SMEP		(1UL << 20)
#define X86_CR4_SMAP		(1UL << 21)

static inline u64 rdmsr(u32 msr)
{
	u32 lo, hi;
	__asm__ __volatile__("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((u64)hi << 32) | lo;
}

static inline void wrmsr(u32 msr, u64 v)
{
	__asm__ __volatile__("wrmsr" :: "c"(msr), "a"((u32)(v & 0xffffffffu)), "d"((u32)(v >> 32)) : "memory");
}

static inline void cpuid(u32 leaf, u32 sub, u32 *a, u32 *b, u32 *c, u32 *d)
{
	__asm__ __volatile__("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(sub));
}

static inline u64 rdtsc(void)
{
	u32 lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((u64)hi << 32) | lo;
}

/* rdtsc ordered after earlier loads (for timing short code sequences). */
static inline u64 rdtsc_ordered(void)
{
	__asm__ __volatile__("lfence" ::: "memory");
	return rdtsc();
}

#define DEFINE_CR(n)								\
static inline u64 read_cr##n(void)						\
{ u64 v; __asm__ __volatile__("mov %%cr" #n ", %0" : "=r"(v)); return v; }	\
static inline void write_cr##n(u64 v)						\
{ __asm__ __volatile__("mov %0, %%cr" #n :: "r"(v) : "memory"); }
DEFINE_CR(0)
DEFINE_CR(2)
DEFINE_CR(3)
DEFINE_CR(4)
#undef DEFINE_CR

static inline void invlpg(const void *va)
{
	__asm__ __volatile__("invlpg (%0)" :: "r"(va) : "memory");
}

static inline unsigned long read_rflags(void)
{
	unsigned long f;
	__asm__ __volatile__("pushfq; popq %0" : "=r"(f) :: "memory");
	return f;
}

static inline void local_irq_disable(void) { __asm__ __volatile__("cli" ::: "memory"); }
static inline void local_irq_enable(void) { __asm__ __volatile__("sti" ::: "memory"); }
static inline bool irqs_disabled(void) { return !(read_rflags() & X86_EFLAGS_IF); }

static inline unsigned long local_irq_save(void)
{
	unsigned long f = read_rflags();
	local_irq_disable();
	return f;
}

static inline void local_irq_restore(unsigned long f)
{
	if (f & X86_EFLAGS_IF)
		local_irq_enable();
}

/* sti; hlt: the interrupt shadow makes the pair atomic (no lost wake-up). */
static inline void safe_halt(void) { __asm__ __volatile__("sti; hlt" ::: "memory"); }
static inline void halt(void) { __asm__ __volatile__("hlt" ::: "memory"); }

static inline unsigned long read_rbp(void)
{
	unsigned long v;
	__asm__ __volatile__("mov %%rbp, %0" : "=r"(v));
	return v;
}

#endif
