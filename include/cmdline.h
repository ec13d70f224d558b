/*
 * Kernel command-line options. A lone "--" ends them: the rest of the
 * line is handed to the first user process (cmdline_init_args()).
 *
 *   static int set_foo(const char *val) { ... return 0 or -EINVAL; }
 *   CMDLINE_PARAM("foo", set_foo, "foo=N: what it does (default 3, 1..10)");
 *
 * The handler receives what follows '=' (NULL for a bare "foo"). An
 * unknown option, or one whose handler refuses the value, is reported
 * with the option's help text; the kernel goes on with the default.
 */
#ifndef _CMDLINE_H
#define _CMDLINE_H

#include <compiler.h>

struct cmdline_param {
	const char *name;
	int (*set)(const char *val);
	const char *help;
};

#define CMDLINE_PARAM(n, fn, h)						\
	static const struct cmdline_param __cmdline_##fn		\
	__section(".cmdline_params") __used __aligned(8) = { n, fn, h }

void cmdline_parse(const char *cmdline);
const char *cmdline_get(void);
/* Everything after " -- " on the command line (for init), or "". */
const char *cmdline_init_args(void);

/*
 * Parse an unsigned integer option in [lo, hi] into *out, which holds the
 * default; a bad value prints the allowed range and the default kept.
 */
int cmdline_parse_ulong(const char *name, const char *val, unsigned long lo,
			unsigned long hi, unsigned long *out);

/*
 * An option that sets an unsigned long variable within [lo, hi]:
 *   static unsigned long foo = 3;
 *   CMDLINE_ULONG("foo", foo, 1, 10, "foo=N: what it does (default 3, 1..10)");
 * CMDLINE_ULONG_TAGGED names the handler after tag, for a var that is not
 * a plain identifier (a struct member).
 */
#define CMDLINE_ULONG_TAGGED(n, tag, var, lo, hi, h)			\
	static int set_ulong_##tag(const char *val)			\
	{								\
		return cmdline_parse_ulong(n, val, lo, hi, &(var));	\
	}								\
	CMDLINE_PARAM(n, set_ulong_##tag, h)
#define CMDLINE_ULONG(n, var, lo, hi, h)	CMDLINE_ULONG_TAGGED(n, var, var, lo, hi, h)

#endif
