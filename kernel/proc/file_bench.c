/*
 * bench_files: fget()s per second on one descriptor table shared by 1, 2,
 * 4 ... CPUs, files=rcu against files=lock in one boot (seed
 * 000's "30% improvement" for the FD-management patch). Each CPU looks up
 * its own descriptor and puts the reference, over and over for
 * files_bench.ms milliseconds, so the file's count is not shared between
 * CPUs and the difference is the lookup: files=rcu reads the table under
 * rcu_read_lock(), files=lock takes the table's spinlock, whose cache
 * line every CPU then writes. Printed as BENCH lines and a ratio; nothing
 * is judged on the numbers.
 */
#include <file.h>
#include <ktest.h>
#include <cmdline.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <printk.h>

static unsigned long fbench_ms = 300;
CMDLINE_ULONG("files_bench.ms", fbench_ms, 10, 60000,
	      "files_bench.ms=MS: each fget() bench point runs MS ms (default 300)");

static struct files fb_files;
static volatile bool fb_stop;
static u64 fb_deadline;		/* the workers stop themselves: CPU 0's one never yields */
static enum files_mode fb_mode;
static atomic_long_t fb_gets;
static atomic_t fb_errors;

static const struct file_ops fbench_ops = {
	.name	= "files-bench",
};

static int fb_worker(void *arg)
{
	int fd = 3 + (unsigned long)arg;
	unsigned long n = 0;

	while (!READ_ONCE(fb_stop)) {
		struct file *f = files_fget(&fb_files, fd, fb_mode);

		if (!f) {
			atomic_inc(&fb_errors);
			break;
		}
		file_put(f);
		if ((++n & 63) == 0 && ktime_get_ns() > READ_ONCE(fb_deadline))
			break;
	}
	atomic_long_add(n, &fb_gets);
	return 0;
}

static unsigned long fb_point(struct ktest_ctx *t, enum files_mode mode, unsigned int ncpus)
{
	struct task *tasks[CONFIG_NR_CPUS];
	unsigned int n = 0;
	u64 t0, t1;

	fb_mode = mode;
	fb_stop = false;
	atomic_long_set(&fb_gets, 0);
	t0 = ktime_get_ns();
	fb_deadline = t0 + fbench_ms * 1000000UL;
	for (unsigned int cpu = 0; cpu < ncpus; cpu++) {
		tasks[n] = kthread_create_on_cpu(fb_worker, (void *)(unsigned long)cpu, cpu,
						 "fbench%u", cpu);
		if (tasks[n])
			wake_up_process(tasks[n++]);
	}
	msleep(fbench_ms);
	WRITE_ONCE(fb_stop, true);
	for (unsigned int i = 0; i < n; i++) {
		int code;

		KT_EXPECT(t, kthread_join_timeout(tasks[i], 30 * HZ, &code), "worker %u", i);
	}
	t1 = ktime_get_ns();
	unsigned long rate = atomic_long_read(&fb_gets) * 1000000000UL / (t1 - t0 ? t1 - t0 : 1);

	bench_json("{\"bench\":\"fget\",\"variant\":\"%s\",\"files\":\"%s\","
		   "\"cpus\":%u,\"fget_per_s\":%lu}", rcu_variant_name(),
		   mode == FILES_RCU ? "rcu" : "lock", ncpus, rate);
	return rate;
}

KTEST(bench_files)
{
	unsigned int online = num_online_cpus();

	if (!KT_EXPECT(t, files_init(&fb_files) == 0, "files_init"))
		return;
	/* 3 + CONFIG_NR_CPUS descriptors: past 16, so the table has grown */
	for (int fd = 0; fd < 3 + CONFIG_NR_CPUS; fd++) {
		struct file *f = file_alloc(&fbench_ops, NULL, QS_O_RDWR);

		if (!KT_EXPECT(t, f && files_install(&fb_files, f, 0) == fd, "fd %d", fd)) {
			if (f)
				file_put(f);
			break;
		}
	}
	atomic_set(&fb_errors, 0);
	for (unsigned int n = 1; n <= online; n *= 2) {
		unsigned long r = fb_point(t, FILES_RCU, n), l = fb_point(t, FILES_LOCK, n);

		if (!l)
			l = 1;
		printk("files-bench: %u CPUs: files=rcu %lu fget/s, files=lock %lu fget/s, "
		       "rcu/lock %lu.%02lu\n", n, r, l, r / l, (r * 100 / l) % 100);
	}
	KT_EXPECT(t, atomic_read(&fb_errors) == 0, "%d fget()s missed an open descriptor",
		  atomic_read(&fb_errors));
	files_close_all(&fb_files);
}
