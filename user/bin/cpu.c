/*
 * cpu: CPU hotplug from the shell (docs/hotplug.md).
 *
 *   cpu              list the CPUs and which are online
 *   cpu N off        take CPU N offline (cpu_down(); not CPU 0)
 *   cpu N on         bring it back (cpu_up())
 *   cpu N pinned     a child pinned to CPU N alone spins there; CPU N goes
 *                    offline: the child must go on running elsewhere (its
 *                    affinity broken, as Linux's select_fallback_rq()),
 *                    not freeze until N returns; then N comes back
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <quiescent.h>

/* Spin pinned to cpu, writing the CPU it runs on now and then. */
static void pinned_child(int cpu, int fd)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		_exit(1);
	sched_yield();
	for (;;) {
		unsigned char c = (unsigned char)sched_getcpu();

		for (volatile int i = 0; i < 20000; i++)
			;
		(void)write(fd, &c, 1);		/* EAGAIN when full: the parent is behind */
	}
}

/* The newest CPU the child wrote, -1 if none since the last call. */
static int drain(int fd)
{
	unsigned char buf[64];
	int last = -1;
	long n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		last = buf[n - 1];
	return last;
}

static int pinned(unsigned long cpu)
{
	int fds[2], got = -1, st;
	long r;
	pid_t pid;

	if (pipe2(fds, O_NONBLOCK)) {
		printf("cpu %lu pinned: pipe: %s\n", cpu, strerror(errno));
		return 1;
	}
	pid = fork();
	if (pid == 0)
		pinned_child((int)cpu, fds[1]);
	for (int i = 0; i < 500 && got != (int)cpu; i++) {
		usleep(10000);
		got = drain(fds[0]);
	}
	if (got != (int)cpu) {
		printf("cpu %lu pinned: FAIL: the child never ran on cpu %lu\n", cpu, cpu);
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return 1;
	}
	r = qs_cpu(QS_CPU_DOWN, cpu);
	if (r < 0) {
		printf("cpu %lu pinned: cpu %lu off: %s\n", cpu, cpu, strerror((int)-r));
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return 1;
	}
	drain(fds[0]);			/* what it wrote before it left cpu N */
	got = -1;
	for (int i = 0; i < 300 && got < 0; i++) {	/* 3 s */
		usleep(10000);
		got = drain(fds[0]);
	}
	r = qs_cpu(QS_CPU_UP, cpu);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	if (got < 0 || got == (int)cpu) {
		printf("cpu %lu pinned: FAIL: a process pinned to cpu %lu did not run for 3 s while it "
		       "was offline\n", cpu, cpu);
		return 1;
	}
	printf("cpu %lu pinned: PASS: the process pinned to it ran on cpu %d while it was offline%s\n",
	       cpu, got, r < 0 ? " (but cpu on failed)" : "");
	return r < 0;
}

int main(int argc, char **argv)
{
	long mask, r;
	unsigned long n;

	if (argc == 1) {
		mask = qs_cpu(QS_CPU_ONLINE, 0);
		if (mask < 0) {
			printf("cpu: %s\n", strerror((int)-mask));
			return 1;
		}
		printf("online:");
		for (int c = 0; c < 63; c++)
			if (mask & (1L << c))
				printf(" %d", c);
		printf("\n");
		return 0;
	}
	if (argc != 3 || (strcmp(argv[2], "off") && strcmp(argv[2], "on") &&
			  strcmp(argv[2], "pinned"))) {
		printf("usage: cpu [N off|on|pinned]\n");
		return 2;
	}
	n = strtoul(argv[1], NULL, 10);
	if (!strcmp(argv[2], "pinned"))
		return pinned(n);
	r = qs_cpu(strcmp(argv[2], "off") ? QS_CPU_UP : QS_CPU_DOWN, n);
	if (r < 0) {
		printf("cpu %lu %s: %s\n", n, argv[2], strerror((int)-r));
		return 1;
	}
	printf("cpu %lu %s\n", n, strcmp(argv[2], "off") ? "online" : "offline");
	return 0;
}
