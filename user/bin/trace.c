/*
 * trace: the per-CPU trace buffers (docs/rcu/timeline.md). Root only.
 *
 *	trace start [rcu,sched,softirq,irq,torture|all] [overwrite|stop]
 *	trace stop
 *	trace dump          TRACE lines on the console, for tools/timeline.py
 *	trace status
 *
 * start empties the rings and records the categories named (all by
 * default), keeping the newest records (overwrite) or the first (stop).
 */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <sys/trace.h>

static const struct { const char *name; unsigned int mask; } cats[] = {
	{ "rcu", QS_TRACE_CAT_RCU }, { "sched", QS_TRACE_CAT_SCHED },
	{ "softirq", QS_TRACE_CAT_SOFTIRQ }, { "irq", QS_TRACE_CAT_IRQ },
	{ "torture", QS_TRACE_CAT_TORTURE }, { "test", QS_TRACE_CAT_TEST },
	{ "all", QS_TRACE_CAT_ALL },
};

static int usage(void)
{
	fprintf(stderr, "usage: trace start [rcu,sched,softirq,irq,torture,test|all] [overwrite|stop]\n"
			"       trace stop | dump | status\n");
	return 2;
}

/* "rcu,sched" -> a mask, 0 for a word that names no category. */
static unsigned int parse_cats(const char *s)
{
	unsigned int mask = 0;
	char word[16];

	while (*s) {
		size_t n = strcspn(s, ",");
		unsigned int m = 0;

		if (n < sizeof(word)) {
			memcpy(word, s, n);
			word[n] = 0;
			for (unsigned int i = 0; i < sizeof(cats) / sizeof(cats[0]); i++)
				if (!strcmp(word, cats[i].name))
					m = cats[i].mask;
		}
		if (!m) {
			fprintf(stderr, "trace: '%.*s' is not one of rcu, sched, softirq, irq, torture, test, all\n",
				(int)n, s);
			return 0;
		}
		mask |= m;
		s += n + (s[n] == ',');
	}
	return mask;
}

static int start(int argc, char **argv)
{
	unsigned int mask = QS_TRACE_CAT_ALL, mode = QS_TRACE_OVERWRITE;

	if (argc > 2 && !(mask = parse_cats(argv[2])))
		return 1;
	if (argc > 3) {
		if (!strcmp(argv[3], "stop"))
			mode = QS_TRACE_STOP_WHEN_FULL;
		else if (strcmp(argv[3], "overwrite"))
			return usage();
	}
	if (qs_trace(QS_TRACE_START, mask, mode) < 0) {
		perror("trace: start");
		return 1;
	}
	printf("trace: recording mask %#x, %s\n", mask, mode ? "stop when full" : "overwrite");
	return 0;
}

int main(int argc, char **argv)
{
	long r;

	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "start"))
		return start(argc, argv);
	if (!strcmp(argv[1], "stop"))
		r = qs_trace(QS_TRACE_STOP, 0, 0);
	else if (!strcmp(argv[1], "dump"))
		r = qs_trace(QS_TRACE_DUMP, 0, 0);
	else if (!strcmp(argv[1], "status"))
		r = qs_trace(QS_TRACE_STATUS, 0, 0);
	else
		return usage();
	if (r < 0) {
		fprintf(stderr, "trace: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (!strcmp(argv[1], "dump"))
		printf("trace: %ld records dumped\n", r);
	else if (!strcmp(argv[1], "status"))
		printf("trace: mask %#lx%s\n", r, r ? "" : " (off)");
	return 0;
}
