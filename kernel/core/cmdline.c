/* The kernel command line: "name=value name2 ..." (include/cmdline.h). */
#include <cmdline.h>
#include <string.h>
#include <printk.h>
#include <errno.h>
#include <bootinfo.h>

extern const struct cmdline_param __cmdline_params_start[], __cmdline_params_end[];

static char cmdline_copy[BOOT_CMDLINE_MAX];
static char init_args[BOOT_CMDLINE_MAX];

const char *cmdline_get(void)
{
	return cmdline_copy;
}

const char *cmdline_init_args(void)
{
	return init_args;
}

static void list_allowed(void)
{
	printk("  known options:\n");
	for (const struct cmdline_param *p = __cmdline_params_start; p < __cmdline_params_end; p++)
		printk("    %s\n", p->help);
}

static void handle(char *tok)
{
	char *eq = strchr(tok, '=');
	const char *val = NULL;

	if (eq) {
		*eq = 0;
		val = eq + 1;
	}
	for (const struct cmdline_param *p = __cmdline_params_start; p < __cmdline_params_end; p++) {
		if (strcmp(p->name, tok))
			continue;
		if (p->set(val))
			printk("cmdline: bad value '%s' for '%s' (ignored, default kept); usage: %s\n",
			       val ? val : "", tok, p->help);
		return;
	}
	printk("cmdline: unknown option '%s' (ignored)\n", tok);
	list_allowed();
}

void cmdline_parse(const char *cmdline)
{
	static char buf[BOOT_CMDLINE_MAX];	/* once, at boot: not on the stack */
	char *p = buf;

	strlcpy(cmdline_copy, cmdline, sizeof(cmdline_copy));
	strlcpy(buf, cmdline, sizeof(buf));
	while (*p) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		char *tok = p;
		while (*p && *p != ' ')
			p++;
		if (*p)
			*p++ = 0;
		if (!strcmp(tok, "--")) {	/* the rest belongs to init */
			strlcpy(init_args, p, sizeof(init_args));
			break;
		}
		handle(tok);
	}
}

int cmdline_parse_ulong(const char *name, const char *val, unsigned long lo,
			unsigned long hi, unsigned long *out)
{
	unsigned long v;

	if (!val || kstrtoul(val, 0, &v) || v < lo || v > hi) {
		/* *out still holds the default, and keeps it. */
		printk("cmdline: %s=%s is out of range: allowed %lu..%lu; using the default %lu\n",
		       name, val ? val : "", lo, hi, *out);
		return -EINVAL;
	}
	*out = v;
	return 0;
}
