/*
 * Benchmark cells from user space for the coherence plugin (tools/c2c/,
 * docs/figures.md "Cache-line transfers"). The plugin's marks are stores
 * the kernel makes to c2c_mark_area (include/c2c_mark.h), which user
 * space cannot reach, so a user benchmark asks the kernel to make them:
 *
 *   qs_c2c(QS_C2C_CELL, 0, 0)          -> a new cell's number
 *   qs_c2c(QS_C2C_STEPS, threads, 0)   the processes that will step together
 *   qs_c2c(QS_C2C_BEGIN, cell, label)  this CPU enters the cell (label: a
 *                                      string, at most QS_C2C_LABEL_MAX bytes)
 *   qs_c2c(QS_C2C_STEP, cell, 0)       the end of this process's round: wait,
 *                                      outside the cell's counts, until all
 *                                      `threads` have ended theirs
 *   qs_c2c(QS_C2C_END, cell, 0)        this CPU leaves the cell
 *
 * A cell is counted per vCPU, so the caller stays on one CPU (pinned)
 * from BEGIN to END. Every operation returns -ENODEV unless the kernel
 * was booted with c2c=1: without it the benchmark runs unmarked.
 */
#ifndef _UAPI_C2C_H
#define _UAPI_C2C_H

#define SYS_qs_c2c		36	/* (QS_C2C_*, a, b) */

#define QS_C2C_CELL		1
#define QS_C2C_STEPS		2
#define QS_C2C_BEGIN		3
#define QS_C2C_STEP		4
#define QS_C2C_END		5

#define QS_C2C_LABEL_MAX	48

#endif
