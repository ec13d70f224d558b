/*
 * Tests that end the run on purpose (KTEST_MANUAL: run only when named).
 * The host-side tests check that each one ends as a panic (exit status
 * 37) with the expected message and a symbolized backtrace, not as a
 * time-out.
 */
#include <ktest.h>
#include <panic.h>
#include <printk.h>

static __noinline void touch(volatile unsigned long *p)
{
	*p = 42;
}

KTEST_MANUAL(fault_page_fault)
{
	/* Below the direct map and outside the kernel image: never mapped. */
	touch((volatile unsigned long *)0xdead000);
	ktest_fail(t, __FILE__, __LINE__, "the write to an unmapped address did not fault");
}

/* A panic on this CPU stops every other CPU, each saying why. */
KTEST_MANUAL(panic_stops_other_cpus)
{
	panic("deliberate panic from a test");
}
