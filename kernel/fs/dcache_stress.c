/*
 * dcache-stress: lock-free lookups racing renames, unlinks and cache
 * shrinking on every CPU, with kmalloc poisoning on (docs/fs.md):
 *
 *   ktest=fs_dcache_rcu_stress                 passes if no lookup saw a freed
 *                                           dentry or missed a name that
 *                                           existed throughout
 *   ktest=fs_dcache_rcu_stress_expect_failure  passes if the lookups caught a
 *                                           freed dentry (for the busted RCU
 *                                           variant; manual only)
 *
 * The tree: /dstress/a and /dstress/b; STRESS_FILES files "fN" that live
 * throughout and move between a and b (d_move() across directories, the
 * case that strands a lock-free walker in the wrong hash chain); files
 * "rN" in a that an updater replaces by writing "nN" and renaming it over
 * "rN" (what editors do: the name must never be absent); and
 * STRESS_FILES names "tN" that an updater creates and unlinks (each unlink
 * leaves a negative dentry, which the shrinker drops). The shrinker
 * (dcache_shrink(), no fs lock) runs from every reader now and then, from
 * the updater, and past a bound of 8 from every unlink and rename, so
 * negative dentries are unhashed and freed under the lookups of every CPU.
 *
 * Readers, one per CPU, with dcache=rcu: d_lookup() for "fN" in a, then in
 * b. The file exists throughout, so one of the two must find it unless a
 * rename ran between the two lookups: the rename count says whether one
 * did (per file: a lost name is a double miss with no rename of that
 * file between, so a walk stranded by another file's rename counts). Each hit
 * is checked for DENTRY_MAGIC, and while holding it, after a delay in which
 * the shrinker and unlinks free what they can, again. Lookups of "tN" walk
 * chains whose dentries are being unhashed and freed under them: with a
 * grace period that ends too early, the walk reads poison.
 *
 * Without the lookup retry on rename_seq (dcache.c), the double misses
 * appear; with busted RCU, the poisoned dentries appear.
 */
#include <fs.h>
#include <ktest.h>
#include <cmdline.h>
#include <kmalloc.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <string.h>
#include <printk.h>
#include <panic.h>
#include <arch/cpu.h>
#include <fault_inject.h>
#include <errno.h>

#define STRESS_FILES	16
#define POISON_MAGIC	0x6b6b6b6b6b6b6b6bUL

static unsigned long dstress_duration_s = 2;
CMDLINE_ULONG("dcache_stress.duration", dstress_duration_s, 1, 3600,
	      "dcache_stress.duration=S: the dcache RCU stress runs S seconds (default 2, 1..3600)");

static volatile bool dstress_stopping;
static struct dentry *dir_a, *dir_b;
static atomic_t rename_gen[STRESS_FILES];	/* per file: odd while it is renamed */
static struct {
	atomic_long_t lookups, hits, lost, freed, renames, replaces, unlinks, creates, shrunk;
	atomic_t reports;
} ds;

/* Lookups that stopped on a freed dentry inside the walk (the handlers below). */
static atomic_long_t ds_freed_in_walk;

static unsigned long ds_random(unsigned long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void ds_error(atomic_long_t *kind, const char *what, const char *name)
{
	atomic_long_inc(kind);
	if (atomic_inc_return(&ds.reports) <= 10)
		printk("cpu%u: dcache-stress: ERROR: %s (%s)\n", smp_processor_id(), what, name);
	WRITE_ONCE(dstress_stopping, true);
}

/* At each node of a lock-free walk: a node pointer read from a freed
 * dentry is poison, and a node that is still linked is alive. */
static int ds_walk_node(void *arg)
{
	struct hlist_node *n = arg;

	if ((unsigned long)n == POISON_MAGIC ||
	    READ_ONCE(hlist_entry(n, struct dentry, d_hash)->d_magic) != DENTRY_MAGIC) {
		atomic_long_inc(&ds_freed_in_walk);
		return 1;
	}
	return 0;
}

/* Between finding a dentry and locking it: hold the window open, then
 * see whether the shrinker and the unlinks freed it meanwhile. */
static int ds_lookup_match(void *arg)
{
	struct dentry *d = arg;

	udelay(1 + (rdtsc() % 30));
	if (READ_ONCE(d->d_magic) != DENTRY_MAGIC) {
		atomic_long_inc(&ds_freed_in_walk);
		return 1;
	}
	return 0;
}

static void ds_arm(bool on)
{
	fault_set_handler(FAULT_dcache_walk_node, on ? ds_walk_node : NULL);
	fault_set_handler(FAULT_dcache_lookup_match, on ? ds_lookup_match : NULL);
}

/* A hit: alive now, and still alive after a delay holding the reference. */
static bool ds_check(struct dentry *d, const char *name, unsigned long *rnd)
{
	if (READ_ONCE(d->d_magic) != DENTRY_MAGIC) {
		ds_error(&ds.freed, READ_ONCE(d->d_magic) == POISON_MAGIC ?
			 "a dentry freed inside the reader" : "a dentry freed and reused", name);
		return false;
	}
	udelay(1 + ds_random(rnd) % 20);
	if (READ_ONCE(d->d_magic) != DENTRY_MAGIC) {
		ds_error(&ds.freed, "a referenced dentry freed", name);
		return false;
	}
	return true;
}

static int ds_reader(void *arg)
{
	unsigned long rnd = 0x9e3779b97f4a7c15UL ^ (unsigned long)arg;
	char name[8];

	while (!READ_ONCE(dstress_stopping)) {
		unsigned int i = ds_random(&rnd) % STRESS_FILES;
		int gen = atomic_read(&rename_gen[i]);
		struct dentry *d = NULL;
		bool tmp = ds_random(&rnd) & 1;

		if ((ds_random(&rnd) & 3) == 0) {
			/* rN is replaced by renames over it, never absent */
			snprintf(name, sizeof(name), "r%u", i);
			d = d_lookup_mode(dir_a, name, strlen(name), DCACHE_RCU);
			atomic_long_inc(&ds.lookups);
			if (d && smp_load_acquire(&d->d_inode)) {
				if (!ds_check(d, name, &rnd))
					goto out;
			} else if (!atomic_long_read(&ds_freed_in_walk)) {
				ds_error(&ds.lost, "a file replaced by a rename was absent", name);
			}
			if (d)
				dput(d);
			continue;
		}

		snprintf(name, sizeof(name), "%c%u", tmp ? 't' : 'f', i);
		for (int k = 0; k < 2 && !d; k++) {
			d = d_lookup_mode(k ? dir_b : dir_a, name, strlen(name), DCACHE_RCU);
			atomic_long_inc(&ds.lookups);
			if (atomic_long_read(&ds_freed_in_walk)) {
				/* caught: stop everyone before a freed dentry is written */
				ds_arm(false);
				WRITE_ONCE(dstress_stopping, true);
				if (d)
					dput(d);
				goto out;
			}
			if (d && !smp_load_acquire(&d->d_inode)) {
				if (!ds_check(d, name, &rnd))
					goto out;
				dput(d);
				d = NULL;
			}
		}
		if (d) {
			atomic_long_inc(&ds.hits);
			if (!ds_check(d, name, &rnd))
				goto out;	/* do not touch it again */
			dput(d);
		} else if (!tmp && !(gen & 1) && atomic_read(&rename_gen[i]) == gen) {
			ds_error(&ds.lost, "a file that existed throughout was found nowhere", name);
		}
		if ((ds_random(&rnd) & 63) == 0)	/* the shrinker, on every CPU */
			atomic_long_add(dcache_shrink(1 + ds_random(&rnd) % 8), &ds.shrunk);
		if ((ds_random(&rnd) & 255) == 0)
			schedule_timeout_uninterruptible(1);	/* a quiescent state */
	}
out:
	return 0;
}

static int ds_updater(void *arg)
{
	unsigned long rnd = 0x12345UL + (unsigned long)arg;
	char from[40], to[40];

	while (!READ_ONCE(dstress_stopping)) {
		unsigned int i = ds_random(&rnd) % STRESS_FILES, op = ds_random(&rnd) % 4;

		if ((unsigned long)arg == 0 && op < 3) {
			/* a file that lives throughout moves between a and b */
			struct dentry *d;
			bool in_a;

			snprintf(from, sizeof(from), "/dstress/a/f%u", i);
			in_a = path_lookup(fs_root, from, &d) == 0;
			if (in_a)
				dput(d);
			snprintf(from, sizeof(from), "/dstress/%c/f%u", in_a ? 'a' : 'b', i);
			snprintf(to, sizeof(to), "/dstress/%c/f%u", in_a ? 'b' : 'a', i);
			atomic_inc(&rename_gen[i]);
			if (vfs_rename(fs_root, from, to) == 0)
				atomic_long_inc(&ds.renames);
			atomic_inc(&rename_gen[i]);
		} else if (op == 3 && (unsigned long)arg == 0) {
			atomic_long_add(dcache_shrink(64), &ds.shrunk);
		} else if (op == 0) {
			/* write a new rN, then rename it over the old one */
			struct dentry *d;

			snprintf(from, sizeof(from), "/dstress/a/n%u", i);
			snprintf(to, sizeof(to), "/dstress/a/r%u", i);
			if (vfs_create(fs_root, from, 0644, true, &d) == 0) {
				dput(d);
				if (vfs_rename(fs_root, from, to) == 0)
					atomic_long_inc(&ds.replaces);
				else
					vfs_unlink(fs_root, from);
			}
		} else {
			struct dentry *d;

			snprintf(from, sizeof(from), "/dstress/%c/t%u", op & 1 ? 'a' : 'b', i);
			if (vfs_create(fs_root, from, 0644, true, &d) == 0) {
				dput(d);
				atomic_long_inc(&ds.creates);
			} else if (vfs_unlink(fs_root, from) == 0) {
				atomic_long_inc(&ds.unlinks);
			}
		}
		if ((ds_random(&rnd) & 15) == 0)
			schedule_timeout_uninterruptible(1);
	}
	return 0;
}

static bool dstress_run(struct ktest_ctx *t)
{
	struct task *tasks[CONFIG_NR_CPUS + 2];
	unsigned int n = 0, cpu, ncpus = num_online_cpus();
	struct kmalloc_stats k0, k1;
	unsigned long ms = 0, gp0 = rcu_gp_completed(), lru_max;
	long dent0;
	char path[40];
	bool ok;

	memset(&ds, 0, sizeof(ds));
	dstress_stopping = false;
	dcache_shrink(1L << 30);	/* what earlier cases left */
	rcu_barrier();
	kmalloc_get_stats(&k0);
	dent0 = nr_dentries_alive();
	KT_EXPECT(t, vfs_mkdir(fs_root, "/dstress", 0755) == 0, "mkdir /dstress");
	KT_EXPECT(t, vfs_mkdir(fs_root, "/dstress/a", 0755) == 0, "mkdir /dstress/a");
	KT_EXPECT(t, vfs_mkdir(fs_root, "/dstress/b", 0755) == 0, "mkdir /dstress/b");
	if (path_lookup(fs_root, "/dstress/a", &dir_a) || path_lookup(fs_root, "/dstress/b", &dir_b))
		return KT_EXPECT(t, false, "the stress directories");
	for (int i = 0; i < STRESS_FILES; i++) {
		struct dentry *d;

		snprintf(path, sizeof(path), "/dstress/a/f%d", i);
		if (KT_EXPECT(t, vfs_create(fs_root, path, 0644, true, &d) == 0, "%s", path))
			dput(d);
		snprintf(path, sizeof(path), "/dstress/a/r%d", i);
		if (KT_EXPECT(t, vfs_create(fs_root, path, 0644, true, &d) == 0, "%s", path))
			dput(d);
	}
	for_each_online_cpu(cpu) {
		tasks[n] = kthread_create_on_cpu(ds_reader, (void *)(unsigned long)cpu, cpu,
						 "dstress_rd%u", cpu);
		if (tasks[n])
			wake_up_process(tasks[n++]);
	}
	for (unsigned long i = 0; i < 2; i++) {
		tasks[n] = kthread_create_on_cpu(ds_updater, (void *)i, (i + 1) % ncpus,
						 "dstress_up%lu", i);
		if (tasks[n])
			wake_up_process(tasks[n++]);
	}
	atomic_long_set(&ds_freed_in_walk, 0);
	/* A small bound: every unlink and rename past it shrinks the LRU too. */
	lru_max = dcache_lru_set_max(8);
	if (fault_set_handler(FAULT_dcache_walk_node, NULL) == -ENOSYS)
		printk("dcache-stress: built without CONFIG_FAULT_INJECT: no window in d_lookup()\n");
	ds_arm(true);
	while (ms < dstress_duration_s * 1000 && !READ_ONCE(dstress_stopping)) {
		msleep(50);
		ms += 50;
	}
	WRITE_ONCE(dstress_stopping, true);
	ds_arm(false);
	for (unsigned int i = 0; i < n; i++) {
		int code;

		if (!kthread_join_timeout(tasks[i], 30 * HZ, &code))
			KT_EXPECT(t, false, "dcache-stress: thread %u did not stop", i);
	}
	/* Tear down: everything out, the negatives shrunk, the grace periods over. */
	for (int i = 0; i < STRESS_FILES; i++) {
		snprintf(path, sizeof(path), "/dstress/a/f%d", i);
		if (vfs_unlink(fs_root, path)) {
			snprintf(path, sizeof(path), "/dstress/b/f%d", i);
			KT_EXPECT(t, vfs_unlink(fs_root, path) == 0, "unlink f%d", i);
		}
		snprintf(path, sizeof(path), "/dstress/a/t%d", i);
		vfs_unlink(fs_root, path);
		snprintf(path, sizeof(path), "/dstress/b/t%d", i);
		vfs_unlink(fs_root, path);
		snprintf(path, sizeof(path), "/dstress/a/r%d", i);
		KT_EXPECT(t, vfs_unlink(fs_root, path) == 0, "unlink r%d", i);
	}
	dput(dir_a);
	dput(dir_b);
	KT_EXPECT(t, vfs_rmdir(fs_root, "/dstress/a") == 0, "rmdir a");
	KT_EXPECT(t, vfs_rmdir(fs_root, "/dstress/b") == 0, "rmdir b");
	KT_EXPECT(t, vfs_rmdir(fs_root, "/dstress") == 0, "rmdir /dstress");
	dcache_lru_set_max(lru_max);
	dcache_shrink(1L << 30);
	rcu_barrier();
	kmalloc_get_stats(&k1);

	printk("dcache-stress: %lu ms on %u CPUs, rcu=%s: lookups %ld (hits %ld); renames %ld, "
	       "renames over a name %ld, creates %ld, unlinks %ld, negative dentries shrunk %ld "
	       "(every CPU, bound 8); grace periods %lu\n",
	       ms, ncpus, rcu_variant_name(), atomic_long_read(&ds.lookups),
	       atomic_long_read(&ds.hits), atomic_long_read(&ds.renames),
	       atomic_long_read(&ds.replaces),
	       atomic_long_read(&ds.creates), atomic_long_read(&ds.unlinks),
	       atomic_long_read(&ds.shrunk), rcu_gp_completed() - gp0);
	if (atomic_long_read(&ds_freed_in_walk)) {
		atomic_long_add(atomic_long_read(&ds_freed_in_walk), &ds.freed);
		printk("dcache-stress: ERROR: %ld lookups found a dentry freed inside the walk\n",
		       atomic_long_read(&ds_freed_in_walk));
	}
	ok = !atomic_long_read(&ds.lost) && !atomic_long_read(&ds.freed);
	if (ok)
		printk("dcache-stress: SUCCESS\n");
	else
		printk("dcache-stress: FAILURE: freed=%ld lost=%ld (caught by the readers)\n",
		       atomic_long_read(&ds.freed), atomic_long_read(&ds.lost));
	KT_EXPECT(t, nr_dentries_alive() == dent0, "dentries %ld -> %ld", dent0,
		  nr_dentries_alive());
	KT_EXPECT(t, k1.objects == k0.objects && k1.bytes == k0.bytes,
		  "kmalloc objects %ld -> %ld, bytes %ld -> %ld", k0.objects, k1.objects,
		  k0.bytes, k1.bytes);
	return ok;
}

KTEST(fs_dcache_rcu_stress)
{
	KT_EXPECT(t, dstress_run(t), "dcache-stress: FAILURE");
	KT_EXPECT(t, atomic_long_read(&ds.hits) > 0 && atomic_long_read(&ds.renames) > 0 &&
		  atomic_long_read(&ds.unlinks) > 0 && atomic_long_read(&ds.shrunk) > 0,
		  "hits %ld renames %ld unlinks %ld shrunk %ld", atomic_long_read(&ds.hits),
		  atomic_long_read(&ds.renames), atomic_long_read(&ds.unlinks),
		  atomic_long_read(&ds.shrunk));
}

/* For the busted variant: passes when the readers catch a freed dentry. */
KTEST_MANUAL(fs_dcache_rcu_stress_expect_failure)
{
	/*
	 * On the busted variant the bug shows one of two ways: the readers
	 * catch a poisoned dentry (dstress_run() fails), or one of them locks
	 * a freed dentry first and kmalloc's poison check panics at the next
	 * allocation. Both end in a panic, so the case has one outcome.
	 */
	if (!dstress_run(t))
		panic("dcache-stress: a lock-free lookup caught a freed dentry, as this RCU variant must");
	KT_EXPECT(t, false, "dcache-stress reported SUCCESS; this RCU variant should fail it");
}
