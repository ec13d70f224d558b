/*
 * Open files and file descriptors.
 *
 * A struct file is one open object: the console, a file of the initrd, a
 * socket. What it does comes from its file_ops; its lifetime from a
 * reference count (each descriptor that names it holds one, and so does
 * a system call while it uses it), and ops->release() runs when the last
 * one goes. A subsystem makes a file with file_alloc(), gives it to the
 * calling process with fd_install(), and finds it again with fd_get(),
 * which returns a reference the caller drops with file_put().
 *
 * The descriptor table is per process (struct files, in struct process):
 * fork copies it, exit closes it (kernel/proc/file.c). Its array lives in
 * a struct fdtable that grows by copy: a bigger one is filled, published
 * with rcu_assign_pointer() and the old one freed after a grace period,
 * so fd_get() looks up without the lock (files=rcu, the FD-management
 * patch seed 000 reports), or under it (files=lock). docs/files.md.
 */
#ifndef _FILE_H
#define _FILE_H

#include <types.h>
#include <atomic.h>
#include <spinlock.h>
#include <uaccess.h>
#include <rcupdate.h>
#include <uapi/quiescent.h>

struct file;

struct file_ops {
	const char *name;		/* "console", "initrd", "socket", ... */
	/* Each may be NULL: the call then fails with the error in brackets. */
	long (*read)(struct file *f, char __user *buf, size_t n);		/* [EINVAL] */
	long (*write)(struct file *f, const char __user *buf, size_t n);	/* [EINVAL] */
	long (*lseek)(struct file *f, long off, int whence);			/* [ESPIPE] */
	void (*stat)(struct file *f, struct qs_stat *st);			/* zeros */
	/* F_SETFL changed f->flags (O_NONBLOCK): wake sleepers to notice. */
	void (*flags_changed)(struct file *f);
	/* The last reference is gone: free what private holds. */
	void (*release)(struct file *f);
};

#define FILE_MAGIC	0x46494c45u	/* "FILE": a stress test's freed-file check */
#define FDTABLE_MAGIC	0x46445442u	/* "FDTB" */

struct file {
	unsigned int magic;		/* FILE_MAGIC until kfree() poisons it */
	const struct file_ops *ops;
	atomic_t ref;
	unsigned int flags;		/* QS_O_*: access mode, O_NONBLOCK, O_APPEND */
	long pos;			/* for files that have a position */
	void *private;			/* the object behind it */
	/* fd_get() may still read ref after the last put: freed after a grace period */
	struct rcu_head rcu;
};

/* A table starts with FDTABLE_START slots and doubles up to QS_OPEN_MAX. */
#define FDTABLE_START	16

/* One allocation: the header, then fd[max_fds], then the two bitmaps. */
struct fdtable {
	unsigned int magic;		/* FDTABLE_MAGIC until freed */
	unsigned int max_fds;
	struct file __rcu **fd;
	unsigned long *open_fds;	/* bit n: fd n is in use */
	unsigned long *close_on_exec;	/* bit n: fd n closes at exec */
	struct rcu_head rcu;
};

/*
 * Changed only under lock; read under rcu_read_lock() (files=rcu) or the
 * lock (files=lock). fdt is NULL before files_init() and after
 * files_close_all().
 */
struct files {
	spinlock_t lock;
	struct fdtable __rcu *fdt;
};

enum files_mode { FILES_RCU, FILES_LOCK };
extern enum files_mode files_mode;	/* boot switch files=rcu|lock */

/* A new file holding one reference; NULL if out of memory. */
struct file *file_alloc(const struct file_ops *ops, void *private, unsigned int flags);
void file_get(struct file *f);
void file_put(struct file *f);

/* In the calling process: the lowest free descriptor for f (which it now
 * owns: the caller's reference moves to the table), or -EMFILE. */
int fd_install(struct file *f);
/* A reference to the file behind fd, or NULL (EBADF). */
struct file *fd_get(int fd);
/* close(fd) in the calling process: 0 or -EBADF. */
int fd_close(int fd);

static inline bool file_nonblock(const struct file *f)
{
	return READ_ONCE(f->flags) & QS_O_NONBLOCK;
}

/*
 * The same on a given table, for the kernel's own tests and benchmarks,
 * whose threads share one table (processes never do: fork copies).
 */
int files_init(struct files *fs);			/* an empty table; -ENOMEM */
int files_install(struct files *fs, struct file *f, unsigned int min);	/* fd or -EMFILE */
struct file *files_fget(struct files *fs, int fd, enum files_mode mode);
int files_close(struct files *fs, int fd);		/* 0 or -EBADF */
int files_dup2(struct files *fs, int oldfd, int newfd);	/* newfd or -EBADF/-EMFILE */
void files_close_all(struct files *fs);			/* and frees the table */
int files_reset(struct files *fs);	/* close all, start again from a small table */
unsigned int files_max_fds(struct files *fs);

/* In the calling process: fd's close-on-exec flag. */
void fd_set_cloexec(int fd, bool on);

/* Open files in the system (the fuzzer's and tests' leak baseline). */
long nr_files_alive(void);

#endif
