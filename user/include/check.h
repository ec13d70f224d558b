/*
 * The checks of the test programs (filetest, modtest, nettest, ...):
 *
 *	#define CHECK_PROG "filetest"
 *	#include <check.h>
 *
 *	CHECK(fd == 3, "the first open gets fd 3, got %d", fd);
 *	FAILS(close(fd), EBADF);		// -1 with errno EBADF, or a failure
 *	return check_summary();			// "filetest: PASS: 65 checks", exit status
 *
 * A failed check prints "<prog>: FAIL: <condition>: <message> (errno ...)"
 * and the run goes on, so one run reports every failure.
 */
#ifndef _USER_CHECK_H
#define _USER_CHECK_H

#include <stdio.h>
#include <string.h>
#include <errno.h>

#ifndef CHECK_PROG
#error "define CHECK_PROG (the program's name) before including check.h"
#endif

static int checks, failed;

#define CHECK(cond, ...) do {						\
	checks++;							\
	if (!(cond)) {							\
		failed++;						\
		printf(CHECK_PROG ": FAIL: %s: ", #cond);		\
		printf(__VA_ARGS__);					\
		printf(" (errno %d %s)\n", errno, strerror(errno));	\
	}								\
} while (0)

#define FAILS(call, err) do {						\
	errno = 0;							\
	long __r = (long)(call);					\
	CHECK(__r == -1 && errno == (err), "%s returned %ld, wanted %s", #call, __r, #err); \
} while (0)

/* The last line: PASS with the count, or FAIL with how many; the exit status. */
static inline int check_summary(void)
{
	if (failed) {
		printf(CHECK_PROG ": FAIL: %d of %d checks\n", failed, checks);
		return 1;
	}
	printf(CHECK_PROG ": PASS: %d checks\n", checks);
	return 0;
}

#endif
