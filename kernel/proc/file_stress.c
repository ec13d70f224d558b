/*
 * files-stress: lock-free fget()s on every CPU racing table growth,
 * close() and dup2() on one shared descriptor table, with kmalloc
 * poisoning on (docs/files.md):
 *
 *   ktest=files_rcu_stress                 passes if no fget() met a freed
 *                                          table or file, and files and
 *                                          kmalloc are back at their baseline
 *   ktest=files_rcu_stress_expect_failure  passes if an fget() met a freed
 *                                          table or file (for the busted RCU
 *                                          variant; manual only)
 *
 * Processes never share a table (fork copies it), so the threads of this
 * test are the only place where a lookup runs beside another thread of
 * control's close(): they share one struct files, as threads with
 * CLONE_FILES would.
 *
 * Readers, one per CPU: files_fget(FILES_RCU) of a random descriptor,
 * with its fault points (fget_fdt, fget_file) armed so that the lookup waits between loading
 * the table or the slot and using it, then checks the magic (file.c).
 * A reference it gets is checked for FILE_MAGIC and a non-zero count,
 * again after a delay: the file must live while referenced.
 *
 * The grower fills the table up to a random size (16 -> 32 -> ... ->
 * 256: every doubling frees the old table through call_rcu()), then
 * files_reset()s it back to 16 slots, putting every file. The closer
 * closes, dup2()s (which drops the file it replaces) and installs new
 * files at random. With a grace period that ends too early, a reader
 * finds a freed table or file, poisoned.
 */
#include <file.h>
#include <ktest.h>
#include <cmdline.h>
#include <kmalloc.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <printk.h>
#include <string.h>
#include <arch/cpu.h>
#include <fault_inject.h>

/* fget()s that met a freed table or file in the window (below). */
static atomic_long_t fs_freed_seen;

static unsigned long fstress_duration_s = 2;
CMDLINE_ULONG("files_stress.duration", fstress_duration_s, 1, 3600,
	      "files_stress.duration=S: the descriptor-table RCU stress runs S seconds (default 2, 1..3600)");

static struct files fst;
static volatile bool fst_stopping;
static struct {
	atomic_long_t lookups, hits, freed, grown, resets, closes, dup2s, installs;
	atomic_t reports;
} fs_st;

static const struct file_ops fstress_ops = {
	.name	= "files-stress",
};

static unsigned long fs_random(unsigned long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void fs_error(const char *what, int fd)
{
	atomic_long_inc(&fs_st.freed);
	if (atomic_inc_return(&fs_st.reports) <= 10)
		printk("cpu%u: files-stress: ERROR: %s (fd %d)\n", smp_processor_id(), what, fd);
	WRITE_ONCE(fst_stopping, true);
}

static bool fs_check(struct file *f, int fd)
{
	if (READ_ONCE(f->magic) != FILE_MAGIC || atomic_read(&f->ref) <= 0) {
		fs_error(READ_ONCE(f->magic) == 0x6b6b6b6bu ? "a referenced file freed (poison)"
							    : "a referenced file freed and reused", fd);
		return false;
	}
	return true;
}

/* The window after each of fget()'s loads: held open a little, then the
 * magic says whether a grace period ended under it. */
static int fs_window(void *arg, unsigned int magic_off, unsigned int want)
{
	udelay(1 + (rdtsc() % 20));
	if (READ_ONCE(*(unsigned int *)((char *)arg + magic_off)) == want)
		return 0;
	atomic_long_inc(&fs_freed_seen);
	return 1;
}

static int fs_window_fdt(void *arg)
{
	return fs_window(arg, offsetof(struct fdtable, magic), FDTABLE_MAGIC);
}

static int fs_window_file(void *arg)
{
	return fs_window(arg, offsetof(struct file, magic), FILE_MAGIC);
}

static void fs_arm(bool on)
{
	fault_set_handler(FAULT_fget_fdt, on ? fs_window_fdt : NULL);
	fault_set_handler(FAULT_fget_file, on ? fs_window_file : NULL);
}

static int fs_reader(void *arg)
{
	unsigned long rnd = 0x9e3779b97f4a7c15UL ^ (unsigned long)arg, n = 0;

	while (!READ_ONCE(fst_stopping)) {
		int fd = fs_random(&rnd) % QS_OPEN_MAX;
		struct file *f = files_fget(&fst, fd, FILES_RCU);

		atomic_long_inc(&fs_st.lookups);
		if (atomic_long_read(&fs_freed_seen)) {
			/* caught: stop everyone before a freed file is written */
			fs_arm(false);
			WRITE_ONCE(fst_stopping, true);
			if (f)
				file_put(f);
			break;
		}
		if (f) {
			atomic_long_inc(&fs_st.hits);
			if (!fs_check(f, fd))
				break;		/* do not touch it again */
			udelay(1 + fs_random(&rnd) % 10);
			if (!fs_check(f, fd))
				break;
			file_put(f);
		}
		if ((++n & 255) == 0)
			schedule_timeout_uninterruptible(1);	/* a quiescent state */
	}
	return 0;
}

static struct file *fs_new_file(void)
{
	return file_alloc(&fstress_ops, NULL, QS_O_RDWR);
}

static int fs_grower(void *arg)
{
	unsigned long rnd = 0x12345UL;

	while (!READ_ONCE(fst_stopping)) {
		unsigned int target = FDTABLE_START + fs_random(&rnd) % (QS_OPEN_MAX - FDTABLE_START);
		unsigned int max = files_max_fds(&fst);

		for (unsigned int i = 0; i < target && !READ_ONCE(fst_stopping); i++) {
			struct file *f = fs_new_file();

			if (!f)
				break;
			if (files_install(&fst, f, 0) < 0) {
				file_put(f);
				break;
			}
			atomic_long_inc(&fs_st.installs);
			if (files_max_fds(&fst) > max) {
				max = files_max_fds(&fst);
				atomic_long_inc(&fs_st.grown);
			}
			if ((i & 15) == 0)
				schedule_timeout_uninterruptible(1);
		}
		if (files_reset(&fst) == 0)
			atomic_long_inc(&fs_st.resets);
		schedule_timeout_uninterruptible(1);
	}
	return 0;
}

static int fs_closer(void *arg)
{
	unsigned long rnd = 0x6789UL;

	while (!READ_ONCE(fst_stopping)) {
		int a = fs_random(&rnd) % QS_OPEN_MAX, b = fs_random(&rnd) % QS_OPEN_MAX;
		struct file *f;

		switch (fs_random(&rnd) % 3) {
		case 0:
			if (files_close(&fst, a) == 0)
				atomic_long_inc(&fs_st.closes);
			break;
		case 1:
			if (files_dup2(&fst, a, b) == b)
				atomic_long_inc(&fs_st.dup2s);
			break;
		default:
			if (!(f = fs_new_file()))
				break;
			if (files_install(&fst, f, a) < 0)
				file_put(f);
			else
				atomic_long_inc(&fs_st.installs);
		}
		if ((fs_random(&rnd) & 15) == 0)
			schedule_timeout_uninterruptible(1);
	}
	return 0;
}

static bool fstress_run(struct ktest_ctx *t)
{
	struct task *tasks[CONFIG_NR_CPUS + 2];
	unsigned int n = 0, cpu, ncpus = num_online_cpus();
	struct kmalloc_stats k0, k1;
	unsigned long ms = 0, gp0 = rcu_gp_completed();
	long files0;
	bool ok;

	memset(&fs_st, 0, sizeof(fs_st));
	fst_stopping = false;
	rcu_barrier();
	kmalloc_get_stats(&k0);
	files0 = nr_files_alive();
	if (!KT_EXPECT(t, files_init(&fst) == 0, "files_init"))
		return false;
	for_each_online_cpu(cpu) {
		tasks[n] = kthread_create_on_cpu(fs_reader, (void *)(unsigned long)cpu, cpu,
						 "fstress_rd%u", cpu);
		if (tasks[n])
			wake_up_process(tasks[n++]);
	}
	tasks[n] = kthread_create_on_cpu(fs_grower, NULL, 1 % ncpus, "fstress_grow");
	if (tasks[n])
		wake_up_process(tasks[n++]);
	tasks[n] = kthread_create_on_cpu(fs_closer, NULL, 2 % ncpus, "fstress_close");
	if (tasks[n])
		wake_up_process(tasks[n++]);
	atomic_long_set(&fs_freed_seen, 0);
	fs_arm(true);
	while (ms < fstress_duration_s * 1000 && !READ_ONCE(fst_stopping)) {
		msleep(50);
		ms += 50;
	}
	WRITE_ONCE(fst_stopping, true);
	fs_arm(false);
	for (unsigned int i = 0; i < n; i++) {
		int code;

		if (!kthread_join_timeout(tasks[i], 30 * HZ, &code))
			KT_EXPECT(t, false, "files-stress: thread %u did not stop", i);
	}
	files_close_all(&fst);
	rcu_barrier();
	kmalloc_get_stats(&k1);

	printk("files-stress: %lu ms on %u CPUs, rcu=%s: fget %ld (hits %ld); installs %ld, "
	       "tables grown %ld, resets %ld, closes %ld, dup2s %ld; grace periods %lu\n",
	       ms, ncpus, rcu_variant_name(), atomic_long_read(&fs_st.lookups),
	       atomic_long_read(&fs_st.hits), atomic_long_read(&fs_st.installs),
	       atomic_long_read(&fs_st.grown), atomic_long_read(&fs_st.resets),
	       atomic_long_read(&fs_st.closes), atomic_long_read(&fs_st.dup2s),
	       rcu_gp_completed() - gp0);
	if (atomic_long_read(&fs_freed_seen)) {
		atomic_long_add(atomic_long_read(&fs_freed_seen), &fs_st.freed);
		printk("files-stress: ERROR: %ld fget()s met a freed table or file\n",
		       atomic_long_read(&fs_freed_seen));
	}
	ok = !atomic_long_read(&fs_st.freed);
	if (ok)
		printk("files-stress: SUCCESS\n");
	else
		printk("files-stress: FAILURE: freed=%ld (caught by the readers)\n",
		       atomic_long_read(&fs_st.freed));
	KT_EXPECT(t, nr_files_alive() == files0, "open files %ld -> %ld", files0, nr_files_alive());
	KT_EXPECT(t, k1.objects == k0.objects && k1.bytes == k0.bytes,
		  "kmalloc objects %ld -> %ld, bytes %ld -> %ld", k0.objects, k1.objects,
		  k0.bytes, k1.bytes);
	return ok;
}

KTEST(files_rcu_stress)
{
	KT_EXPECT(t, fstress_run(t), "files-stress: FAILURE");
	KT_EXPECT(t, atomic_long_read(&fs_st.hits) > 0 && atomic_long_read(&fs_st.grown) > 0 &&
		  atomic_long_read(&fs_st.closes) > 0 && atomic_long_read(&fs_st.dup2s) > 0,
		  "hits %ld grown %ld closes %ld dup2s %ld", atomic_long_read(&fs_st.hits),
		  atomic_long_read(&fs_st.grown), atomic_long_read(&fs_st.closes),
		  atomic_long_read(&fs_st.dup2s));
}

/* For the busted variant: passes when the readers catch a freed table or file. */
KTEST_MANUAL(files_rcu_stress_expect_failure)
{
	KT_EXPECT(t, !fstress_run(t), "files-stress reported SUCCESS; this RCU variant should fail it");
}

/*
 * ktest=files_dup2_atomic: dup2() onto an open descriptor replaces its
 * file in one store (POSIX: newfd is closed atomically), so a lock-free
 * fget() of that descriptor on another CPU finds the old file or the
 * new one, never an empty slot. Readers on every CPU but the first look
 * fd 5 up in a loop while a thread on CPU 0 dup2()s fds 1 and 2 onto it
 * in turn; a lookup that finds nothing is counted. Before the fix dup2
 * cleared the slot and then stored the new file (both under the lock),
 * and the readers found the gap.
 */
static struct files d2t;
static volatile bool d2_stopping;
static atomic_long_t d2_lookups, d2_missing, d2_swaps;

static int d2_reader(void *arg)
{
	unsigned long n = 0;

	while (!READ_ONCE(d2_stopping)) {
		struct file *f = files_fget(&d2t, 5, FILES_RCU);

		if (f)
			file_put(f);
		else
			atomic_long_inc(&d2_missing);
		atomic_long_inc(&d2_lookups);
		if ((++n & 1023) == 0)
			schedule_timeout_uninterruptible(1);	/* a quiescent state */
	}
	return 0;
}

static int d2_swapper(void *arg)
{
	unsigned long n = 0;

	while (!READ_ONCE(d2_stopping)) {
		if (files_dup2(&d2t, 1 + (n & 1), 5) == 5)
			atomic_long_inc(&d2_swaps);
		if ((++n & 1023) == 0)
			schedule_timeout_uninterruptible(1);
	}
	return 0;
}

KTEST(files_dup2_atomic)
{
	struct task *tasks[CONFIG_NR_CPUS];
	unsigned int n = 0, cpu;
	long files0 = nr_files_alive();
	int fd;

	atomic_long_set(&d2_lookups, 0);
	atomic_long_set(&d2_missing, 0);
	atomic_long_set(&d2_swaps, 0);
	d2_stopping = false;
	if (!KT_EXPECT(t, files_init(&d2t) == 0, "files_init"))
		return;
	for (fd = 0; fd < 6; fd++) {
		struct file *f = fs_new_file();

		if (!KT_EXPECT(t, f && files_install(&d2t, f, 0) == fd, "install fd %d", fd)) {
			if (f)
				file_put(f);
			goto out;
		}
	}
	if (!KT_EXPECT(t, num_online_cpus() > 1, "needs two CPUs"))
		goto out;
	for_each_online_cpu(cpu) {
		tasks[n] = cpu ? kthread_create_on_cpu(d2_reader, NULL, cpu, "d2_rd%u", cpu)
			       : kthread_create_on_cpu(d2_swapper, NULL, cpu, "d2_swap");
		if (tasks[n])
			wake_up_process(tasks[n++]);
	}
	msleep(500);
	WRITE_ONCE(d2_stopping, true);
	for (unsigned int i = 0; i < n; i++) {
		int code;

		if (!kthread_join_timeout(tasks[i], 30 * HZ, &code))
			KT_EXPECT(t, false, "files-dup2: thread %u did not stop", i);
	}
	printk("files-dup2: %ld dup2()s onto fd 5, %ld lock-free lookups of it, %ld found "
	       "it empty\n", atomic_long_read(&d2_swaps), atomic_long_read(&d2_lookups),
	       atomic_long_read(&d2_missing));
	KT_EXPECT(t, atomic_long_read(&d2_missing) == 0,
		  "dup2 left fd 5 empty for %ld lookups", atomic_long_read(&d2_missing));
	KT_EXPECT(t, atomic_long_read(&d2_swaps) > 0 && atomic_long_read(&d2_lookups) > 0,
		  "swaps %ld lookups %ld", atomic_long_read(&d2_swaps),
		  atomic_long_read(&d2_lookups));
out:
	files_close_all(&d2t);
	rcu_barrier();
	KT_EXPECT(t, nr_files_alive() == files0, "open files %ld -> %ld", files0, nr_files_alive());
}
