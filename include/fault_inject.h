/*
 * The one fault-injection seam. A race a test must hit every time, not
 * by luck, needs its window held open; fault_inject(point, arg) marks the
 * one place in a production path where a test may do so:
 *
 *   if (fault_inject(dcache_lookup_match, d))
 *           break;          the test saw d freed: give up this walk
 *
 * A point does nothing until it is armed, from the command line
 * (fault=<point>:<us>[,<point>:<us>...]: a busy-wait of that many
 * microseconds each time it is reached) or by a kernel test
 * (fault_set_handler(): its own code, whose nonzero return the caller
 * acts on, as above). Without CONFIG_FAULT_INJECT the macro is the
 * constant 0 and the compiler drops the branch: the production path is
 * the plain code. The points are listed in include/fault_points.h.
 *
 * Armed or not, a point is one load of a word nothing else writes, so it
 * costs the path a read-shared cache line and a predicted branch.
 */
#ifndef _FAULT_INJECT_H
#define _FAULT_INJECT_H

#include <compiler.h>
#include <types.h>
#include <fault_points.h>

enum fault_point {
#define FAULT_ENUM(name, what)	FAULT_##name,
	FAULT_POINTS(FAULT_ENUM)
#undef FAULT_ENUM
	NR_FAULT_POINTS
};

/* A test's handler: runs where the point is, in that context (it may be
 * under a spinlock, with interrupts off or inside rcu_read_lock()). */
typedef int (*fault_handler_t)(void *arg);

#ifdef CONFIG_FAULT_INJECT
_Static_assert(NR_FAULT_POINTS <= 64, "fault_armed is one 64-bit word");
extern unsigned long fault_armed;	/* bit n: point n has a delay or a handler */
int fault_fire(enum fault_point p, void *arg);
#define fault_inject(name, arg) ({						\
	int __fault_ret = 0;							\
	if (unlikely(READ_ONCE(fault_armed) & (1UL << FAULT_##name)))		\
		__fault_ret = fault_fire(FAULT_##name, (void *)(arg));		\
	__fault_ret;								\
})
#else
/* The name is still checked against the list; arg is not evaluated. */
#define fault_inject(name, arg)	({ (void)FAULT_##name; 0; })
#endif

/* Arm a point with a handler (NULL disarms it; a delay set from the
 * command line stays). Returns -ENOSYS without CONFIG_FAULT_INJECT. */
int fault_set_handler(enum fault_point p, fault_handler_t fn);
/* Arm a point with a busy-wait of us microseconds (0 removes it). */
int fault_set_delay(enum fault_point p, unsigned long us);
/* How often an armed point has been reached since boot. */
unsigned long fault_hits(enum fault_point p);
const char *fault_point_name(enum fault_point p);

#endif
