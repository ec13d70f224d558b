/*
 * syzq's programs: a sequence of calls from the descriptions
 * (fuzz/calls.h), each argument a literal or a reference to the result of
 * an earlier call, as in syzkaller's prog package. The text form, one
 * program a line, is what the console carries out and the initrd carries
 * back in (docs/fuzzing.md):
 *
 *   pipe2(0,2048);write(s0,0,16);fork();kill(r2,9)
 *
 * `rN` is call N's result (for pipe2, its read end), `sN` pipe2's write
 * end; `collide:` before the calls, a program two processes run at once;
 * anything else is a decimal number whose meaning the argument's kind
 * gives (a buffer's seed, a name's index, a flag set).
 */
#ifndef _FUZZ_PROG_H
#define _FUZZ_PROG_H

#include <stdint.h>
#include "calls.h"

#define MAX_CALLS	12
#define MAX_ARGS	6
#define PROG_TEXT	1024	/* a program's text, at most */

enum { A_LIT, A_RES, A_RES2 };

struct fz_arg {
	uint8_t ref;		/* A_LIT, A_RES (call v's result), A_RES2 (pipe2's write end) */
	int64_t v;
};

struct fz_call {
	uint8_t desc;		/* index into fz_descs[] */
	struct fz_arg a[MAX_ARGS];
};

struct fz_prog {
	int n;
	int collide;		/* run by two processes at once (fuzz/collide.h) */
	struct fz_call c[MAX_CALLS];
};

struct fz_desc {
	int nr;
	const char *name;
	uint8_t res, flags, nargs;
	uint8_t kind[MAX_ARGS];
};

#endif
