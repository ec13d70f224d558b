/*
 * The namespace system calls (include/uapi/fs.h): each copies its paths
 * in (EFAULT for a bad pointer, ENAMETOOLONG for 4096 bytes and more)
 * and calls the VFS (namei.c), which checks each name's length.
 */
#include <fs.h>
#include <syscall.h>
#include <uaccess.h>
#include <kmalloc.h>
#include <string.h>
#include <errno.h>
#include <uapi/fs.h>
#include <uapi/quiescent.h>

static long path_in(unsigned long uptr, char **out)
{
	char *p = kmalloc(FS_PATH_MAX);
	long n;

	if (!p)
		return -ENOMEM;
	n = strncpy_from_user(p, (const char __user *)uptr, FS_PATH_MAX);
	if (n >= FS_PATH_MAX)
		n = -ENAMETOOLONG;
	if (n < 0) {
		kfree(p);
		return n;
	}
	*out = p;
	return 0;
}

/* The calls resolve relative paths from the caller's working directory. */
static int vfs_mkdir_cwd(const char *p, unsigned int mode)
{
	struct dentry *cwd = fs_cwd_get();
	int err = vfs_mkdir(cwd, p, mode);

	dput(cwd);
	return err;
}

static int vfs_rmdir_cwd(const char *p)
{
	struct dentry *cwd = fs_cwd_get();
	int err = vfs_rmdir(cwd, p);

	dput(cwd);
	return err;
}

static int vfs_unlink_cwd(const char *p)
{
	struct dentry *cwd = fs_cwd_get();
	int err = vfs_unlink(cwd, p);

	dput(cwd);
	return err;
}

static int vfs_rename_cwd(const char *from, const char *to)
{
	struct dentry *cwd = fs_cwd_get();
	int err = vfs_rename(cwd, from, to);

	dput(cwd);
	return err;
}

static int path_lookup_cwd(const char *p, struct dentry **d)
{
	struct dentry *cwd = fs_cwd_get();
	int err = path_lookup(cwd, p, d);

	dput(cwd);
	return err;
}

static int vfs_create_cwd(const char *p, unsigned int mode, bool excl, struct dentry **d)
{
	struct dentry *cwd = fs_cwd_get();
	int err = vfs_create(cwd, p, mode, excl, d);

	dput(cwd);
	return err;
}

static long sys_mkdir(struct pt_regs *r)
{
	char *p;
	long err = path_in(SYSCALL_ARG0(r), &p);

	if (err)
		return err;
	err = vfs_mkdir_cwd( p, SYSCALL_ARG1(r));
	kfree(p);
	return err;
}
SYSCALL_DEFINE(SYS_mkdir, sys_mkdir);

static long sys_rmdir(struct pt_regs *r)
{
	char *p;
	long err = path_in(SYSCALL_ARG0(r), &p);

	if (err)
		return err;
	err = vfs_rmdir_cwd( p);
	kfree(p);
	return err;
}
SYSCALL_DEFINE(SYS_rmdir, sys_rmdir);

static long sys_unlink(struct pt_regs *r)
{
	char *p;
	long err = path_in(SYSCALL_ARG0(r), &p);

	if (err)
		return err;
	err = vfs_unlink_cwd( p);
	kfree(p);
	return err;
}
SYSCALL_DEFINE(SYS_unlink, sys_unlink);

static long sys_rename(struct pt_regs *r)
{
	char *from, *to;
	long err = path_in(SYSCALL_ARG0(r), &from);

	if (err)
		return err;
	err = path_in(SYSCALL_ARG1(r), &to);
	if (!err) {
		err = vfs_rename_cwd( from, to);
		kfree(to);
	}
	kfree(from);
	return err;
}
SYSCALL_DEFINE(SYS_rename, sys_rename);

static long sys_stat(struct pt_regs *r)
{
	struct qs_stat st = { 0 };
	struct dentry *d;
	char *p;
	long err = path_in(SYSCALL_ARG0(r), &p);

	if (err)
		return err;
	err = path_lookup_cwd( p, &d);
	kfree(p);
	if (err)
		return err;
	vfs_fill_stat(d->d_inode, &st);
	dput(d);
	return copy_to_user((void __user *)SYSCALL_ARG1(r), &st, sizeof(st)) ? -EFAULT : 0;
}
SYSCALL_DEFINE(SYS_stat, sys_stat);

static long sys_qs_creat(struct pt_regs *r)
{
	struct dentry *d;
	char *p;
	long err = path_in(SYSCALL_ARG0(r), &p);

	if (err)
		return err;
	err = vfs_create_cwd( p, SYSCALL_ARG1(r), SYSCALL_ARG2(r) != 0, &d);
	kfree(p);
	if (!err)
		dput(d);
	return err;
}
SYSCALL_DEFINE(SYS_qs_creat, sys_qs_creat);

static long sys_chdir(struct pt_regs *r)
{
	struct dentry *d;
	char *p;
	long err = path_in(SYSCALL_ARG0(r), &p);

	if (err)
		return err;
	err = path_lookup_cwd(p, &d);
	kfree(p);
	if (err)
		return err;
	if ((d->d_inode->mode & FS_S_IFMT) != FS_S_IFDIR)
		err = -ENOTDIR;
	else
		err = fs_permission(d->d_inode, FS_MAY_EXEC);
	if (err) {
		dput(d);
		return err;
	}
	fs_cwd_set(d);
	return 0;
}
SYSCALL_DEFINE(SYS_chdir, sys_chdir);

static long sys_getcwd(struct pt_regs *r)
{
	size_t size = SYSCALL_ARG1(r);
	struct dentry *cwd = fs_cwd_get();
	char *buf = kmalloc(FS_PATH_MAX);
	long n;

	if (!buf) {
		dput(cwd);
		return -ENOMEM;
	}
	n = d_path(cwd, buf, FS_PATH_MAX);
	dput(cwd);
	if (n >= 0 && (size_t)n + 1 > size)
		n = -ERANGE;
	if (n >= 0 && copy_to_user((void __user *)SYSCALL_ARG0(r), buf, n + 1))
		n = -EFAULT;
	kfree(buf);
	return n < 0 ? n : n + 1;
}
SYSCALL_DEFINE(SYS_getcwd, sys_getcwd);

/* qs_dcache(op, arg, stats): the LRU and the dentries' call_rcu() latency
 * for dcachebench and dbench (user/bin), and the shrinker on demand. */
static long sys_qs_dcache(struct pt_regs *r)
{
	unsigned long arg = SYSCALL_ARG1(r);
	struct qs_dcache_stats out;
	struct dcache_stats s;

	switch (SYSCALL_ARG0(r)) {
	case QS_DCACHE_STATS:
		dcache_get_stats(&s);
		memset(&out, 0, sizeof(out));
		out.dentries = s.dentries;
		out.lru = s.lru;
		out.lru_max = s.lru_max;
		out.shrunk = s.shrunk;
		out.bound_shrinks = s.bound_shrinks;
		out.pressure_retries = s.pressure_retries;
		out.pressure_saved = s.pressure_saved;
		out.cb_count = s.cb_count;
		out.cb_sum_ns = s.cb_sum_ns;
		out.cb_max_ns = s.cb_max_ns;
		for (int i = 0; i < QS_DCACHE_HIST; i++)
			out.cb_hist[i] = s.cb_hist[i];
		out.mode = READ_ONCE(dcache_mode) == DCACHE_LOCK;
		if (copy_to_user((void __user *)SYSCALL_ARG2(r), &out, sizeof(out)))
			return -EFAULT;
		if (arg)
			dcache_reset_cb_latency();
		return 0;
	case QS_DCACHE_SHRINK:
		if (fs_uid() != 0)
			return -EPERM;
		return dcache_shrink(arg ? (long)(arg > (1UL << 40) ? 1UL << 40 : arg) : 1L << 40);
	default:
		return -EINVAL;
	}
}
SYSCALL_DEFINE(SYS_qs_dcache, sys_qs_dcache);
