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

static long sys_mkdir(struct pt_regs *r)
{
	char *p;
	long err = path_in(SYSCALL_ARG0(r), &p);

	if (err)
		return err;
	err = vfs_mkdir(fs_root, p, SYSCALL_ARG1(r));
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
	err = vfs_rmdir(fs_root, p);
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
	err = vfs_unlink(fs_root, p);
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
		err = vfs_rename(fs_root, from, to);
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
	err = path_lookup(fs_root, p, &d);
	kfree(p);
	if (err)
		return err;
	st.mode = d->d_inode->mode;
	st.size = READ_ONCE(d->d_inode->size);
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
	err = vfs_create(fs_root, p, SYSCALL_ARG1(r), SYSCALL_ARG2(r) != 0, &d);
	kfree(p);
	if (!err)
		dput(d);
	return err;
}
SYSCALL_DEFINE(SYS_qs_creat, sys_qs_creat);
