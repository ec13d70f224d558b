/*
 * dbench [clients] [seconds] [check]: a dbench-like load, the load under
 * which seed 000 Figures 9-10 and seed 004 Figure 7 measure call_rcu()
 * latency. Each of `clients` processes works in its own tree
 * /dbench/cN for `seconds`: a mix of file operations as dbench's
 * NetBench trace has them (create, write, read back, stat, rename within
 * its tree, unlink, and now and then mkdir and rmdir), each one counted.
 *
 * It prints each client's operations per second and throughput, the
 * total, and the latency of the dcache's call_rcu()s during the load
 * (qs_dcache(): every dentry freed goes through call_rcu(); queued to
 * invoked), and one BENCH line for tools/figs/dcache.py.
 *
 * With `check`, memory must come back: before the load it shrinks the
 * dcache and waits for the callbacks (qs_rcu(QS_RCU_BARRIER)) and records
 * the kernel's kmalloc objects and bytes and the dentries alive; after
 * the clients are reaped and their trees removed it shrinks and waits
 * again and compares (a few tries, 50 ms apart, while the exited
 * processes' memory waits for its grace period). It prints
 * "dbench: memory back at baseline" or FAIL and exits 1.
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

#define MAX_CLIENTS	64
#define FILES		8		/* per client directory */
#define CHUNK		4096

struct result {
	unsigned long ops, bytes, ns, errors;
};

static struct utsname u;
static char buf[CHUNK];

static unsigned long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000UL + ts.tv_nsec;
}

static unsigned long rnd(unsigned long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* One client's loop in /dbench/cN; its counts go to /dbench/cN.res. */
static int client(int n, unsigned long seconds)
{
	char dir[32], p[64], q[64];
	unsigned long seed = 0x9e3779b97f4a7c15UL * (n + 1), t0 = now_ns(), end;
	struct result r = { 0 };
	struct stat st;
	int fd;

	end = t0 + seconds * 1000000000UL;
	snprintf(dir, sizeof(dir), "/dbench/c%d", n);
	if (mkdir(dir, 0755) || (snprintf(p, sizeof(p), "%s/sub", dir), mkdir(p, 0755)))
		return 1;
	memset(buf, 'a' + n % 26, sizeof(buf));
	while (now_ns() < end) {
		int f = rnd(&seed) % FILES, op = rnd(&seed) % 16;

		snprintf(p, sizeof(p), "%s/f%d", dir, f);
		if (op < 4) {			/* create and write 1-4 chunks */
			fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
			if (fd < 0) {
				r.errors++;
				continue;
			}
			for (int k = 1 + rnd(&seed) % 4; k > 0; k--)
				if (write(fd, buf, CHUNK) == CHUNK)
					r.bytes += CHUNK;
			close(fd);
		} else if (op < 8) {		/* read it back */
			fd = open(p, O_RDONLY);
			if (fd >= 0) {
				long got;

				while ((got = read(fd, buf, CHUNK)) > 0)
					r.bytes += got;
				close(fd);
			}
		} else if (op < 11) {		/* stat (often of a name that is not there) */
			stat(p, &st);
			snprintf(q, sizeof(q), "%s/sub/g%d", dir, f);
			stat(q, &st);
		} else if (op < 13) {		/* rename into sub and back */
			snprintf(q, sizeof(q), "%s/sub/g%d", dir, f);
			if (rename(p, q) == 0)
				rename(q, p);
		} else if (op < 15) {		/* unlink: a negative dentry, a call_rcu() */
			unlink(p);
		} else {			/* a directory made and removed */
			snprintf(q, sizeof(q), "%s/d%d", dir, f);
			if (mkdir(q, 0755) == 0)
				rmdir(q);
		}
		r.ops++;
	}
	r.ns = now_ns() - t0;
	for (int f = 0; f < FILES; f++) {
		snprintf(p, sizeof(p), "%s/f%d", dir, f);
		unlink(p);
		snprintf(p, sizeof(p), "%s/sub/g%d", dir, f);
		unlink(p);
	}
	snprintf(p, sizeof(p), "%s/sub", dir);
	rmdir(p);
	if (rmdir(dir))
		r.errors++;
	snprintf(p, sizeof(p), "%s.res", dir);
	fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd < 0 || write(fd, &r, sizeof(r)) != sizeof(r))
		return 1;
	close(fd);
	return r.errors ? 1 : 0;
}

static void snapshot(struct qs_stats *s, struct qs_dcache_stats *d)
{
	qs_dcache(QS_DCACHE_SHRINK, 0, NULL);
	qs_rcu(QS_RCU_BARRIER, 0);
	qs_stats(s, 0);
	qs_dcache(QS_DCACHE_STATS, 0, d);
}

/* The latency below which fraction num/den of the callbacks ran, in µs. */
static unsigned long percentile_us(const struct qs_dcache_stats *d, int num, int den)
{
	unsigned long want = (d->cb_count * num + den - 1) / den, seen = 0;

	for (int i = 0; i < QS_DCACHE_HIST; i++) {
		seen += d->cb_hist[i];
		if (seen >= want && want) {
			unsigned long top = 2UL << i;	/* the bucket's upper end */

			return (top < d->cb_max_ns ? top : d->cb_max_ns) / 1000;
		}
	}
	return 0;
}

static struct qs_stats s0, s1;

int main(int argc, char **argv)
{
	int clients = 2, bad = 0, st, check = 0;
	unsigned long seconds = 2, tot_ops = 0, tot_bytes = 0;
	struct qs_dcache_stats d0, d1, lat;

	uname(&u);
	if (argc > 1)
		clients = atoi(argv[1]);
	if (argc > 2)
		seconds = atol(argv[2]);
	if (argc > 3)
		check = !strcmp(argv[3], "check");
	if (clients < 1 || clients > MAX_CLIENTS || seconds < 1 || seconds > 3600) {
		fprintf(stderr, "usage: dbench [clients <= %d] [seconds] [check]\n", MAX_CLIENTS);
		return 2;
	}
	snapshot(&s0, &d0);
	if (mkdir("/dbench", 0755)) {
		printf("dbench: FAIL: mkdir /dbench: %s\n", strerror(errno));
		return 1;
	}
	qs_dcache(QS_DCACHE_STATS, 1, &lat);	/* zero the latency record */
	for (int n = 0; n < clients; n++)
		if (fork() == 0)
			_exit(client(n, seconds));
	while (wait(&st) > 0)
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			bad++;
	qs_dcache(QS_DCACHE_STATS, 0, &lat);
	for (int n = 0; n < clients; n++) {
		char p[32];
		struct result r = { 0 };
		int fd;

		snprintf(p, sizeof(p), "/dbench/c%d.res", n);
		fd = open(p, O_RDONLY);
		if (fd < 0 || read(fd, &r, sizeof(r)) != sizeof(r) || !r.ns) {
			printf("dbench: client %d: no result\n", n);
			bad++;
		} else {
			printf("dbench: client %d: %lu ops in %lu ms: %lu ops/s, %lu KB/s\n", n, r.ops,
			       r.ns / 1000000, r.ops * 1000000000UL / r.ns,
			       r.bytes * 1000000UL / r.ns);
			tot_ops += r.ops * 1000000000UL / r.ns;
			tot_bytes += r.bytes * 1000000UL / r.ns;
		}
		if (fd >= 0)
			close(fd);
		unlink(p);
	}
	rmdir("/dbench");
	printf("dbench: %s, %d clients on %d CPUs: %lu ops/s in all, %lu per client, %lu KB/s\n",
	       u.rcu_variant, clients, u.ncpus, tot_ops, tot_ops / clients, tot_bytes);
	printf("dbench: call_rcu() latency of the dcache's frees: %lu callbacks, mean %lu us, "
	       "median <= %lu us, p99 <= %lu us, max %lu us\n", lat.cb_count,
	       lat.cb_count ? lat.cb_sum_ns / lat.cb_count / 1000 : 0, percentile_us(&lat, 1, 2),
	       percentile_us(&lat, 99, 100), lat.cb_max_ns / 1000);
	printf("BENCH {\"bench\":\"dbench\",\"variant\":\"%s\",\"cpus\":%d,\"clients\":%d,"
	       "\"seconds\":%lu,\"ops_per_s\":%lu,\"kb_per_s\":%lu,\"cb_count\":%lu,"
	       "\"cb_mean_us\":%lu,\"cb_p50_us\":%lu,\"cb_p99_us\":%lu,\"cb_max_us\":%lu}\n",
	       u.rcu_variant, u.ncpus, clients, seconds, tot_ops, tot_bytes, lat.cb_count,
	       lat.cb_count ? lat.cb_sum_ns / lat.cb_count / 1000 : 0, percentile_us(&lat, 1, 2),
	       percentile_us(&lat, 99, 100), lat.cb_max_ns / 1000);
	if (bad) {
		printf("dbench: FAIL: %d clients failed\n", bad);
		return 1;
	}
	if (!check)
		return 0;
	for (int tries = 0; tries < 40; tries++) {
		snapshot(&s1, &d1);
		if (s1.kmalloc_objects == s0.kmalloc_objects && s1.kmalloc_bytes == s0.kmalloc_bytes &&
		    d1.dentries == d0.dentries && s1.user_pages == s0.user_pages)
			break;
		usleep(50000);
	}
	printf("dbench: kmalloc objects %lu -> %lu, bytes %lu -> %lu, dentries %ld -> %ld, "
	       "user pages %lu -> %lu, slab pages %lu -> %lu; %ld negative dentries shrunk\n",
	       (unsigned long)s0.kmalloc_objects, (unsigned long)s1.kmalloc_objects,
	       (unsigned long)s0.kmalloc_bytes, (unsigned long)s1.kmalloc_bytes,
	       (long)d0.dentries, (long)d1.dentries, (unsigned long)s0.user_pages,
	       (unsigned long)s1.user_pages, (unsigned long)s0.slab_pages,
	       (unsigned long)s1.slab_pages, (long)(d1.shrunk - d0.shrunk));
	if (s1.kmalloc_objects != s0.kmalloc_objects || s1.kmalloc_bytes != s0.kmalloc_bytes ||
	    d1.dentries != d0.dentries || s1.user_pages != s0.user_pages) {
		printf("dbench: FAIL: memory not back at its baseline\n");
		return 1;
	}
	printf("dbench: memory back at baseline\n");
	return 0;
}
