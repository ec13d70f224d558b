/*
 * The dentry cache: every name of the tree, hashed by (parent, name).
 *
 * dcache=rcu (the default) is the dcache-rcu patch (Linux 2.5.62, seed
 * 000's "25% improvement" for dcache management): d_lookup() walks the
 * hash chain under rcu_read_lock() and takes no global lock; on a match it
 * takes the dentry's own d_lock, checks that it is still hashed and still
 * the (parent, name) asked for, and only then takes a reference. A dentry
 * leaves the hash (d_delete()) before its cache reference is dropped, and
 * its memory goes through call_rcu() when the last reference does, so a
 * reader that reached it through the chain may still read it.
 *
 * dcache=lock is the kernel before the patch: d_lookup() takes the global
 * dcache_lock for the walk. Writers take dcache_lock in both modes.
 *
 * Renames: d_move() takes a dentry out of one hash chain and puts it in
 * another. A lock-free reader standing on it follows its next pointer into
 * the new chain and so may skip the rest of the old one: a miss for a name
 * that existed throughout. The patch answered this with a per-dentry move
 * count (d_move_count) that the lookup rechecked; we use one global
 * sequence count, rename_seq, as Linux did later (rename_lock): d_move()
 * makes it odd while it moves, and a lookup that missed retries if it
 * changed during the walk. A hit needs no retry: it was checked under the
 * dentry's d_lock against the name and parent that d_move() changes under
 * that same lock.
 */
#include <fs.h>
#include <rculist.h>
#include <kmalloc.h>
#include <string.h>
#include <cmdline.h>
#include <printk.h>
#include <panic.h>
#include <barrier.h>
#include <errno.h>
#include <lockdep.h>
#include <time.h>
#include <fault_inject.h>
#include "dcache_lru.h"

#define D_HASH_BITS	10
#define D_HASH_SIZE	(1u << D_HASH_BITS)

enum dcache_mode dcache_mode = DCACHE_RCU;
spinlock_t dcache_lock;
static struct hlist_head dentry_hashtable[D_HASH_SIZE];
static unsigned long rename_seq;	/* odd while d_move() runs (under dcache_lock) */
static atomic_long_t dentries_alive;

static int set_dcache_mode(const char *val)
{
	if (val && !strcmp(val, "rcu"))
		dcache_mode = DCACHE_RCU;
	else if (val && !strcmp(val, "lock"))
		dcache_mode = DCACHE_LOCK;
	else
		return -EINVAL;
	return 0;
}
CMDLINE_PARAM("dcache", set_dcache_mode,
	      "dcache=rcu|lock: path lookup under RCU (default) or the global dcache_lock");

long nr_dentries_alive(void)
{
	return atomic_long_read(&dentries_alive);
}

unsigned long dcache_rename_seq(void)
{
	return READ_ONCE(rename_seq);
}

unsigned int d_hash_name(const struct dentry *parent, const char *name, unsigned int len)
{
	unsigned long h = (unsigned long)parent >> 4;

	for (unsigned int i = 0; i < len; i++)
		h = h * 31 + (unsigned char)name[i];
	return (unsigned int)(h ^ (h >> 29));
}

unsigned int d_hash_bucket(unsigned int h)
{
	return h & (D_HASH_SIZE - 1);
}

static struct hlist_head *d_bucket(unsigned int h)
{
	return &dentry_hashtable[h & (D_HASH_SIZE - 1)];
}

/* Under d->d_lock: still hashed and still (parent, name)? */
static bool d_matches(struct dentry *d, struct dentry *parent, const char *name,
		      unsigned int len)
{
	return !d->d_unhashed && d->d_parent == parent && d->d_len == len &&
	       !memcmp(d->d_name, name, len);
}

/* The LRU's second chance (dcache_lru.c): a store only when it was clear,
 * so a dentry that every CPU looks up does not bounce its line. */
static inline void d_mark_referenced(struct dentry *d)
{
	if (!READ_ONCE(d->d_referenced))
		WRITE_ONCE(d->d_referenced, true);
}

static struct dentry *d_lookup_rcu(struct dentry *parent, const char *name,
				   unsigned int len, unsigned int h)
{
	struct dentry *d;
	unsigned long seq;

retry:
	/* A d_move() in progress: wait for it to finish before walking. */
	while ((seq = smp_load_acquire(&rename_seq)) & 1)
		cpu_relax();
	rcu_read_lock();
	for (struct hlist_node *n = rcu_dereference(hlist_first_rcu(d_bucket(h))), *next; n; n = next) {
		/* Tests park the walk here, or stop it (nonzero) on a node
		 * they find freed, before anything of it is read. */
		if (fault_inject(dcache_walk_node, n))
			break;
		d = hlist_entry(n, struct dentry, d_hash);
		next = rcu_dereference(hlist_next_rcu(n));
		/* Unlocked filters: d_move() may change them under us, and the
		 * check under d_lock below is the one that counts. */
		if (READ_ONCE(d->d_namehash) != h || READ_ONCE(d->d_parent) != parent)
			continue;
		/* The window between finding d and locking it, where a grace
		 * period that ends too early frees it. */
		if (fault_inject(dcache_lookup_match, d))
			break;
		spin_lock(&d->d_lock);
		if (!d_matches(d, parent, name, len)) {
			spin_unlock(&d->d_lock);
			continue;
		}
		/* Hashed, so the cache's reference is still there: > 0. */
		atomic_inc(&d->d_count);
		spin_unlock(&d->d_lock);
		rcu_read_unlock();
		d_mark_referenced(d);
		return d;
	}
	rcu_read_unlock();
	/* Order the chain's loads before the recheck (pairs with d_move()'s
	 * smp_wmb()s): a rename that moved a dentry under us shows here. */
	smp_rmb();
	if (READ_ONCE(rename_seq) != seq)
		goto retry;
	return NULL;
}

static struct dentry *d_lookup_locked(struct dentry *parent, const char *name,
				      unsigned int len, unsigned int h)
{
	struct dentry *d, *found = NULL;

	spin_lock(&dcache_lock);
	hlist_for_each_entry(d, d_bucket(h), d_hash) {
		if (d->d_namehash != h || d->d_parent != parent)
			continue;
		spin_lock(&d->d_lock);
		if (d_matches(d, parent, name, len)) {
			atomic_inc(&d->d_count);
			found = d;
		}
		spin_unlock(&d->d_lock);
		if (found)
			break;
	}
	spin_unlock(&dcache_lock);
	if (found)
		d_mark_referenced(found);
	return found;
}

struct dentry *d_lookup_mode(struct dentry *parent, const char *name, unsigned int len,
			     enum dcache_mode mode)
{
	unsigned int h = d_hash_name(parent, name, len);

	return mode == DCACHE_RCU ? d_lookup_rcu(parent, name, len, h)
				  : d_lookup_locked(parent, name, len, h);
}

/* The child of parent called name (positive or negative), referenced; or NULL. */
struct dentry *d_lookup(struct dentry *parent, const char *name, unsigned int len)
{
	return d_lookup_mode(parent, name, len, READ_ONCE(dcache_mode));
}

struct dentry *dget(struct dentry *d)
{
	atomic_inc(&d->d_count);
	return d;
}

static struct dentry *__d_alloc(const char *name, unsigned int len)
{
	struct dentry *d = fs_kzalloc(sizeof(*d));

	if (!d)
		return NULL;
	spin_lock_init(&d->d_lock, "dentry");
	INIT_HLIST_NODE(&d->d_hash);
	INIT_LIST_HEAD(&d->d_lru);
	INIT_LIST_HEAD(&d->d_child);
	INIT_LIST_HEAD(&d->d_subdirs);
	memcpy(d->d_name, name, len);
	d->d_len = len;
	d->d_magic = DENTRY_MAGIC;
	atomic_long_inc(&dentries_alive);
	return d;
}

struct dentry *d_alloc_root(struct inode *inode)
{
	struct dentry *d = __d_alloc("/", 1);

	if (!d)
		return NULL;
	d->d_parent = d;
	d->d_inode = inode;
	d->d_unhashed = true;		/* never in the hash: lookups start from it */
	atomic_set(&d->d_count, 1);
	return d;
}

struct dentry *d_alloc(struct dentry *parent, const char *name, unsigned int len,
		       struct inode *inode)
{
	struct dentry *d = __d_alloc(name, len);

	if (!d)
		return NULL;
	d->d_parent = dget(parent);
	d->d_inode = inode;
	d->d_namehash = d_hash_name(parent, name, len);
	atomic_set(&d->d_count, 2);	/* the cache's and the caller's */
	spin_lock(&dcache_lock);
	/* At the tail with the next position: getdents resumes after a
	 * position, so a name added or removed never shifts another. */
	d->d_dirpos = ++parent->d_dirseq;
	list_add_tail(&d->d_child, &parent->d_subdirs);
	/* hlist_add_head_rcu() publishes the initialised dentry (its barrier). */
	hlist_add_head_rcu(&d->d_hash, d_bucket(d->d_namehash));
	if (!inode)
		d_lru_add(d);	/* negative: the shrinker may take it once unused */
	spin_unlock(&dcache_lock);
	if (!inode)
		dcache_lru_enforce();
	return d;
}

void d_instantiate(struct dentry *d, struct inode *inode)
{
	spin_lock(&dcache_lock);
	d_lru_del(d);		/* positive: it is the file now, never reclaimed */
	spin_lock(&d->d_lock);
	smp_store_release(&d->d_inode, inode);
	spin_unlock(&d->d_lock);
	spin_unlock(&dcache_lock);
}

/* Unhash d for good, under dcache_lock; false if it already was. The
 * caller drops the cache's reference after unlocking. */
static bool d_unhash_locked(struct dentry *d)
{
	lockdep_assert_held(&dcache_lock);
	spin_lock(&d->d_lock);
	if (d->d_unhashed) {
		spin_unlock(&d->d_lock);
		return false;
	}
	/* From here no lookup takes a new reference (d_matches() fails), so
	 * once the references taken before are dropped, none can come back. */
	d->d_unhashed = true;
	hlist_del_rcu(&d->d_hash);	/* keeps ->next: a reader on it walks on */
	spin_unlock(&d->d_lock);
	d_lru_del(d);
	return true;
}

void d_delete(struct dentry *d)
{
	bool gone;

	spin_lock(&dcache_lock);
	gone = d_unhash_locked(d);
	spin_unlock(&dcache_lock);
	if (gone)
		dput(d);		/* the cache's reference */
}

bool __d_unhash_unused(struct dentry *d)
{
	bool unused;

	lockdep_assert_held(&dcache_lock);
	/* Under d_lock, the lock d_lookup() takes its reference under: once
	 * d_unhashed is set here, no lookup can take a reference, and the
	 * count of 1 says none holds one now. */
	spin_lock(&d->d_lock);
	unused = !d->d_unhashed && !d->d_inode && atomic_read(&d->d_count) == 1;
	if (unused) {
		d->d_unhashed = true;
		hlist_del_rcu(&d->d_hash);	/* keeps ->next for readers on it */
	}
	spin_unlock(&d->d_lock);
	return unused;
}

static void d_free_rcu(void *arg)
{
	struct dentry *d = arg;

	dcache_note_cb_latency(ktime_get_ns() - d->d_queued_ns);
	if (d->d_inode)
		ramfs_free_inode(d->d_inode);
	d->d_magic = 0;
	kfree(d);
	atomic_long_dec(&dentries_alive);
}

void dput(struct dentry *d)
{
	struct dentry *parent;

	if (!atomic_dec_and_test(&d->d_count))
		return;
	if (WARN_ON(!d->d_unhashed || d->d_parent == d))
		return;
	spin_lock(&dcache_lock);
	WARN_ON(!list_empty(&d->d_lru));
	list_del(&d->d_child);
	parent = d->d_parent;
	spin_unlock(&dcache_lock);
	/* Readers that found it in the chain before d_delete() may still be
	 * comparing its name: free it after they are done. */
	d->d_queued_ns = ktime_get_ns();
	call_rcu(&d->d_rcu, d_free_rcu, d);
	dput(parent);
}

/*
 * The target leaves the hash in the same critical section in which d
 * takes its name, dcache_lock held and rename_seq odd throughout: a
 * lookup under the lock, or one that sees the sequence move, finds the
 * old target or d under the name, never neither (Linux's d_move(dentry,
 * target)). Unhashing it in a section of its own first (d_delete())
 * left a moment in which the name, which existed throughout, was absent.
 */
void d_move(struct dentry *d, struct dentry *target, struct dentry *parent,
	    const char *name, unsigned int len)
{
	struct dentry *old;
	unsigned int h = d_hash_name(parent, name, len);
	bool target_gone = false;

	dget(parent);
	spin_lock(&dcache_lock);
	WRITE_ONCE(rename_seq, rename_seq + 1);
	smp_wmb();		/* odd before any chain changes (d_lookup_rcu()'s smp_rmb) */
	if (target)
		target_gone = d_unhash_locked(target);
	fault_inject(rename_target_unhashed, target);
	spin_lock(&d->d_lock);
	hlist_del_rcu(&d->d_hash);
	old = d->d_parent;
	memcpy(d->d_name, name, len);
	d->d_name[len] = 0;
	d->d_len = len;
	WRITE_ONCE(d->d_namehash, h);
	WRITE_ONCE(d->d_parent, parent);
	d->d_dirpos = ++parent->d_dirseq;
	list_move_tail(&d->d_child, &parent->d_subdirs);
	hlist_add_head_rcu(&d->d_hash, d_bucket(h));
	spin_unlock(&d->d_lock);
	smp_wmb();		/* the chains settled before the count is even again */
	WRITE_ONCE(rename_seq, rename_seq + 1);
	spin_unlock(&dcache_lock);
	if (target_gone)
		dput(target);		/* the cache's reference */
	dput(old);
}

void dcache_init(void)
{
	spin_lock_init(&dcache_lock, "dcache_lock");
}
