/* kill [-SIG] pid...: end processes (every signal ends a process). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <signal.h>

static const struct { const char *name; int sig; } names[] = {
	{ "HUP", SIGHUP }, { "INT", SIGINT }, { "QUIT", SIGQUIT }, { "ABRT", SIGABRT },
	{ "KILL", SIGKILL }, { "USR1", SIGUSR1 }, { "USR2", SIGUSR2 }, { "PIPE", SIGPIPE },
	{ "ALRM", SIGALRM }, { "TERM", SIGTERM },
};

static int parse_sig(const char *s)
{
	char *end;
	long n;

	if (!strncmp(s, "SIG", 3))
		s += 3;
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i].name))
			return names[i].sig;
	n = strtol(s, &end, 10);
	return *s && !*end && n >= 0 && n < QS_NSIG ? (int)n : -1;
}

int main(int argc, char **argv)
{
	int sig = SIGTERM, i = 1, status = 0;

	if (argc > 1 && argv[1][0] == '-') {
		sig = parse_sig(argv[1] + 1);
		if (sig < 0) {
			fprintf(stderr, "kill: %s: unknown signal; use a number 0-%d or one of "
				"HUP INT QUIT ABRT KILL USR1 USR2 PIPE ALRM TERM\n", argv[1] + 1,
				QS_NSIG - 1);
			return 2;
		}
		i++;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: kill [-SIGNAL] pid...\n");
		return 2;
	}
	for (; i < argc; i++) {
		char *end;
		long pid = strtol(argv[i], &end, 10);

		if (!*argv[i] || *end || pid <= 0) {
			fprintf(stderr, "kill: %s: not a process id\n", argv[i]);
			status = 1;
		} else if (kill(pid, sig)) {
			fprintf(stderr, "kill: (%ld): %s\n", pid, strerror(errno));
			status = 1;
		}
	}
	return status;
}
