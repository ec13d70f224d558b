/*
 * KCOV's runtime (docs/kcov.md): which kernel code a task's system calls
 * ran, for a coverage-guided fuzzer.
 *
 * GCC's -fsanitize-coverage=trace-pc puts a call to
 * __sanitizer_cov_trace_pc() at the start of every basic block of every
 * instrumented file; its return address names the block. A task that
 * enabled KCOV (qs_kcov(), include/uapi/kcov.h) has a buffer of its own,
 * and the hook appends the PC to the buffer of the task running, so that
 * each program's coverage is its own and another CPU's work never mixes
 * in. Only task context counts: an interrupt, a softirq or an NMI runs
 * for no task in particular (the tick, a packet that arrived), and its
 * blocks would be noise in whatever task it happened to interrupt. As
 * Linux's kernel/kcov.c, the test is on preempt_count: a hard IRQ, an NMI
 * or a softirq being served (SOFTIRQ_OFFSET, not the whole softirq mask:
 * a task that only disabled bottom halves is still itself).
 *
 * kcov.all=1 adds a second, global record for `make coverage`: one bit
 * per 4 bytes of kernel text, set by every context, printed at power-off
 * (kcov_all_dump()) for tools/kcov_report.py.
 *
 * This file is built without instrumentation (coverage, KASAN, KCSAN):
 * the hook is what the instrumentation calls, and must call nothing that
 * is instrumented, or it would recurse.
 */
#include <kcov.h>
#include <types.h>
#include <compiler.h>
#include <preempt.h>
#include <sched.h>
#include <syscall.h>
#include <errno.h>
#include <kmalloc.h>
#include <uaccess.h>
#include <printk.h>
#include <cmdline.h>
#include <uapi/kcov.h>

/*
 * kcov.all's bitmap: a return address follows a 5-byte call, so two of
 * them are at least 5 bytes apart and one bit per 4 bytes tells every
 * block apart. The bit stands for the call instruction itself (the
 * address rounded down lies inside it), which is the block's line.
 * Static, so that it exists before the allocator; 4 MiB of text is
 * about twice an instrumented kernel's.
 */
#define KCOV_ALL_TEXT_MAX	(4ul << 20)
#define KCOV_ALL_GRANULE	4
#define KCOV_ALL_WORDS		(KCOV_ALL_TEXT_MAX / KCOV_ALL_GRANULE / 64)

extern char _text_start[], _text_end[];

static unsigned long kcov_all = 0;
CMDLINE_ULONG("kcov.all", kcov_all, 0, 1,
	      "kcov.all=1: mark every PC any context reaches and print the set at power-off (make coverage)");
static unsigned long kcov_all_map[KCOV_ALL_WORDS];

static __always_inline void kcov_all_mark(unsigned long pc)
{
	unsigned long off = pc - (unsigned long)_text_start;
	unsigned long bit = off / KCOV_ALL_GRANULE, mask = 1ul << (bit % 64);
	unsigned long *word = &kcov_all_map[bit / 64];

	if (off >= KCOV_ALL_TEXT_MAX)
		return;
	/* Read first: a block already marked (nearly all of them, soon)
	 * costs no locked operation and keeps its cache line shared. A
	 * locked or is safe from any context, NMI included. */
	if (!(READ_ONCE(*word) & mask))
		__atomic_fetch_or(word, mask, __ATOMIC_RELAXED);
}

void __sanitizer_cov_trace_pc(void);
void __sanitizer_cov_trace_pc(void)
{
	unsigned long pc = (unsigned long)__builtin_return_address(0);
	struct task *t;
	unsigned long pos;

	if (unlikely(READ_ONCE(kcov_all)))
		kcov_all_mark(pc);
	t = current;
	if (likely(!t || !READ_ONCE(t->kcov_mode)))
		return;
	if (preempt_count() & (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_OFFSET))
		return;
	/* kcov_mode was set after the area (kcov_enable()): read it after. */
	barrier();
	pos = t->kcov_pos;
	if (unlikely(pos >= t->kcov_size)) {
		t->kcov_overflow = true;
		return;
	}
	/*
	 * The slot is taken before it is written: an interrupt that ends in
	 * a preemption of this very task (irq_exit() reschedules, in task
	 * context again) may run the hook between the two, and then takes
	 * the next slot instead of overwriting this one.
	 */
	t->kcov_pos = pos + 1;
	barrier();
	t->kcov_area[pos] = pc;
}

static long kcov_enable(struct task *t, unsigned long capacity)
{
	u64 *area;

	if (capacity < 1 || capacity > QS_KCOV_MAX)
		return -EINVAL;
	if (t->kcov_area)
		return -EBUSY;
	area = kmalloc(capacity * sizeof(*area));
	if (!area)
		return -ENOMEM;
	t->kcov_area = area;
	t->kcov_size = capacity;
	t->kcov_pos = 0;
	t->kcov_overflow = false;
	/* The hook reads the area only once it sees the mode (only this task
	 * writes either, and interrupts do not record: a compiler barrier). */
	barrier();
	WRITE_ONCE(t->kcov_mode, 1);
	return 0;
}

/*
 * Recording stops while the buffer is copied out: copy_to_user() is
 * instrumented, and would append to the buffer it is copying from.
 */
static long kcov_read(struct task *t, u64 __user *buf, unsigned long max)
{
	unsigned long n;
	long ret;

	if (!t->kcov_area)
		return -EINVAL;
	WRITE_ONCE(t->kcov_mode, 0);
	barrier();
	n = t->kcov_pos < max ? t->kcov_pos : max;
	if (n && copy_to_user(buf, t->kcov_area, n * sizeof(u64))) {
		ret = -EFAULT;		/* the PCs stay for a read that works */
	} else {
		/* PCs that did not fit in max are lost too: say so. */
		ret = n | (t->kcov_overflow || t->kcov_pos > n ? QS_KCOV_OVERFLOW : 0);
		t->kcov_pos = 0;
		t->kcov_overflow = false;
	}
	barrier();
	WRITE_ONCE(t->kcov_mode, 1);
	return ret;
}

static long kcov_disable(struct task *t)
{
	u64 *area = t->kcov_area;

	if (!area)
		return -EINVAL;
	WRITE_ONCE(t->kcov_mode, 0);
	barrier();
	t->kcov_area = NULL;
	t->kcov_size = t->kcov_pos = 0;
	kfree(area);
	return 0;
}

void kcov_task_exit(struct task *t)
{
	if (t->kcov_area)
		kcov_disable(t);
}

static long sys_qs_kcov(struct pt_regs *r)
{
	unsigned long a = SYSCALL_ARG1(r), b = SYSCALL_ARG2(r);

	switch (SYSCALL_ARG0(r)) {
	case QS_KCOV_ENABLE:
		return b ? -EINVAL : kcov_enable(current, a);
	case QS_KCOV_READ:
		return kcov_read(current, (u64 __user *)a, b);
	case QS_KCOV_DISABLE:
		return a || b ? -EINVAL : kcov_disable(current);
	default:
		return -EINVAL;
	}
}
SYSCALL_DEFINE(SYS_qs_kcov, sys_qs_kcov);

/*
 * kcov.all's record, at power-off: a header, then each word of the
 * bitmap that has a bit set, as `kcov: map <word> <bits>` in hex (bit b
 * of word w is the PC base + (64 * w + b) * 4), then a last line;
 * tools/qs/kcov.py reads them back. A few thousand lines, where one per
 * PC would be tens of thousands.
 */
void kcov_all_dump(void)
{
	unsigned long text = _text_end - _text_start, words = 0, pcs = 0;

	/* Once, by whichever CPU gets here first (a panic and a power-off may
	 * race); marking stops with it, so the words do not change under it. */
	if (!__atomic_exchange_n(&kcov_all, 0, __ATOMIC_RELAXED))
		return;
	if (text > KCOV_ALL_TEXT_MAX)
		printk("kcov: text is %lu bytes, the map covers only the first %lu\n",
		       text, KCOV_ALL_TEXT_MAX);
	printk("kcov: all: base %lx granule %d\n", (unsigned long)_text_start, KCOV_ALL_GRANULE);
	for (unsigned long w = 0; w < KCOV_ALL_WORDS; w++) {
		unsigned long v = READ_ONCE(kcov_all_map[w]);

		if (!v)
			continue;
		printk("kcov: map %lx %lx\n", w, v);
		words++;
		for (; v; v &= v - 1)	/* no libgcc: no __builtin_popcount() */
			pcs++;
	}
	printk("kcov: all: end, %lu words, %lu PCs\n", words, pcs);
}
