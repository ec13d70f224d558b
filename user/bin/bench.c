/*
 * bench: user-mode costs, as BENCH lines (tools/qrun.py collects them):
 *   user_null_syscall   getpid() round trip, cycles and ns
 *   user_fork_exec_wait fork + exec /bin/true + waitpid, us
 *   user_console_write  write() to the console, bytes per second
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <sys/wait.h>
#include <sys/utsname.h>
#include <quiescent.h>

static struct utsname u;

static unsigned long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000UL + ts.tv_nsec;
}

static void null_syscall(long n)
{
	unsigned long t0 = now_ns();
	unsigned long long c0 = rdtsc();

	for (long i = 0; i < n; i++)
		getpid();
	unsigned long long cycles = rdtsc() - c0;
	unsigned long ns = now_ns() - t0;

	printf("BENCH {\"bench\":\"user_null_syscall\",\"variant\":\"%s\",\"cpus\":%d,"
	       "\"calls\":%ld,\"cycles\":%llu,\"ns\":%lu}\n", u.rcu_variant, u.ncpus, n,
	       cycles / n, ns / n);
}

static void fork_exec_wait(int n)
{
	unsigned long t0 = now_ns();

	for (int i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			char *argv[] = { "true", NULL };
			execv("/bin/true", argv);
			_exit(127);
		}
		waitpid(pid, NULL, 0);
	}
	unsigned long ns = (now_ns() - t0) / n;
	printf("BENCH {\"bench\":\"user_fork_exec_wait\",\"variant\":\"%s\",\"cpus\":%d,"
	       "\"runs\":%d,\"us\":%lu.%03lu}\n", u.rcu_variant, u.ncpus, n, ns / 1000, ns % 1000);
}

static void console_write(int kib)
{
	char buf[1024];
	unsigned long t0, ns;

	for (int i = 0; i < 1024; i++)
		buf[i] = i % 64 == 63 ? '\n' : '.';
	t0 = now_ns();
	for (int i = 0; i < kib; i++)
		write(1, buf, sizeof(buf));
	ns = now_ns() - t0;
	printf("BENCH {\"bench\":\"user_console_write\",\"variant\":\"%s\",\"cpus\":%d,"
	       "\"bytes\":%d,\"write_size\":1024,\"ns\":%lu,\"kib_per_s\":%lu}\n", u.rcu_variant,
	       u.ncpus, kib * 1024, ns, ns ? kib * 1000000000UL / ns : 0);
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 100000;
	int forks = argc > 2 ? atoi(argv[2]) : 50;
	int kib = argc > 3 ? atoi(argv[3]) : 16;

	uname(&u);
	null_syscall(calls);
	fork_exec_wait(forks);
	console_write(kib);
	return 0;
}
