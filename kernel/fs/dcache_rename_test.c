/*
 * The rename retry, caught every time: a lock-free lookup of T is parked
 * on dentry X, which sits before T in the same hash chain, while X is
 * renamed into another chain; then the walk goes on. It follows X's
 * ->next into the new chain and never reaches T: without the rename_seq
 * recheck in d_lookup_rcu() it answers "no such name" for a file that
 * existed throughout (the dcache-rcu patch's d_move() problem, docs/fs.md).
 * With the recheck it sees rename_seq changed and walks again.
 *
 * The stress (dcache_stress.c) races the same thing at random and rarely
 * lands in the window; this test opens it on purpose through the
 * walk's fault-injection point (dcache_walk_node). Needs two CPUs: the parked
 * reader spins inside rcu_read_lock() while the renamer runs elsewhere.
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

static struct dentry *rt_x;
static int rt_state;		/* 0 armed, 1 reader parked on X, 2 X moved */
static struct dentry *rt_found;
static char rt_tname[16];

/* The walk's fault point: park on X until the test has moved it. */
static int rt_node(void *arg)
{
	struct hlist_node *n = arg;

	if (n != &rt_x->d_hash || READ_ONCE(rt_state) != 0)
		return 0;
	WRITE_ONCE(rt_state, 1);
	while (READ_ONCE(rt_state) != 2)
		cpu_relax();
	return 0;
}

static int rt_reader(void *arg)
{
	struct dentry *dir = arg;

	rt_found = d_lookup_mode(dir, rt_tname, strlen(rt_tname), DCACHE_RCU);
	return 0;
}

/* A name under dir whose hash lands (same) or does not land (!same) in bucket. */
static void pick_name(struct dentry *dir, const char *prefix, unsigned int bucket, bool same,
		      char *out, size_t size)
{
	for (int i = 0; i < 1000000; i++) {
		snprintf(out, size, "%s%d", prefix, i);
		if ((d_hash_bucket(d_hash_name(dir, out, strlen(out))) == bucket) == same)
			return;
	}
}

KTEST(fs_dcache_rename_walk)
{
	char xname[16], yname[16], path[48], to[48];
	struct dentry *p, *q, *t_d, *x_d;
	unsigned int bucket, cpu = 0;
	struct task *reader;
	int code, waited = 0;

	if (fault_set_handler(FAULT_dcache_walk_node, NULL) || num_online_cpus() < 2 ||
	    dcache_mode != DCACHE_RCU) {
		printk("dcache-rename-walk: skipped (needs CONFIG_FAULT_INJECT, 2 CPUs, dcache=rcu)\n");
		return;
	}
	if (!KT_EXPECT(t, vfs_mkdir(fs_root, "/drt", 0755) == 0 &&
		      vfs_mkdir(fs_root, "/drt/p", 0755) == 0 &&
		      vfs_mkdir(fs_root, "/drt/q", 0755) == 0, "mkdir /drt/p /drt/q"))
		return;
	path_lookup(fs_root, "/drt/p", &p);
	path_lookup(fs_root, "/drt/q", &q);
	strlcpy(rt_tname, "target", sizeof(rt_tname));
	bucket = d_hash_bucket(d_hash_name(p, rt_tname, strlen(rt_tname)));
	/* X after T in time, so ahead of it in the chain (added at the head);
	 * its new name in q hashes to another chain. */
	pick_name(p, "x", bucket, true, xname, sizeof(xname));
	pick_name(q, "y", bucket, false, yname, sizeof(yname));
	KT_EXPECT(t, vfs_create(fs_root, "/drt/p/target", 0644, true, &t_d) == 0, "create T");
	snprintf(path, sizeof(path), "/drt/p/%s", xname);
	KT_EXPECT(t, vfs_create(fs_root, path, 0644, true, &x_d) == 0, "create X %s", xname);

	rt_x = x_d;
	rt_found = NULL;
	WRITE_ONCE(rt_state, 0);
	fault_set_handler(FAULT_dcache_walk_node, rt_node);
	while (cpu == smp_processor_id() || !cpu_online(cpu))
		cpu++;
	reader = kthread_create_on_cpu(rt_reader, p, cpu, "drt_reader");
	if (reader)
		wake_up_process(reader);
	while (READ_ONCE(rt_state) != 1 && waited < 2000) {
		msleep(1);
		waited++;
	}
	KT_EXPECT(t, READ_ONCE(rt_state) == 1, "the reader never reached X in T's chain");
	snprintf(to, sizeof(to), "/drt/q/%s", yname);
	KT_EXPECT(t, vfs_rename(fs_root, path, to) == 0, "rename X away");
	WRITE_ONCE(rt_state, 2);
	if (reader)
		KT_EXPECT(t, kthread_join_timeout(reader, 10 * HZ, &code), "reader stuck");
	fault_set_handler(FAULT_dcache_walk_node, NULL);
	printk("dcache-rename-walk: lookup of T parked on X (%s) while X moved to %s: %s\n",
	       xname, yname, rt_found == t_d ? "found T" : "MISSED T (no rename retry?)");
	KT_EXPECT(t, rt_found == t_d, "a lookup racing a rename missed a file that existed throughout");
	if (rt_found)
		dput(rt_found);
	dput(t_d);
	dput(x_d);
	dput(p);
	dput(q);
	vfs_unlink(fs_root, "/drt/p/target");
	vfs_unlink(fs_root, to);
	vfs_rmdir(fs_root, "/drt/p");
	vfs_rmdir(fs_root, "/drt/q");
	vfs_rmdir(fs_root, "/drt");
}
