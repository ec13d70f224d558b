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

/* Parse an unsigned integer option in [lo, hi]; on error print why. */
int cmdline_parse_ulong(const char *name, const char *val, unsigned long lo,
			unsigned long hi, unsigned long *out);

#endif
