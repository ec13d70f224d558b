/*
 * dcachebench [procs] [iterations] [runs] [dirs] [files]: seed 004
 * Table 3's benchmark. It builds a tree /dcb/dD/fF (dirs x files, one
 * directory level more than the names: /dcb/dD/sub/fF), then procs
 * processes (default: one per CPU) each resolve every path of the tree
 * `iterations` times, with stat() and with open()+close(). Each iteration
 * also creates and unlinks one file per directory, so the dcache frees
 * dentries through call_rcu() while the lookups run: the RCU variant's
 * grace-period machinery is what Table 3 compares, and a lookup-only load
 * never invokes it.
 *
 * Per run it prints ms per iteration (the run's wall time over its
 * iterations) and the CPU utilisation of the run (1 - idle time over
 * wall time x CPUs, from qs_stats()'s per-CPU idle_ns); after `runs` runs
 * the mean and standard deviation of both, as the paper's table gives
 * them, and one BENCH line for tools/figs/dcache.py:
 *
 *   BENCH {"bench":"dcachebench","variant":...,"us_per_iter":[...],
 *          "util_centipct":[...]}   (each run: microseconds, 0.01%)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <time.h>
#include <errno.h>
#include <sys/wait.h>
#include <sys/utsname.h>
#include <quiescent.h>
#include <qs_fs.h>

#define MAX_RUNS	32

static struct utsname u;
static int ndirs = 8, nfiles = 16;

static unsigned long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000UL + ts.tv_nsec;
}

static unsigned long idle_ns(void)
{
	static struct qs_stats s;	/* large: not on the stack */
	unsigned long sum = 0;

	if (qs_stats(&s, 0))
		return 0;
	for (unsigned int c = 0; c < s.ncpus && c < QS_STATS_MAX_CPUS; c++)
		sum += s.cpu[c].idle_ns;
	return sum;
}

static int build(void)
{
	char p[64];

	if (mkdir("/dcb", 0755) && errno != EEXIST)
		return -1;
	for (int d = 0; d < ndirs; d++) {
		snprintf(p, sizeof(p), "/dcb/d%d", d);
		if (mkdir(p, 0755) && errno != EEXIST)
			return -1;
		snprintf(p, sizeof(p), "/dcb/d%d/sub", d);
		if (mkdir(p, 0755) && errno != EEXIST)
			return -1;
		for (int f = 0; f < nfiles; f++) {
			snprintf(p, sizeof(p), "/dcb/d%d/sub/f%d", d, f);
			if (qs_creat(p, 0644, 0) && errno != EEXIST)
				return -1;
		}
	}
	return 0;
}

static void teardown(void)
{
	char p[64];

	for (int d = 0; d < ndirs; d++) {
		for (int f = 0; f < nfiles; f++) {
			snprintf(p, sizeof(p), "/dcb/d%d/sub/f%d", d, f);
			unlink(p);
		}
		snprintf(p, sizeof(p), "/dcb/d%d/sub", d);
		rmdir(p);
		snprintf(p, sizeof(p), "/dcb/d%d", d);
		rmdir(p);
	}
	rmdir("/dcb");
}

/* One process: every path, `iters` times; 0 or the number of failures. */
static int walker(int id, long iters)
{
	char p[64];
	struct stat st;
	int bad = 0;

	for (long i = 0; i < iters; i++) {
		for (int d = 0; d < ndirs; d++) {
			for (int f = 0; f < nfiles; f++) {
				snprintf(p, sizeof(p), "/dcb/d%d/sub/f%d", d, f);
				if (stat(p, &st))
					bad++;
				int fd = open(p, O_RDONLY);
				if (fd < 0)
					bad++;
				else
					close(fd);
			}
			/* the churn: a dentry freed through call_rcu() per directory */
			snprintf(p, sizeof(p), "/dcb/d%d/t%d", d, id);
			if (qs_creat(p, 0644, 1) || unlink(p))
				bad++;
		}
	}
	return bad > 255 ? 255 : bad;
}

/* No floating point in user mode here: microseconds and hundredths of a
 * percent, integers. */
static unsigned long isqrt(unsigned long x)
{
	unsigned long r = 0, b = 1UL << 62;

	while (b > x)
		b >>= 2;
	while (b) {
		if (x >= r + b) {
			x -= r + b;
			r = (r >> 1) + b;
		} else {
			r >>= 1;
		}
		b >>= 2;
	}
	return r;
}

static void mean_std(const long *v, int n, long *mean, long *std)
{
	long s = 0;
	unsigned long q = 0;

	for (int i = 0; i < n; i++)
		s += v[i];
	*mean = s / n;
	for (int i = 0; i < n; i++)
		q += (unsigned long)((v[i] - *mean) * (v[i] - *mean));
	*std = n > 1 ? (long)isqrt(q / (n - 1)) : 0;
}

/* v in hundredths (or thousandths): "12.34" */
static const char *fx(char *buf, long v, int digits)
{
	long div = digits == 3 ? 1000 : 100;

	snprintf(buf, 24, digits == 3 ? "%ld.%03ld" : "%ld.%02ld", v / div, v % div);
	return buf;
}

int main(int argc, char **argv)
{
	int procs, runs = 5, bad = 0;
	long iters = 20;
	long us[MAX_RUNS], util[MAX_RUNS], m_us, s_us, m_u, s_u;
	char b1[24], b2[24], b3[24], b4[24];

	uname(&u);
	procs = u.ncpus;
	if (argc > 1)
		procs = atoi(argv[1]);
	if (argc > 2)
		iters = atol(argv[2]);
	if (argc > 3)
		runs = atoi(argv[3]);
	if (argc > 4)
		ndirs = atoi(argv[4]);
	if (argc > 5)
		nfiles = atoi(argv[5]);
	if (procs < 1 || procs > 64 || iters < 1 || runs < 1 || runs > MAX_RUNS ||
	    ndirs < 1 || ndirs > 1000 || nfiles < 1 || nfiles > 1000) {
		fprintf(stderr, "usage: dcachebench [procs <= 64] [iterations] [runs <= %d] "
			"[dirs] [files]\n", MAX_RUNS);
		return 2;
	}
	if (build()) {
		printf("dcachebench: FAIL: building /dcb: %s\n", strerror(errno));
		return 1;
	}
	printf("dcachebench: %s, %d CPUs, %d processes x %ld iterations of %d paths "
	       "(stat + open each), %d runs\n", u.rcu_variant, u.ncpus, procs, iters,
	       ndirs * nfiles, runs);
	for (int r = 0; r < runs; r++) {
		unsigned long t0, i0, wall, idle;
		int st;

		i0 = idle_ns();
		t0 = now_ns();
		for (int p = 0; p < procs; p++)
			if (fork() == 0)
				_exit(walker(p, iters));
		while (wait(&st) > 0)
			if (!WIFEXITED(st) || WEXITSTATUS(st))
				bad++;
		wall = now_ns() - t0;
		idle = idle_ns() - i0;
		us[r] = (long)(wall / 1000 / iters);	/* microseconds per iteration */
		/* hundredths of a percent busy */
		util[r] = 10000 - (long)(idle * 10000 / (wall * u.ncpus));
		if (util[r] < 0)
			util[r] = 0;
		printf("dcachebench: run %d: %s ms/iteration, CPU utilisation %s%%\n", r + 1,
		       fx(b1, us[r], 3), fx(b2, util[r], 2));
	}
	teardown();
	mean_std(us, runs, &m_us, &s_us);
	mean_std(util, runs, &m_u, &s_u);
	printf("dcachebench: %s: CPU utilisation %s%% (std %s%%), %s ms/iteration (std %s) "
	       "over %d runs\n", u.rcu_variant, fx(b1, m_u, 2), fx(b2, s_u, 2), fx(b3, m_us, 3),
	       fx(b4, s_us, 3), runs);
	printf("BENCH {\"bench\":\"dcachebench\",\"variant\":\"%s\",\"cpus\":%d,\"procs\":%d,"
	       "\"iterations\":%ld,\"paths\":%d,\"runs\":%d,\"us_per_iter\":[", u.rcu_variant,
	       u.ncpus, procs, iters, ndirs * nfiles, runs);
	for (int r = 0; r < runs; r++)
		printf("%s%ld", r ? "," : "", us[r]);
	printf("],\"util_centipct\":[");
	for (int r = 0; r < runs; r++)
		printf("%s%ld", r ? "," : "", util[r]);
	printf("]}\n");
	if (bad) {
		printf("dcachebench: FAIL: %d processes saw a lookup fail\n", bad);
		return 1;
	}
	return 0;
}
