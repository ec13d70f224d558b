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
 * fork copies it, exit closes it (kernel/user/file.c).
 */
#ifndef _FILE_H
#define _FILE_H

#include <types.h>
#include <atomic.h>
#include <spinlock.h>
#include <uaccess.h>
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

struct file {
	const struct file_ops *ops;
	atomic_t ref;
	unsigned int flags;		/* QS_O_*: access mode and O_NONBLOCK */
	long pos;			/* for files that have a position */
	void *private;			/* the object behind it */
};

struct files {
	spinlock_t lock;
	struct file *fd[QS_OPEN_MAX];
	unsigned long cloexec;		/* bit n: fd n closes at exec */
};

/* A new file holding one reference; NULL if out of memory. */
struct file *file_alloc(const struct file_ops *ops, void *private, unsigned int flags);
void file_get(struct file *f);
void file_put(struct file *f);

/* In the calling process: the lowest free descriptor for f (which it now
 * owns: the caller's reference moves to the table), or -EMFILE. */
int fd_install(struct file *f);
/* A reference to the file behind fd, or NULL (EBADF). */
struct file *fd_get(int fd);

static inline bool file_nonblock(const struct file *f)
{
	return READ_ONCE(f->flags) & QS_O_NONBLOCK;
}

/* Open files in the system (the fuzzer's and tests' leak baseline). */
long nr_files_alive(void);

#endif
