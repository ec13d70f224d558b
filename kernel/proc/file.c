/*
 * Open files and the per-process descriptor table (include/file.h), and
 * the system calls that work on any descriptor: read, write, close,
 * lseek, fstat, dup, dup2, fcntl.
 *
 * The table is the FD-management patch's design (seed 000 Section 2.5's
 * list of RCU users, its "30% improvement"): struct files points to a
 * struct fdtable whose array grows by copy. expand_fdtable() fills a
 * bigger table, publishes it with rcu_assign_pointer() and frees the old
 * one with call_rcu(), so a reader that loaded the old pointer may keep
 * using it for its read-side critical section.
 *
 * Locking: a table is changed under its files.lock. In a process only
 * the process itself changes it (its system calls, its exit), or fork
 * while the parent is in fork(); the kernel's file tests share one table
 * among threads on every CPU (file_stress.c), which is where lock-free
 * lookups meet concurrent close(), dup2() and growth.
 *
 * fd_get() under files=rcu: rcu_read_lock(), load the table, load the
 * slot, take a reference only if the count is not zero (a close() may
 * have dropped the last one; that file is on its way to release), and
 * re-check that the table and the slot still hold it (a close() and a
 * new open() may have put another file there between the load and the
 * increment). Because the increment may touch a file whose last
 * reference is gone, a struct file is freed only after a grace period
 * (file_free_rcu()): inc-not-zero on freed, reused memory would not be.
 * files=lock takes files.lock for the lookup instead, as before.
 *
 * A system call works on its own reference, without the lock, so a
 * close() of this descriptor cannot free the file under it.
 */
#include "proc.h"
#include <syscall.h>
#include <kmalloc.h>
#include <string.h>
#include <cmdline.h>
#include <lockdep.h>
#include <panic.h>
#include <fault_inject.h>

static atomic_long_t files_alive;

enum files_mode files_mode = FILES_RCU;

static int set_files_mode(const char *val)
{
	if (val && !strcmp(val, "rcu"))
		files_mode = FILES_RCU;
	else if (val && !strcmp(val, "lock"))
		files_mode = FILES_LOCK;
	else
		return -EINVAL;
	return 0;
}
CMDLINE_PARAM("files", set_files_mode,
	      "files=rcu|lock: descriptor lookup under RCU (default) or the table's lock");

long nr_files_alive(void)
{
	return atomic_long_read(&files_alive);
}

struct file *file_alloc(const struct file_ops *ops, void *private, unsigned int flags)
{
	struct file *f = kzalloc(sizeof(*f));

	if (!f)
		return NULL;
	f->magic = FILE_MAGIC;
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

/* Take a reference unless the last one is already gone. */
static bool file_get_unless_zero(struct file *f)
{
	int c = atomic_read(&f->ref);

	while (c) {
		int old = atomic_cmpxchg(&f->ref, c, c + 1);

		if (old == c)
			return true;
		c = old;
	}
	return false;
}

static void file_free_rcu(void *arg)
{
	kfree(arg);
}

void file_put(struct file *f)
{
	if (!atomic_dec_and_test(&f->ref))
		return;
	if (f->ops->release)
		f->ops->release(f);
	if (f != &console_file) {
		atomic_long_dec(&files_alive);
		/* an fd_get() that loaded f may still try its count */
		call_rcu(&f->rcu, file_free_rcu, f);
	}
}

/* ---- The table. */

static struct fdtable *fdtable_alloc(unsigned int max_fds)
{
	size_t words = (max_fds + 63) / 64;
	size_t size = sizeof(struct fdtable) + max_fds * sizeof(struct file *) +
		      2 * words * sizeof(unsigned long);
	struct fdtable *t = kzalloc(size);

	if (!t)
		return NULL;
	t->magic = FDTABLE_MAGIC;
	t->max_fds = max_fds;
	t->fd = (struct file __rcu **)(t + 1);
	t->open_fds = (unsigned long *)((char *)t->fd + max_fds * sizeof(struct file *));
	t->close_on_exec = t->open_fds + words;
	return t;
}

static void fdtable_free_rcu(void *arg)
{
	kfree(arg);
}

static struct fdtable *fdt_locked(struct files *fs)
{
	return rcu_dereference_protected(fs->fdt, lockdep_is_held(&fs->lock));
}

static struct file *slot_locked(struct files *fs, struct fdtable *t, unsigned int fd)
{
	return rcu_dereference_protected(t->fd[fd], lockdep_is_held(&fs->lock));
}

int files_init(struct files *fs)
{
	struct fdtable *t = fdtable_alloc(FDTABLE_START);

	if (!t)
		return -ENOMEM;
	spin_lock_init(&fs->lock, "files");
	RCU_INIT_POINTER(fs->fdt, t);
	return 0;
}

unsigned int files_max_fds(struct files *fs)
{
	struct fdtable *t;
	unsigned int n;

	rcu_read_lock();
	t = rcu_dereference(fs->fdt);
	n = t ? t->max_fds : 0;
	rcu_read_unlock();
	return n;
}

/*
 * Called and returns with fs->lock held (it drops it to allocate): make
 * the table hold fd. Returns 0, -EMFILE past QS_OPEN_MAX, -EBADF with no
 * table, -ENOMEM.
 */
static int expand_fdtable(struct files *fs, unsigned int fd, unsigned long *flags)
	__must_hold(&fs->lock)
{
	for (;;) {
		struct fdtable *old = fdt_locked(fs), *new;
		unsigned int n;

		if (!old)
			return -EBADF;
		if (fd < old->max_fds)
			return 0;
		if (fd >= QS_OPEN_MAX)
			return -EMFILE;
		for (n = old->max_fds * 2; n <= fd; n *= 2)
			;
		if (n > QS_OPEN_MAX)
			n = QS_OPEN_MAX;
		spin_unlock_irqrestore(&fs->lock, *flags);
		new = fdtable_alloc(n);
		*flags = spin_lock_irqsave(&fs->lock);
		if (!new)
			return -ENOMEM;
		if (fdt_locked(fs) != old) {
			/* grown (or closed) while we allocated: look again */
			kfree(new);
			continue;
		}
		for (unsigned int i = 0; i < old->max_fds; i++)
			RCU_INIT_POINTER(new->fd[i], slot_locked(fs, old, i));
		memcpy(new->open_fds, old->open_fds, (old->max_fds + 63) / 64 * sizeof(long));
		memcpy(new->close_on_exec, old->close_on_exec,
		       (old->max_fds + 63) / 64 * sizeof(long));
		/* the copy's slots are visible before the table is (seed 004 grow_ary) */
		rcu_assign_pointer(fs->fdt, new);
		/* call_rcu() with interrupts on: rcu-poll is not IRQ-safe (seed 000 Table 1) */
		spin_unlock_irqrestore(&fs->lock, *flags);
		call_rcu(&old->rcu, fdtable_free_rcu, old);
		*flags = spin_lock_irqsave(&fs->lock);
	}
}

/* Under fs->lock: the lowest free fd >= min, the table grown to hold it. */
static int alloc_fd_locked(struct files *fs, unsigned int min, unsigned long *flags)
{
	for (;;) {
		struct fdtable *t = fdt_locked(fs);
		int err;

		if (!t)
			return -EBADF;
		for (unsigned int fd = min; fd < t->max_fds; fd++)
			if (!test_bit(fd, t->open_fds))
				return fd;
		if (t->max_fds > min)
			min = t->max_fds;
		if ((err = expand_fdtable(fs, min, flags)))
			return err == -EBADF ? -EMFILE : err;
	}
}

static void install_locked(struct files *fs, unsigned int fd, struct file *f)
{
	struct fdtable *t = fdt_locked(fs);

	set_bit(fd, t->open_fds);
	clear_bit(fd, t->close_on_exec);
	/* f's fields are set before a lock-free fd_get() can find it */
	rcu_assign_pointer(t->fd[fd], f);
}

int files_install(struct files *fs, struct file *f, unsigned int min)
{
	unsigned long flags;
	int fd;

	if (min >= QS_OPEN_MAX)
		return -EINVAL;
	flags = spin_lock_irqsave(&fs->lock);
	fd = alloc_fd_locked(fs, min, &flags);
	if (fd >= 0)
		install_locked(fs, fd, f);
	spin_unlock_irqrestore(&fs->lock, flags);
	return fd;
}

static struct file *fget_lock(struct files *fs, unsigned int fd)
{
	unsigned long flags = spin_lock_irqsave(&fs->lock);
	struct fdtable *t = fdt_locked(fs);
	struct file *f = NULL;

	if (t && fd < t->max_fds && (f = slot_locked(fs, t, fd)))
		file_get(f);
	spin_unlock_irqrestore(&fs->lock, flags);
	return f;
}

static struct file *fget_rcu(struct files *fs, unsigned int fd)
{
	struct fdtable *t;
	struct file *f;

	for (;;) {
		rcu_read_lock();
		t = rcu_dereference(fs->fdt);
		if (!t)
			goto none;
		/* A test's window after each load (nonzero: it found the
		 * object freed, and nothing of it may be used). */
		if (fault_inject(fget_fdt, t))
			goto none;
		if (fd >= READ_ONCE(t->max_fds))
			goto none;
		f = rcu_dereference(t->fd[fd]);
		if (!f)
			goto none;
		if (fault_inject(fget_file, f))
			goto none;
		if (!file_get_unless_zero(f)) {
			/* its last close is under way: the slot no longer holds it */
			rcu_read_unlock();
			continue;
		}
		if (f == rcu_access_pointer(t->fd[fd]) && t == rcu_access_pointer(fs->fdt)) {
			rcu_read_unlock();
			return f;
		}
		/* closed, and maybe the slot reused, or the table grown: again */
		rcu_read_unlock();
		file_put(f);
	}
none:
	rcu_read_unlock();
	return NULL;
}

struct file *files_fget(struct files *fs, int fd, enum files_mode mode)
{
	if (fd < 0 || fd >= QS_OPEN_MAX)
		return NULL;
	return mode == FILES_LOCK ? fget_lock(fs, fd) : fget_rcu(fs, fd);
}

static struct files *my_files(void)
{
	return &current_proc()->files;
}

int fd_install(struct file *f)
{
	return files_install(my_files(), f, 0);
}

struct file *fd_get(int fd)
{
	return files_fget(my_files(), fd, READ_ONCE(files_mode));
}

/* Under fs->lock: take fd out of the table; the table's reference is the caller's. */
static struct file *remove_locked(struct files *fs, unsigned int fd)
{
	struct fdtable *t = fdt_locked(fs);
	struct file *f;

	if (!t || fd >= t->max_fds || !(f = slot_locked(fs, t, fd)))
		return NULL;
	RCU_INIT_POINTER(t->fd[fd], NULL);
	clear_bit(fd, t->open_fds);
	clear_bit(fd, t->close_on_exec);
	return f;
}

int files_close(struct files *fs, int fd)
{
	unsigned long flags;
	struct file *f;

	if (fd < 0 || fd >= QS_OPEN_MAX)
		return -EBADF;
	flags = spin_lock_irqsave(&fs->lock);
	f = remove_locked(fs, fd);
	spin_unlock_irqrestore(&fs->lock, flags);
	if (!f)
		return -EBADF;
	file_put(f);
	return 0;
}

/* dup2(), and dup() and F_DUPFD as newfd < 0: the lowest free one >= min. */
static int do_dup(struct files *fs, int oldfd, int newfd, int min)
{
	struct file *f, *old = NULL;
	unsigned long flags;
	int err;

	if (oldfd < 0 || oldfd >= QS_OPEN_MAX)
		return -EBADF;
	if (newfd >= QS_OPEN_MAX)
		return -EBADF;
	flags = spin_lock_irqsave(&fs->lock);
	if (!fdt_locked(fs) || oldfd >= (int)fdt_locked(fs)->max_fds ||
	    !slot_locked(fs, fdt_locked(fs), oldfd)) {
		err = -EBADF;
		goto out;
	}
	if (newfd == oldfd) {
		err = newfd;
		goto out;
	}
	if (newfd < 0) {
		if (min < 0 || min >= QS_OPEN_MAX) {
			err = -EINVAL;
			goto out;
		}
		err = alloc_fd_locked(fs, min, &flags);
	} else {
		err = expand_fdtable(fs, newfd, &flags);
		if (!err)
			err = newfd;
	}
	if (err < 0)
		goto out;
	newfd = err;
	/* the lock was maybe dropped to grow: oldfd may be gone now */
	f = fdt_locked(fs) && oldfd < (int)fdt_locked(fs)->max_fds ?
	    slot_locked(fs, fdt_locked(fs), oldfd) : NULL;
	if (!f) {
		err = -EBADF;
		goto out;
	}
	file_get(f);
	/*
	 * One store replaces the old file: a lock-free fd_get() of newfd on
	 * another CPU finds the old file or the new one, never an empty slot
	 * (POSIX: dup2 closes newfd atomically). One that took the old file
	 * sees the slot changed on its re-check and looks again.
	 */
	old = slot_locked(fs, fdt_locked(fs), newfd);
	install_locked(fs, newfd, f);
out:
	spin_unlock_irqrestore(&fs->lock, flags);
	if (old)
		file_put(old);
	return err;
}

int files_dup2(struct files *fs, int oldfd, int newfd)
{
	if (newfd < 0)
		return -EBADF;
	return do_dup(fs, oldfd, newfd, 0);
}

void fd_set_cloexec(int fd, bool on)
{
	struct files *fs = my_files();
	unsigned long flags = spin_lock_irqsave(&fs->lock);
	struct fdtable *t = fdt_locked(fs);

	if (t && fd >= 0 && (unsigned int)fd < t->max_fds && slot_locked(fs, t, fd)) {
		if (on)
			set_bit(fd, t->close_on_exec);
		else
			clear_bit(fd, t->close_on_exec);
	}
	spin_unlock_irqrestore(&fs->lock, flags);
}

static bool fd_get_cloexec(int fd)
{
	struct files *fs = my_files();
	unsigned long flags = spin_lock_irqsave(&fs->lock);
	struct fdtable *t = fdt_locked(fs);
	bool on = t && fd >= 0 && (unsigned int)fd < t->max_fds && test_bit(fd, t->close_on_exec);

	spin_unlock_irqrestore(&fs->lock, flags);
	return on;
}

void files_init_console(struct files *fs)
{
	if (files_init(fs))
		panic("files: no memory for init's descriptor table");
	for (int fd = 0; fd < 3; fd++) {
		file_get(&console_file);
		if (files_install(fs, &console_file, fd) != fd)
			panic("files: console fd %d", fd);
	}
}

/* fork: a copy of src (the parent's, which only the parent, in fork, changes). */
int files_clone(struct files *dst, struct files *src)
{
	struct fdtable *st, *dt = NULL;
	unsigned long flags;
	unsigned int want = FDTABLE_START;

	spin_lock_init(&dst->lock, "files");
	RCU_INIT_POINTER(dst->fdt, NULL);
	for (;;) {
		dt = fdtable_alloc(want);
		if (!dt)
			return -ENOMEM;
		flags = spin_lock_irqsave(&src->lock);
		st = fdt_locked(src);
		if (!st || st->max_fds <= want)
			break;
		want = st->max_fds;
		spin_unlock_irqrestore(&src->lock, flags);
		kfree(dt);
	}
	for (unsigned int fd = 0; st && fd < st->max_fds; fd++) {
		struct file *f = slot_locked(src, st, fd);

		if (f) {
			file_get(f);
			RCU_INIT_POINTER(dt->fd[fd], f);
			set_bit(fd, dt->open_fds);
			if (test_bit(fd, st->close_on_exec))
				set_bit(fd, dt->close_on_exec);
		}
	}
	spin_unlock_irqrestore(&src->lock, flags);
	rcu_assign_pointer(dst->fdt, dt);
	return 0;
}

/*
 * Unpublish fs's table for new (NULL or empty), put every file the old
 * one held, and free it after a grace period.
 */
static void files_swap(struct files *fs, struct fdtable *new)
{
	unsigned long flags = spin_lock_irqsave(&fs->lock);
	struct fdtable *t = fdt_locked(fs);

	rcu_assign_pointer(fs->fdt, new);
	spin_unlock_irqrestore(&fs->lock, flags);
	if (!t)
		return;
	/* unpublished: nobody changes t now; lock-free readers may still load it */
	for (unsigned int fd = 0; fd < t->max_fds; fd++) {
		struct file *f = rcu_dereference_protected(t->fd[fd], 1);

		if (f)
			file_put(f);
	}
	call_rcu(&t->rcu, fdtable_free_rcu, t);
}

/* exit (or a test): every descriptor closed, the table freed after a grace period. */
void files_close_all(struct files *fs)
{
	files_swap(fs, NULL);
}

int files_reset(struct files *fs)
{
	struct fdtable *t = fdtable_alloc(FDTABLE_START);

	if (!t)
		return -ENOMEM;
	files_swap(fs, t);
	return 0;
}

void files_close_on_exec(struct files *fs)
{
	unsigned long flags = spin_lock_irqsave(&fs->lock);
	struct fdtable *t = fdt_locked(fs);

	for (unsigned int fd = 0; t && fd < t->max_fds; fd++) {
		struct file *f;

		if (!test_bit(fd, t->close_on_exec) || !(f = remove_locked(fs, fd)))
			continue;
		spin_unlock_irqrestore(&fs->lock, flags);
		file_put(f);
		flags = spin_lock_irqsave(&fs->lock);
		t = fdt_locked(fs);
	}
	spin_unlock_irqrestore(&fs->lock, flags);
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
	.magic	= FILE_MAGIC,
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

int fd_close(int fd)
{
	return files_close(my_files(), fd);
}

static long sys_close(struct pt_regs *r)
{
	return fd_close(SYSCALL_ARG0(r));
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

static long sys_dup(struct pt_regs *r)
{
	return do_dup(my_files(), SYSCALL_ARG0(r), -1, 0);
}
SYSCALL_DEFINE(SYS_dup, sys_dup);

static long sys_dup2(struct pt_regs *r)
{
	long oldfd = SYSCALL_ARG0(r), newfd = SYSCALL_ARG1(r);

	if (oldfd < 0 || oldfd >= QS_OPEN_MAX || newfd < 0 || newfd >= QS_OPEN_MAX)
		return -EBADF;
	return files_dup2(my_files(), oldfd, newfd);
}
SYSCALL_DEFINE(SYS_dup2, sys_dup2);

static long sys_fcntl(struct pt_regs *r)
{
	long fd = SYSCALL_ARG0(r), arg = SYSCALL_ARG2(r);
	struct file *f = fd_get(fd);
	long ret = 0;

	if (!f)
		return -EBADF;
	switch (SYSCALL_ARG1(r)) {
	case QS_F_DUPFD:
		ret = arg < 0 || arg >= QS_OPEN_MAX ? -EINVAL : do_dup(my_files(), fd, -1, arg);
		break;
	case QS_F_GETFD:
		ret = fd_get_cloexec(fd) ? QS_FD_CLOEXEC : 0;
		break;
	case QS_F_SETFD:
		fd_set_cloexec(fd, arg & QS_FD_CLOEXEC);
		break;
	case QS_F_GETFL:
		ret = READ_ONCE(f->flags);
		break;
	case QS_F_SETFL:
		/* O_NONBLOCK and O_APPEND can change, as POSIX lets them; the
		 * access mode and the creation flags stay. */
		WRITE_ONCE(f->flags, (f->flags & ~(QS_O_NONBLOCK | QS_O_APPEND)) |
				     (arg & (QS_O_NONBLOCK | QS_O_APPEND)));
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
