/*
 * Reading a directory (getdents) and naming one (getcwd's d_path).
 *
 * A directory's entries are its dentry's children (ramfs keeps no other
 * copy), so getdents walks d_subdirs under dcache_lock, skipping the
 * negative and unhashed ones. Each child has a position in its
 * directory (d_dirpos, given in rising order as names are added or moved
 * in, and d_subdirs is kept in that order); the file position is the
 * position of the last entry returned, and the next call starts after
 * it. So a name that exists throughout a listing is returned exactly
 * once however names are added, removed or renamed around it (a name
 * renamed during the listing may show under both names or neither, as
 * POSIX allows), and never a name that never existed nor a freed dentry
 * (the lock is held while the names are copied out).
 */
#include <fs.h>
#include <file.h>
#include <syscall.h>
#include <uaccess.h>
#include <kmalloc.h>
#include <string.h>
#include <errno.h>
#include <uapi/fs.h>
#include <uapi/quiescent.h>

#define GETDENTS_MAX	8	/* entries per call: the bounce buffer stays small */

static long sys_qs_getdents(struct pt_regs *r)
{
	long n = SYSCALL_ARG2(r), got = 0;
	unsigned long pos, last = 0;
	struct file *f = fd_get(SYSCALL_ARG0(r));
	struct qs_dirent *ents;
	struct dentry *dir, *c;
	long err = 0;

	if (!f)
		return -EBADF;
	dir = vfs_file_dentry(f);
	if (!dir || (dir->d_inode->mode & FS_S_IFMT) != FS_S_IFDIR) {
		file_put(f);
		return -ENOTDIR;
	}
	if (n <= 0) {
		file_put(f);
		return -EINVAL;
	}
	if (n > GETDENTS_MAX)
		n = GETDENTS_MAX;
	ents = kzalloc(n * sizeof(*ents));
	if (!ents) {
		file_put(f);
		return -ENOMEM;
	}
	pos = READ_ONCE(f->pos);
	spin_lock(&dcache_lock);
	list_for_each_entry(c, &dir->d_subdirs, d_child) {
		if (c->d_dirpos <= pos || c->d_unhashed || !c->d_inode)
			continue;
		if (got == n)
			break;
		last = c->d_dirpos;
		memcpy(ents[got].name, c->d_name, c->d_len);
		ents[got].name[c->d_len] = 0;
		ents[got].mode = c->d_inode->mode;
		ents[got].size = READ_ONCE(c->d_inode->size);
		got++;
	}
	spin_unlock(&dcache_lock);
	if (got && copy_to_user((void __user *)SYSCALL_ARG1(r), ents, got * sizeof(*ents)))
		err = -EFAULT;
	else
		if (got)
			WRITE_ONCE(f->pos, last);
	kfree(ents);
	file_put(f);
	return err ? err : got;
}
SYSCALL_DEFINE(SYS_qs_getdents, sys_qs_getdents);

/* d's path from the root into buf (size bytes): its length, or -ENOENT if
 * d was removed, -ENAMETOOLONG. fs_mutex keeps renames out meanwhile. */
long d_path(struct dentry *d, char *buf, size_t size)
{
	char *p = buf + size - 1;
	long err = 0;

	*p = 0;
	mutex_lock(&fs_mutex);
	if (d == fs_root)
		*--p = '/';
	while (d != fs_root) {
		if (d->d_unhashed) {
			err = -ENOENT;
			break;
		}
		if ((size_t)(p - buf) < d->d_len + 1) {
			err = -ENAMETOOLONG;
			break;
		}
		p -= d->d_len;
		memcpy(p, d->d_name, d->d_len);
		*--p = '/';
		d = d->d_parent;
	}
	mutex_unlock(&fs_mutex);
	if (err)
		return err;
	memmove(buf, p, buf + size - p);
	return buf + size - 1 - p;
}
