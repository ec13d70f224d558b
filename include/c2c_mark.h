/*
 * Marks for the coherence plugin (tools/c2c/c2c.c, docs/figures.md
 * "Cache-line transfers"): with c2c=1 on the command line the kernel
 * tells a plugin that watches c2c_mark_area where each benchmark cell
 * begins and ends on each CPU, and what kmalloc hands out, so that the
 * plugin counts per cell and the report names heap lines by the code
 * that allocated them. QEMU's plugin interface version 1 sees the
 * address of a store, not its value, so a message is one store per
 * byte, at c2c_mark_area + byte, and one at + 256 to end it. Without
 * c2c=1 every call is one test of a flag; without the plugin the
 * stores land in an unread array.
 */
#ifndef _C2C_MARK_H
#define _C2C_MARK_H

#include <types.h>
#include <compiler.h>
#include <atomic.h>

extern unsigned long c2c_enabled;

void __c2c_mark(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The next cell's number: cells are numbered in the order they begin. */
unsigned int c2c_cell_id(void);

/* Inside a cell on this CPU (between its begin or resume and its pause or end). */
bool c2c_in_cell(void);

#define c2c_mark(...)							\
	do {								\
		if (unlikely(c2c_enabled))				\
			__c2c_mark(__VA_ARGS__);			\
	} while (0)

/* This CPU enters (leaves) cell id; label: what the cell measures. */
#define c2c_cell_begin(id, label)	c2c_mark("B %u %s", (id), (label))
#define c2c_cell_end(id)		c2c_mark("E %u", (id))
/* Leave the cell's counts for a while (a wait that is not the cell's work). */
#define c2c_cell_pause(id)		c2c_mark("P")
#define c2c_cell_resume(id)		c2c_mark("R")
/* Marks that would count as the cell's work (a kmalloc's, formatted by
 * vsnprintf: hundreds of instructions) are left out inside cells. */
#define c2c_mark_outside_cells(...)					\
	do {								\
		if (unlikely(c2c_enabled) && !c2c_in_cell())		\
			__c2c_mark(__VA_ARGS__);			\
	} while (0)

/*
 * Benchmark threads in step (c2c=1): each waits at the end of a round
 * until all have done theirs, outside the cell's counts. Under TCG a
 * vCPU's host thread may stall while another runs thousands of
 * operations over lines it touched last itself, and the transfers per
 * operation would measure the host's scheduler; in step every thread
 * does as many operations as the others in each round, on any host.
 */
struct c2c_step {
	atomic_t arrived, round;
	unsigned int threads;
} __cacheline_aligned;

/* Before the threads start: threads of them will wait at each round. */
static inline void c2c_step_init(struct c2c_step *s, unsigned int threads)
{
	atomic_set(&s->arrived, 0);
	s->threads = threads;
}

/* The end of this thread's round in cell id: wait for the others. */
void c2c_step_wait(struct c2c_step *s, unsigned int id);

#endif
