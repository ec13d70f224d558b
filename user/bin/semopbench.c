/*
 * semopbench [procs] [ops]: seed 004 Table 5's microbenchmark (Bill
 * Hartner's semopbench, as the paper describes it): procs processes, one
 * per CPU, each doing `ops` semop() calls on its own semaphore set in a
 * tight loop (+1, -1, +1, ...: never waits). No two processes share a
 * set, so all they share is the path to their sets: the ID table. With
 * ipc=global every call takes the table's one lock; with ipc=rcu (seed
 * 004) none is shared. Boot once per mode at the same CPU count to
 * compare them (make semopbench, tools/semopbench.py).
 *
 * Prints BENCH lines (the mode is the boot's: the kernel's log says
 * "ipc: semaphore ids: rcu lookup", and tools/semopbench.py records it):
 *   semopbench           total seconds, operations per second, ns per op
 *   user_semop_vs_null   one uncontended semop() round trip beside a null
 *                        system call (getpid), in one process, and the ratio
 *
 * `semopbench N OPS null` is the control (BENCH semopbench_null): the same
 * processes making getpid() calls, which share nothing in the kernel but
 * what every system call shares, so its N-to-1 ratio is the most any
 * system call scales on this machine (under TCG, with its own costs).
 *
 * `semopbench N OPS c2c` (a kernel booted with c2c=1, under the coherence
 * plugin: tools/c2c.py's semop cases) marks each process's loop as one
 * cell, "semop Ncpu", through qs_c2c() (include/uapi/c2c.h), and the
 * processes step together after every semop(), the cell paused while
 * they wait: under TCG a vCPU may run thousands of calls while the host
 * stalls another, and a lock's line moves only when the CPUs take it in
 * turn, so without steps the transfers per semop would measure the
 * host's scheduler. A round is one call because one lock shared by all
 * is what ipc=global is: on real CPUs running at once each acquisition
 * finds it on another CPU. Prints "c2c cell C: semop Ncpu, M semops"
 * (the operations the report divides by).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sched.h>
#include <time.h>
#include <errno.h>
#include <sys/wait.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <sys/utsname.h>
#include <quiescent.h>
#include <sys/c2c.h>

static struct utsname u;

static unsigned long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000UL + ts.tv_nsec;
}

static int op(int id, int delta)
{
	struct sembuf b = { 0, (short)delta, 0 };

	return semop(id, &b, 1);
}

/* Run on cpu only (cpu < 0: on any). */
static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	for (int c = 0; c < u.ncpus; c++)
		if (cpu < 0 || c == cpu % u.ncpus)
			CPU_SET(c, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static bool null_calls;	/* the control: getpid() instead of semop() */
static bool c2c_cells;	/* marked cells, in step (c2c) */
static int c2c_cell;
static char c2c_label[QS_C2C_LABEL_MAX];

/* The marked loop: a cell on this CPU, a step after every call. */
static int bench_c2c(int id, long ops)
{
	if (qs_c2c(QS_C2C_BEGIN, c2c_cell, (unsigned long)c2c_label))
		return 1;
	for (long n = 0; n < ops; n++)
		if (op(id, n & 1 ? -1 : 1) || qs_c2c(QS_C2C_STEP, c2c_cell, 0))
			return 1;
	return qs_c2c(QS_C2C_END, c2c_cell, 0) ? 1 : 0;
}

/* One process's loop: `ops` calls on its own set. */
static int bench_child(int i, int id, int gate, long ops)
{
	pin(i);
	if (op(gate, -1))			/* wait for the start */
		return 1;
	if (c2c_cells)
		return bench_c2c(id, ops);
	if (null_calls) {
		for (long n = 0; n < ops; n++)
			getpid();
		return 0;
	}
	for (long n = 0; n < ops; n += 2) {
		if (op(id, 1) || op(id, -1))
			return 1;
	}
	return 0;
}

static int semopbench(int procs, long ops)
{
	int ids[64], gate = semget(IPC_PRIVATE, 1, 0600), bad = 0, st;
	unsigned long t0, ns;

	for (int i = 0; i < procs; i++)
		ids[i] = semget(IPC_PRIVATE, 1, 0600);
	if (c2c_cells) {
		c2c_cell = (int)qs_c2c(QS_C2C_CELL, 0, 0);
		if (c2c_cell < 0 || qs_c2c(QS_C2C_STEPS, procs, 0)) {
			printf("semopbench: FAIL: no c2c cell (boot with c2c=1): errno %d\n", errno);
			return 1;
		}
		snprintf(c2c_label, sizeof(c2c_label), "semop %dcpu", procs);
	}
	for (int i = 0; i < procs; i++)
		if (fork() == 0)
			_exit(bench_child(i, ids[i], gate, ops));
	/* Every child waiting at the gate, then all released at once. */
	for (int tries = 0; semctl(gate, 0, GETNCNT) < procs && tries < 100000; tries++)
		usleep(100);
	t0 = now_ns();
	{
		struct sembuf open = { 0, (short)procs, 0 };
		semop(gate, &open, 1);
	}
	while (wait(&st) > 0)
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			bad++;
	ns = now_ns() - t0;
	for (int i = 0; i < procs; i++)
		semctl(ids[i], 0, IPC_RMID);
	semctl(gate, 0, IPC_RMID);
	if (bad) {
		printf("semopbench: FAIL: %d processes failed\n", bad);
		return 1;
	}
	if (c2c_cells)
		printf("c2c cell %d: %s, %ld semops\n", c2c_cell, c2c_label, procs * ops);
	printf("BENCH {\"bench\":\"%s\",\"variant\":\"%s\",\"cpus\":%d,"
	       "\"procs\":%d,\"ops_per_proc\":%ld,\"total_ns\":%lu,\"ops_per_s\":%lu,"
	       "\"ns_per_op\":%lu}\n", null_calls ? "semopbench_null" : "semopbench",
	       u.rcu_variant, u.ncpus, procs, ops, ns,
	       (unsigned long)(procs * ops * 1000000000UL / ns), ns / ops);
	return 0;
}

/* An uncontended semop() beside getpid(), in this process. */
static void round_trip(long n)
{
	int id = semget(IPC_PRIVATE, 1, 0600);
	unsigned long t0, null_ns, sem_ns;
	unsigned long long c0, null_c, sem_c;

	pin(0);
	for (long i = 0; i < n / 10; i++)	/* warm up */
		getpid();
	t0 = now_ns();
	c0 = rdtsc();
	for (long i = 0; i < n; i++)
		getpid();
	null_c = rdtsc() - c0;
	null_ns = now_ns() - t0;
	for (long i = 0; i < n / 10; i += 2)
		op(id, 1), op(id, -1);
	t0 = now_ns();
	c0 = rdtsc();
	for (long i = 0; i < n; i += 2) {
		op(id, 1);
		op(id, -1);
	}
	sem_c = rdtsc() - c0;
	sem_ns = now_ns() - t0;
	semctl(id, 0, IPC_RMID);
	printf("BENCH {\"bench\":\"user_semop_vs_null\",\"variant\":\"%s\","
	       "\"cpus\":%d,\"calls\":%ld,\"null_cycles\":%llu,\"null_ns\":%lu,"
	       "\"semop_cycles\":%llu,\"semop_ns\":%lu,\"ratio\":%lu.%02lu}\n",
	       u.rcu_variant, u.ncpus, n, null_c / n, null_ns / n, sem_c / n, sem_ns / n,
	       sem_ns / null_ns, sem_ns * 100 / null_ns % 100);
	pin(-1);
}

int main(int argc, char **argv)
{
	int procs;
	long ops = argc > 2 ? atol(argv[2]) : 200000;

	uname(&u);
	procs = argc > 1 ? atoi(argv[1]) : u.ncpus;
	null_calls = argc > 3 && !strcmp(argv[3], "null");
	c2c_cells = argc > 3 && !strcmp(argv[3], "c2c");
	if (procs < 1 || procs > 64 || ops < 2) {
		fprintf(stderr, "usage: semopbench [procs <= 64] [ops per process] [null|c2c]\n");
		return 2;
	}
	if (!null_calls && !c2c_cells)
		round_trip(ops < 100000 ? ops : 100000);
	return semopbench(procs, ops);
}
