/*
 * A rename over an existing name is atomic: a file that exists
 * throughout, replaced again and again by write-a-temporary-then-rename
 * (what every editor and package manager does), is never missing to a
 * lookup. The rename is held, through its fault point, at the moment the
 * old target has left the hash and the new one is not yet in it, while a
 * reader on another CPU looks the name up; it must wait (rename_seq, or
 * dcache_lock with dcache=lock) and then find the new file, never
 * answer "no such file". Needs two CPUs.
 */
#include <fs.h>
#include <ktest.h>
#include <sched.h>
#include <smp.h>
#include <string.h>
#include <time.h>
#include <printk.h>
#include <arch/cpu.h>
#include <fault_inject.h>

#define REPLACE_ROUNDS	200

static volatile bool rr_stop;
static atomic_long_t rr_lookups, rr_missed;

/* Hold the rename open long enough for the reader to look. */
static int rr_hold(void *arg)
{
	udelay(200);
	return 0;
}

static int rr_reader(void *arg)
{
	while (!READ_ONCE(rr_stop)) {
		struct dentry *d;

		atomic_long_inc(&rr_lookups);
		if (path_lookup(fs_root, "/drr/target", &d) == 0)
			dput(d);
		else
			atomic_long_inc(&rr_missed);
		cpu_relax();
	}
	return 0;
}

static void rr_run(struct ktest_ctx *t, enum dcache_mode mode)
{
	enum dcache_mode was = dcache_mode;
	unsigned int cpu = 0;
	struct task *reader;
	struct dentry *d;
	int code, err = 0, i;

	dcache_mode = mode;
	atomic_long_set(&rr_lookups, 0);
	atomic_long_set(&rr_missed, 0);
	WRITE_ONCE(rr_stop, false);
	while (cpu == smp_processor_id() || !cpu_online(cpu))
		cpu++;
	reader = kthread_create_on_cpu(rr_reader, NULL, cpu, "drr_reader");
	if (!KT_EXPECT(t, reader, "no reader thread"))
		goto out;
	wake_up_process(reader);
	fault_set_handler(FAULT_rename_target_unhashed, rr_hold);
	for (i = 0; i < REPLACE_ROUNDS && !err; i++) {
		err = vfs_create(fs_root, "/drr/tmp", 0644, true, &d);
		if (!err) {
			dput(d);
			err = vfs_rename(fs_root, "/drr/tmp", "/drr/target");
		}
	}
	fault_set_handler(FAULT_rename_target_unhashed, NULL);
	WRITE_ONCE(rr_stop, true);
	KT_EXPECT(t, kthread_join_timeout(reader, 10 * HZ, &code), "reader stuck");
	KT_EXPECT(t, !err, "create and rename over the target: %d in round %d", err, i);
	printk("dcache-rename-replace: dcache=%s: %d renames over /drr/target, %ld lookups, "
	       "%ld found no such file\n", mode == DCACHE_RCU ? "rcu" : "lock", i,
	       atomic_long_read(&rr_lookups), atomic_long_read(&rr_missed));
	KT_EXPECT(t, atomic_long_read(&rr_missed) == 0,
		  "dcache=%s: %ld lookups missed a name that existed throughout its renames",
		  mode == DCACHE_RCU ? "rcu" : "lock", atomic_long_read(&rr_missed));
out:
	dcache_mode = was;
}

KTEST(fs_dcache_rename_replace)
{
	struct dentry *d;

	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs 2 CPUs: the reader looks while the rename stands");
		return;
	}
	if (fault_set_handler(FAULT_rename_target_unhashed, NULL)) {
		ktest_skip(t, "needs CONFIG_FAULT_INJECT: the rename is held at its fault point");
		return;
	}
	KT_ASSERT(t, vfs_mkdir(fs_root, "/drr", 0755) == 0, "mkdir /drr");
	KT_ASSERT(t, vfs_create(fs_root, "/drr/target", 0644, true, &d) == 0, "create target");
	dput(d);
	rr_run(t, DCACHE_RCU);
	rr_run(t, DCACHE_LOCK);
	KT_EXPECT(t, vfs_unlink(fs_root, "/drr/target") == 0, "unlink target");
	KT_EXPECT(t, vfs_rmdir(fs_root, "/drr") == 0, "rmdir /drr");
}
