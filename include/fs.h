/*
 * The VFS: dentries (names), inodes (the objects they name) and one
 * mounted root, a RAM filesystem (kernel/fs/ramfs.c) whose directory tree
 * is the dentry cache itself, as Linux's ramfs is. docs/fs.md explains it.
 *
 * Path lookup (kernel/fs/namei.c) resolves one name at a time with
 * d_lookup() (kernel/fs/dcache.c), which with dcache=rcu walks the hash
 * chain under rcu_read_lock() and takes no lock (the dcache-rcu patch,
 * seed 000's 25% dcache result), and with dcache=lock takes the global
 * dcache_lock (the kernel before that patch).
 */
#ifndef _FS_H
#define _FS_H

#include <types.h>
#include <atomic.h>
#include <list.h>
#include <spinlock.h>
#include <mutex.h>
#include <rcupdate.h>

#define FS_NAME_MAX	255
#define FS_PATH_MAX	4096

/* Mode bits (Linux's): the type in the top bits. */
#define FS_S_IFMT	0170000
#define FS_S_IFDIR	0040000
#define FS_S_IFREG	0100000

struct inode {
	unsigned int mode;		/* FS_S_IF* | permission bits */
	unsigned long ino;
	struct mutex lock;		/* data and size */
	size_t size;
	size_t cap;			/* bytes at data we own; 0: data is the initrd's */
	int uid, gid;			/* the creator's; mode's permission bits apply */
	u8 *data;
};

#define DENTRY_MAGIC	0x59524e544e4544UL	/* "DENTRY" */

struct dentry {
	struct hlist_node d_hash;	/* in dentry_hashtable[hash(parent, name)] */
	struct dentry *d_parent;	/* holds a reference; changed by d_move() */
	unsigned int d_namehash;	/* hash of (parent, name): a lock-free filter */
	unsigned int d_len;
	atomic_t d_count;		/* 0: on its way to call_rcu() */
	spinlock_t d_lock;		/* name, parent, inode, unhashed */
	bool d_unhashed;		/* out of the hash: lookups skip it */
	struct inode *d_inode;		/* NULL: a negative dentry */
	struct list_head d_child;	/* in the parent's d_subdirs (dcache_lock) */
	struct list_head d_subdirs;	/* by d_dirpos, rising: getdents' order */
	unsigned long d_dirpos;		/* place among the parent's children (getdents' cookie) */
	unsigned long d_dirseq;		/* the last d_dirpos given to a child (dcache_lock) */
	struct list_head d_lru;		/* unused negative dentries (dcache_lock); empty: not on it */
	bool d_referenced;		/* a lookup hit it since the shrinker last passed */
	struct rcu_head d_rcu;
	u64 d_queued_ns;		/* when dput() queued d_rcu (the latency figure) */
	unsigned long d_magic;		/* DENTRY_MAGIC while alive (the stress checks it) */
	char d_name[FS_NAME_MAX + 1];
};

enum dcache_mode { DCACHE_RCU, DCACHE_LOCK };
extern enum dcache_mode dcache_mode;
extern spinlock_t dcache_lock;		/* the tree and the hash (writers; readers with dcache=lock) */
extern struct mutex fs_mutex;		/* namespace changes: one at a time */
extern struct dentry *fs_root;

/* dcache.c */
unsigned int d_hash_name(const struct dentry *parent, const char *name, unsigned int len);
/* The hash-table bucket of a name hash (tests pick colliding names). */
unsigned int d_hash_bucket(unsigned int h);
struct dentry *d_lookup(struct dentry *parent, const char *name, unsigned int len);
struct dentry *d_lookup_mode(struct dentry *parent, const char *name, unsigned int len,
			     enum dcache_mode mode);
/* A new hashed child of parent (negative unless inode): the cache's reference
 * and one for the caller. Called under fs_mutex. NULL: no memory. */
struct dentry *d_alloc(struct dentry *parent, const char *name, unsigned int len,
		       struct inode *inode);
void d_instantiate(struct dentry *d, struct inode *inode);
/* Unhash d and drop the cache's reference (fs_mutex held). */
void d_delete(struct dentry *d);
/* Rename d to (parent, name), over nothing (fs_mutex held, target unhashed). */
/* d to (parent, name), replacing target (the dentry that holds the name,
 * or NULL) atomically for lookups. */
void d_move(struct dentry *d, struct dentry *target, struct dentry *parent,
	    const char *name, unsigned int len);
struct dentry *dget(struct dentry *d);
void dput(struct dentry *d);
long nr_dentries_alive(void);

/* dcache_lru.c: the LRU of unused negative dentries and its shrinker.
 * dcache_shrink() frees up to nr that only the cache references (through
 * call_rcu()), oldest first, a second chance for those a lookup hit; any
 * context that may sleep, no fs lock needed. How many went. */
long dcache_shrink(long nr);
/* d_alloc()/d_instantiate()/d_delete(), under dcache_lock. */
void d_lru_add(struct dentry *d);
void d_lru_del(struct dentry *d);
/* After d_alloc() of a negative dentry (no spinlock held): shrink past the bound. */
void dcache_lru_enforce(void);
/* kmalloc()/kzalloc() for the filesystem: on failure, shrink the whole
 * LRU, wait for its grace periods (rcu_barrier()) and try once more. */
void *fs_kmalloc(size_t size);
void *fs_kzalloc(size_t size);
struct dcache_stats {
	long dentries, lru, lru_max;
	unsigned long shrunk, bound_shrinks, pressure_retries, pressure_saved;
	unsigned long cb_count, cb_sum_ns, cb_max_ns;	/* call_rcu() to the free */
	unsigned long cb_hist[40];			/* by log2(ns) */
};
void dcache_get_stats(struct dcache_stats *s);
/* d_free_rcu(): one dentry's call_rcu() latency; and the reset. */
void dcache_note_cb_latency(u64 ns);
void dcache_reset_cb_latency(void);
/* The bound (dcache.lru_max), set for a test; the old one. */
unsigned long dcache_lru_set_max(unsigned long max);
void dcache_init(void);
unsigned long dcache_rename_seq(void);
struct dentry *d_alloc_root(struct inode *inode);

/* ramfs.c */
struct inode *ramfs_new_inode(unsigned int mode);
void ramfs_free_inode(struct inode *inode);
int ramfs_write(struct inode *inode, const void *buf, size_t n, size_t pos);

/* namei.c: resolve path from cwd (or the root if it starts with '/'); a
 * reference on the dentry (positive), or an error. */
int path_lookup(struct dentry *cwd, const char *path, struct dentry **out);
/* The parent of path's last name, and that name (pointing into path). */
int path_parent(struct dentry *cwd, const char *path, struct dentry **parent,
		const char **name, unsigned int *len);

/* ops.c: the namespace operations (the system calls and the tests) */
int vfs_create(struct dentry *cwd, const char *path, unsigned int mode, bool excl,
	       struct dentry **out);
int vfs_mkdir(struct dentry *cwd, const char *path, unsigned int mode);
int vfs_unlink(struct dentry *cwd, const char *path);
int vfs_rmdir(struct dentry *cwd, const char *path);
int vfs_rename(struct dentry *cwd, const char *from, const char *to);

struct file;

/* open.c: open path (O_CREAT, O_EXCL, O_TRUNC, O_DIRECTORY; the access mode
 * checked against the type) to a referenced dentry, or an error. */
int vfs_open(struct dentry *cwd, const char *path, unsigned int flags, unsigned int mode,
	     struct dentry **out);
/* The same as an open file (ramfs's file_ops); NULL and *err on failure. */
struct file *vfs_file_open(struct dentry *cwd, const char *path, unsigned int flags,
			   unsigned int mode, int *err);
/* The dentry behind a ramfs open file; NULL for any other file. */
struct dentry *vfs_file_dentry(struct file *f);
/* readdir.c: d's path from the root into buf; its length or an error. */
long d_path(struct dentry *d, char *buf, size_t size);
struct qs_stat;
void vfs_fill_stat(struct inode *inode, struct qs_stat *st);
/* exec: a regular file's bytes (a relative path from the caller's cwd),
 * held unchanged until vfs_exec_put(d). */
int vfs_exec_get(const char *path, struct dentry **d, const void **data, size_t *size);
void vfs_exec_put(struct dentry *d);

/* Permission: mask of FS_MAY_* against inode's mode for the calling
 * process (root passes); 0 or -EACCES. */
#define FS_MAY_EXEC	1
#define FS_MAY_WRITE	2
#define FS_MAY_READ	4
int fs_permission(const struct inode *inode, int mask);

/* kernel/proc/fs_cwd.c: the calling process's working directory (a
 * reference; the root for kernel threads) and ids. */
struct dentry *fs_cwd_get(void);
void fs_cwd_set(struct dentry *d);	/* takes the caller's reference */
int fs_uid(void);
int fs_gid(void);

void fs_init(void);

#endif
