/*
 * Open files and the per-process descriptor table (include/file.h), and
 * the system calls that work on any descriptor: read, write, close,
 * lseek, fstat, dup, dup2, fcntl.
 *
 * Locking: a process's table is changed under its files.lock, and only
 * by the process itself (its system calls, its exit), or by fork while
 * the parent is in fork(). A system call takes its own reference with
 * fd_get() and works without the lock, so a close() on another
 * descriptor, or of this one, cannot free the file under it: the file
 * goes when the last reference does.
 */
#include "user.h"
#include <syscall.h>
#include <kmalloc.h>
#include <string.h>

static atomic_long_t files_alive;

long nr_files_alive(void)
{
	return atomic_long_read(&files_alive);
}

struct file *file_alloc(const struct file_ops *ops, void *private, unsigned int flags)
{
	struct file *f = kzalloc(sizeof(*f));

	if (!f)
		return NULL;
	f->ops = ops;
	f->private = private;
	f->flags = flags;
	atomic_set(&f->ref, 1);
	atomic_long_inc(&files_alive);
	return f;
}

void file_get(struct file *f)
{
	atomic_inc(&f->ref);
}

void file_put(struct file *f)
{
	if (!atomic_dec_and_test(&f->ref))
		return;
	if (f->ops->release)
		f->ops->release(f);
	if (f != &console_file) {
		kfree(f);
		atomic_long_dec(&files_alive);
	}
}

static struct files *my_files(void)
{
	return &current_proc()->files;
}

int fd_install(struct file *f)
{
	struct files *fs = my_files();
	unsigned long flags = spin_lock_irqsave(&fs->lock);

	for (int fd = 0; fd < QS_OPEN_MAX; fd++) {
		if (!fs->fd[fd]) {
			fs->fd[fd] = f;
			clear_bit(fd, &fs->cloexec);
			spin_unlock_irqrestore(&fs->lock, flags);
			return fd;
		}
	}
	spin_unlock_irqrestore(&fs->lock, flags);
	return -EMFILE;
}

struct file *fd_get(int fd)
{
	struct files *fs = my_files();
	struct file *f = NULL;
	unsigned long flags;

	if (fd < 0 || fd >= QS_OPEN_MAX)
		return NULL;
	flags = spin_lock_irqsave(&fs->lock);
	if ((f = fs->fd[fd]))
		file_get(f);
	spin_unlock_irqrestore(&fs->lock, flags);
	return f;
}

/* Take fd out of the table: the table's reference, for the caller to put. */
static struct file *fd_remove(struct files *fs, int fd)
{
	unsigned long flags = spin_lock_irqsave(&fs->lock);
	struct file *f = fs->fd[fd];

	fs->fd[fd] = NULL;
	clear_bit(fd, &fs->cloexec);
	spin_unlock_irqrestore(&fs->lock, flags);
	return f;
}

void files_init_console(struct files *fs)
{
	spin_lock_init(&fs->lock, "files");
	for (int fd = 0; fd < 3; fd++) {
		file_get(&console_file);
		fs->fd[fd] = &console_file;
	}
}

int files_clone(struct files *dst, struct files *src)
{
	unsigned long flags;

	spin_lock_init(&dst->lock, "files");
	flags = spin_lock_irqsave(&src->lock);
	for (int fd = 0; fd < QS_OPEN_MAX; fd++) {
		if ((dst->fd[fd] = src->fd[fd]))
			file_get(dst->fd[fd]);
	}
	dst->cloexec = src->cloexec;
	spin_unlock_irqrestore(&src->lock, flags);
	return 0;
}

void files_close_all(struct files *fs)
{
	for (int fd = 0; fd < QS_OPEN_MAX; fd++) {
		struct file *f = fd_remove(fs, fd);

		if (f)
			file_put(f);
	}
}

void files_close_on_exec(struct files *fs)
{
	for (int fd = 0; fd < QS_OPEN_MAX; fd++) {
		if (test_bit(fd, &fs->cloexec)) {
			struct file *f = fd_remove(fs, fd);

			if (f)
				file_put(f);
		}
	}
}

/* ---- The console: fd 0, 1 and 2 of init, inherited by everyone. */

static long console_read(struct file *f, char __user *buf, size_t n)
{
	return tty_read(buf, n);
}

static long console_write(struct file *f, const char __user *buf, size_t n)
{
	return tty_write(buf, n);
}

static void console_stat(struct file *f, struct qs_stat *st)
{
	st->mode = QS_S_IFCHR | 0620;
}

static const struct file_ops console_ops = {
	.name	= "console",
	.read	= console_read,
	.write	= console_write,
	.stat	= console_stat,
};

/* Static, and never freed: the boot holds a reference that is never put. */
struct file console_file = {
	.ops	= &console_ops,
	.ref	= ATOMIC_INIT(1),
	.flags	= QS_O_RDWR,
};

/* ---- The calls. */

static long sys_read(struct pt_regs *r)
{
	struct file *f = fd_get(SYSCALL_ARG0(r));
	long ret;

	if (!f)
		return -EBADF;
	if ((f->flags & QS_O_ACCMODE) == QS_O_WRONLY)
		ret = -EBADF;
	else
		ret = f->ops->read ? f->ops->read(f, (char __user *)SYSCALL_ARG1(r), SYSCALL_ARG2(r))
				   : -EINVAL;
	file_put(f);
	return ret;
}
SYSCALL_DEFINE(SYS_read, sys_read);

static long sys_write(struct pt_regs *r)
{
	struct file *f = fd_get(SYSCALL_ARG0(r));
	long ret;

	if (!f)
		return -EBADF;
	if ((f->flags & QS_O_ACCMODE) == QS_O_RDONLY)
		ret = -EBADF;
	else
		ret = f->ops->write ? f->ops->write(f, (const char __user *)SYSCALL_ARG1(r),
						    SYSCALL_ARG2(r))
				    : -EINVAL;
	file_put(f);
	return ret;
}
SYSCALL_DEFINE(SYS_write, sys_write);

static long sys_close(struct pt_regs *r)
{
	long fd = SYSCALL_ARG0(r);
	struct file *f;

	if (fd < 0 || fd >= QS_OPEN_MAX || !(f = fd_remove(my_files(), fd)))
		return -EBADF;
	file_put(f);
	return 0;
}
SYSCALL_DEFINE(SYS_close, sys_close);

static long sys_lseek(struct pt_regs *r)
{
	struct file *f = fd_get(SYSCALL_ARG0(r));
	long ret;

	if (!f)
		return -EBADF;
	ret = f->ops->lseek ? f->ops->lseek(f, SYSCALL_ARG1(r), SYSCALL_ARG2(r)) : -ESPIPE;
	file_put(f);
	return ret;
}
SYSCALL_DEFINE(SYS_lseek, sys_lseek);

static long sys_fstat(struct pt_regs *r)
{
	struct file *f = fd_get(SYSCALL_ARG0(r));
	struct qs_stat st;
	long ret;

	if (!f)
		return -EBADF;
	memset(&st, 0, sizeof(st));
	if (f->ops->stat)
		f->ops->stat(f, &st);
	ret = copy_to_user((void __user *)SYSCALL_ARG1(r), &st, sizeof(st));
	file_put(f);
	return ret;
}
SYSCALL_DEFINE(SYS_fstat, sys_fstat);

/* dup(), dup2() and F_DUPFD: newfd < 0 means the lowest free one >= min. */
static long do_dup(int oldfd, int newfd, int min)
{
	struct files *fs = my_files();
	struct file *f = fd_get(oldfd), *old = NULL;
	unsigned long flags;

	if (!f)
		return -EBADF;
	if (newfd >= QS_OPEN_MAX || min < 0 || min >= QS_OPEN_MAX) {
		file_put(f);
		return newfd >= 0 ? -EBADF : -EINVAL;
	}
	if (newfd == oldfd) {
		file_put(f);
		return newfd;
	}
	flags = spin_lock_irqsave(&fs->lock);
	if (newfd < 0) {
		for (newfd = min; newfd < QS_OPEN_MAX && fs->fd[newfd]; newfd++)
			;
		if (newfd == QS_OPEN_MAX) {
			spin_unlock_irqrestore(&fs->lock, flags);
			file_put(f);
			return -EMFILE;
		}
	}
	old = fs->fd[newfd];
	fs->fd[newfd] = f;		/* our reference moves to the table */
	clear_bit(newfd, &fs->cloexec);
	spin_unlock_irqrestore(&fs->lock, flags);
	if (old)
		file_put(old);
	return newfd;
}

static long sys_dup(struct pt_regs *r)
{
	return do_dup(SYSCALL_ARG0(r), -1, 0);
}
SYSCALL_DEFINE(SYS_dup, sys_dup);

static long sys_dup2(struct pt_regs *r)
{
	long newfd = SYSCALL_ARG1(r);

	if (newfd < 0 || newfd >= QS_OPEN_MAX)
		return -EBADF;
	return do_dup(SYSCALL_ARG0(r), newfd, 0);
}
SYSCALL_DEFINE(SYS_dup2, sys_dup2);

static long sys_fcntl(struct pt_regs *r)
{
	long fd = SYSCALL_ARG0(r), arg = SYSCALL_ARG2(r);
	struct files *fs = my_files();
	struct file *f = fd_get(fd);
	long ret = 0;

	if (!f)
		return -EBADF;
	switch (SYSCALL_ARG1(r)) {
	case QS_F_DUPFD:
		ret = do_dup(fd, -1, arg);
		break;
	case QS_F_GETFD:
		ret = test_bit(fd, &fs->cloexec) ? QS_FD_CLOEXEC : 0;
		break;
	case QS_F_SETFD:
		if (arg & QS_FD_CLOEXEC)
			set_bit(fd, &fs->cloexec);
		else
			clear_bit(fd, &fs->cloexec);
		break;
	case QS_F_GETFL:
		ret = READ_ONCE(f->flags);
		break;
	case QS_F_SETFL:
		/* Only O_NONBLOCK can change; the access mode stays. */
		WRITE_ONCE(f->flags, (f->flags & ~QS_O_NONBLOCK) | (arg & QS_O_NONBLOCK));
		if (f->ops->flags_changed)
			f->ops->flags_changed(f);
		break;
	default:
		ret = -EINVAL;
	}
	file_put(f);
	return ret;
}
SYSCALL_DEFINE(SYS_fcntl, sys_fcntl);
