/*
 * KCOV from user space (kernel/kcov/, docs/kcov.md): the program counters
 * the kernel executed on behalf of the calling task, in order, for a
 * coverage-guided fuzzer. One system call, three operations:
 *
 *   qs_kcov(QS_KCOV_ENABLE, capacity, 0)
 *	a buffer of capacity (1..QS_KCOV_MAX) PCs for the calling task only,
 *	recording from now on; -EINVAL, -EBUSY (already on), -ENOMEM;
 *	-ENOSYS in a kernel built without CONFIG_KCOV.
 *   qs_kcov(QS_KCOV_READ, (unsigned long)buf, max)
 *	copies up to max recorded PCs (uint64_t kernel addresses, in the
 *	order executed; interrupts, softirqs and NMIs left out) to buf,
 *	returns how many and empties the buffer. QS_KCOV_OVERFLOW is set in
 *	the result when PCs were dropped since the last read (the buffer
 *	was full): never a silent loss. -EFAULT on a bad buf.
 *   qs_kcov(QS_KCOV_DISABLE, 0, 0)
 *	stops and frees the buffer (exit does the same; execve() keeps it:
 *	the task is the same).
 *
 * The kernel records PCs; edges (hash of consecutive PCs) are the
 * fuzzer's business (docs/kcov.md).
 */
#ifndef _UAPI_KCOV_H
#define _UAPI_KCOV_H

#define SYS_qs_kcov		95	/* (QS_KCOV_*, a, b) */

#define QS_KCOV_ENABLE		1
#define QS_KCOV_READ		2
#define QS_KCOV_DISABLE		3

#define QS_KCOV_MAX		65536	/* PCs one buffer holds at most */
#define QS_KCOV_OVERFLOW	(1ull << 62)	/* in READ's result: PCs were dropped */

#endif
