/*
 * oncpu: run on every CPU. Pins itself to each CPU in turn with
 * sched_setaffinity() and checks sched_getcpu(); then forks one child per
 * CPU, pinned there, that checks it stays there while it spins.
 */
#include <stdio.h>
#include <unistd.h>
#include <sched.h>
#include <sys/wait.h>
#include <sys/utsname.h>

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -1;
	sched_yield();
	return sched_getcpu();
}

int main(void)
{
	struct utsname u;
	int bad = 0;

	uname(&u);
	for (int c = 0; c < u.ncpus; c++) {
		int got = pin(c);
		if (got != c) {
			printf("oncpu: FAIL: pinned to cpu %d, running on %d\n", c, got);
			bad++;
		}
	}
	for (int c = 0; c < u.ncpus; c++) {
		pid_t pid = fork();
		if (pid == 0) {
			if (pin(c) != c)
				_exit(1);
			for (int i = 0; i < 2000; i++)
				if (sched_getcpu() != c)
					_exit(2);
			printf("oncpu: child %d ran on cpu %d\n", getpid(), c);
			_exit(0);
		}
	}
	for (int c = 0; c < u.ncpus; c++) {
		int st;
		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
			printf("oncpu: FAIL: a child ended with status %#x\n", st);
			bad++;
		}
	}
	if (bad)
		return 1;
	printf("oncpu: PASS: ran on all %d CPUs\n", u.ncpus);
	return 0;
}
