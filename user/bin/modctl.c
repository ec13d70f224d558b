/*
 * modctl NAME CMD [ARG]: call a loaded module's ctl() (root only; the
 * kernel holds a reference on the module meanwhile). CMD is a number, or
 * one of the sample modules' names for theirs (include/uapi/module.h):
 *
 *	modctl hello spin 500        busy 500 ms in hello_spin()
 *	modctl hello backtrace       a backtrace from inside the module
 *	modctl hello sleep 1000      asleep 1 s, holding the reference
 *	modctl nmiprof start 1000    (nmitop does this for you)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/module.h>

static const struct { const char *name; unsigned int cmd; } cmds[] = {
	{ "spin", HELLO_CTL_SPIN }, { "backtrace", HELLO_CTL_BACKTRACE },
	{ "sleep", HELLO_CTL_SLEEP }, { "count", HELLO_CTL_COUNT }, { "oops", HELLO_CTL_OOPS },
	{ "start", NMIPROF_CTL_START }, { "stop", NMIPROF_CTL_STOP },
	{ "reset", NMIPROF_CTL_RESET },
};

int main(int argc, char **argv)
{
	unsigned long cmd = 0, arg = argc > 3 ? strtoul(argv[3], NULL, 0) : 0;
	long r;

	if (argc < 3) {
		fprintf(stderr, "usage: modctl NAME CMD [ARG]\n");
		return 2;
	}
	cmd = strtoul(argv[2], NULL, 0);
	for (unsigned int i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[2], cmds[i].name))
			cmd = cmds[i].cmd;
	r = module_ctl(argv[1], cmd, arg, NULL, 0);
	if (r < 0) {
		fprintf(stderr, "modctl: %s %s: %s\n", argv[1], argv[2], strerror(errno));
		return 1;
	}
	printf("modctl: %s %s %lu: %ld\n", argv[1], argv[2], arg, r);
	return 0;
}
