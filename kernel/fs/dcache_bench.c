/*
 * bench_fs_dcache_lookup: path lookups per second through the dentry
 * cache, dcache=rcu against dcache=lock, at 1, 2, 4 ... CPUs in one boot
 * (seed 000's dcache result). Each CPU resolves
 * /dbench/dN/fM, three d_lookup()s and their dput()s, over and over for
 * dcache_bench.ms milliseconds; the lock mode takes the global
 * dcache_lock for each, as the kernel before the dcache-rcu patch did.
 * Printed as BENCH lines and a ratio; nothing is judged on the numbers.
 */
#include <fs.h>
#include <ktest.h>
#include <cmdline.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <string.h>
#include <printk.h>

#define DB_DIRS		4
#define DB_FILES	16

static unsigned long dbench_ms = 300;
CMDLINE_ULONG("dcache_bench.ms", dbench_ms, 10, 60000,
	      "dcache_bench.ms=MS: each dcache lookup bench point runs MS ms (default 300)");

static volatile bool db_stop;
static u64 db_deadline;		/* the workers stop themselves: CPU 0's one never yields */
static enum dcache_mode db_mode;
static atomic_long_t db_lookups;
static atomic_t db_errors;

static int db_worker(void *arg)
{
	unsigned long n = 0, i = (unsigned long)arg * 7;
	char dname[8], fname[8];

	while (!READ_ONCE(db_stop)) {
		struct dentry *top, *dir, *f;

		snprintf(dname, sizeof(dname), "d%lu", i % DB_DIRS);
		snprintf(fname, sizeof(fname), "f%lu", (i / DB_DIRS) % DB_FILES);
		i++;
		top = d_lookup_mode(fs_root, "dbench", 6, db_mode);
		if (!top) {
			atomic_inc(&db_errors);
			break;
		}
		dir = d_lookup_mode(top, dname, strlen(dname), db_mode);
		f = dir ? d_lookup_mode(dir, fname, strlen(fname), db_mode) : NULL;
		if (!f)
			atomic_inc(&db_errors);
		if (f)
			dput(f);
		if (dir)
			dput(dir);
		dput(top);
		if ((++n & 63) == 0 && ktime_get_ns() > READ_ONCE(db_deadline))
			break;
	}
	atomic_long_add(n, &db_lookups);
	return 0;
}

static unsigned long db_point(struct ktest_ctx *t, enum dcache_mode mode, unsigned int ncpus)
{
	struct task *tasks[CONFIG_NR_CPUS];
	unsigned int n = 0;
	u64 t0, t1;

	db_mode = mode;
	db_stop = false;
	atomic_long_set(&db_lookups, 0);
	t0 = ktime_get_ns();
	db_deadline = t0 + dbench_ms * 1000000UL;
	for (unsigned int cpu = 0; cpu < ncpus; cpu++) {
		tasks[n] = kthread_create_on_cpu(db_worker, (void *)(unsigned long)cpu, cpu,
						 "dbench%u", cpu);
		if (tasks[n])
			wake_up_process(tasks[n++]);
	}
	msleep(dbench_ms);
	WRITE_ONCE(db_stop, true);
	for (unsigned int i = 0; i < n; i++) {
		int code;

		KT_EXPECT(t, kthread_join_timeout(tasks[i], 30 * HZ, &code), "worker %u", i);
	}
	t1 = ktime_get_ns();
	/* three d_lookup()s per path */
	unsigned long rate = 3UL * atomic_long_read(&db_lookups) * 1000000000UL / (t1 - t0 ? t1 - t0 : 1);

	bench_json("{\"bench\":\"dcache_lookup\",\"variant\":\"%s\",\"dcache\":\"%s\","
		   "\"cpus\":%u,\"lookups_per_s\":%lu}", rcu_variant_name(),
		   mode == DCACHE_RCU ? "rcu" : "lock", ncpus, rate);
	return rate;
}

KTEST(bench_fs_dcache_lookup)
{
	char path[32];
	unsigned int online = num_online_cpus();

	KT_EXPECT(t, vfs_mkdir(fs_root, "/dbench", 0755) == 0, "mkdir /dbench");
	for (int d = 0; d < DB_DIRS; d++) {
		snprintf(path, sizeof(path), "/dbench/d%d", d);
		KT_EXPECT(t, vfs_mkdir(fs_root, path, 0755) == 0, "%s", path);
		for (int f = 0; f < DB_FILES; f++) {
			struct dentry *de;

			snprintf(path, sizeof(path), "/dbench/d%d/f%d", d, f);
			if (KT_EXPECT(t, vfs_create(fs_root, path, 0644, true, &de) == 0, "%s", path))
				dput(de);
		}
	}
	atomic_set(&db_errors, 0);
	for (unsigned int n = 1; n <= online; n *= 2) {
		unsigned long r = db_point(t, DCACHE_RCU, n), l = db_point(t, DCACHE_LOCK, n);

		if (!l)
			l = 1;

		printk("dcache-bench: %u CPUs: dcache=rcu %lu lookups/s, dcache=lock %lu lookups/s, "
		       "rcu/lock %lu.%02lu\n", n, r, l, r / l, (r * 100 / l) % 100);
	}
	KT_EXPECT(t, atomic_read(&db_errors) == 0, "%d lookups missed a file that exists",
		  atomic_read(&db_errors));
	for (int d = 0; d < DB_DIRS; d++) {
		for (int f = 0; f < DB_FILES; f++) {
			snprintf(path, sizeof(path), "/dbench/d%d/f%d", d, f);
			vfs_unlink(fs_root, path);
		}
		snprintf(path, sizeof(path), "/dbench/d%d", d);
		KT_EXPECT(t, vfs_rmdir(fs_root, path) == 0, "rmdir %s", path);
	}
	KT_EXPECT(t, vfs_rmdir(fs_root, "/dbench") == 0, "rmdir /dbench");
}
