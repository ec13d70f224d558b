/*
 * open() on the filesystem, and the open file of a ramfs inode: read,
 * write, lseek, fstat and the last close.
 *
 * An open file holds a reference on its dentry, not on the name: an
 * unlink (or a rename over it) takes the dentry out of the hash, but the
 * dentry and its inode stay until dput() of the last reference, which is
 * the last close. So an unlinked file stays readable and writable through
 * the descriptors that had it open, and its memory goes back when they
 * close (dput() -> call_rcu() -> the inode freed with the dentry).
 *
 * The data and size of an inode change under inode->lock; a read takes it
 * too, so it never copies from a buffer that a growing write frees.
 */
#include <fs.h>
#include <file.h>
#include <uaccess.h>
#include <kmalloc.h>
#include <string.h>
#include <errno.h>
#include <uapi/quiescent.h>

static struct inode *file_inode(struct file *f)
{
	return ((struct dentry *)f->private)->d_inode;
}

static long ramfs_file_read(struct file *f, char __user *buf, size_t n)
{
	struct inode *inode = file_inode(f);
	long pos = READ_ONCE(f->pos);
	long ret;

	if ((inode->mode & FS_S_IFMT) == FS_S_IFDIR)
		return -EISDIR;
	mutex_lock(&inode->lock);
	if (pos >= (long)inode->size) {
		ret = 0;
	} else {
		if (n > inode->size - pos)
			n = inode->size - pos;
		ret = copy_to_user(buf, inode->data + pos, n) ? -EFAULT : (long)n;
		if (ret > 0)
			WRITE_ONCE(f->pos, pos + n);
	}
	mutex_unlock(&inode->lock);
	return ret;
}

/* At most this much per write() call: a bounce buffer from kmalloc. */
#define WRITE_CHUNK	4096

static long ramfs_file_write(struct file *f, const char __user *buf, size_t n)
{
	struct inode *inode = file_inode(f);
	size_t done = 0;
	char *tmp;
	long pos, ret = 0;

	if ((inode->mode & FS_S_IFMT) == FS_S_IFDIR)
		return -EISDIR;
	if (!n)
		return 0;
	tmp = kmalloc(WRITE_CHUNK);
	if (!tmp)
		return -ENOMEM;
	mutex_lock(&inode->lock);
	/* O_APPEND: the end is read under the lock, so two appenders never
	 * write over each other. */
	pos = (READ_ONCE(f->flags) & QS_O_APPEND) ? (long)inode->size : READ_ONCE(f->pos);
	while (done < n) {
		size_t c = n - done < WRITE_CHUNK ? n - done : WRITE_CHUNK;

		if (copy_from_user(tmp, buf + done, c)) {
			ret = -EFAULT;
			break;
		}
		/* A growing buffer that kmalloc cannot give: no space left. */
		if ((ret = ramfs_write(inode, tmp, c, pos + done)) < 0) {
			if (ret == -ENOMEM)
				ret = -ENOSPC;
			break;
		}
		done += c;
	}
	if (done)
		WRITE_ONCE(f->pos, pos + done);
	mutex_unlock(&inode->lock);
	kfree(tmp);
	return done ? (long)done : ret;
}

static long ramfs_file_lseek(struct file *f, long off, int whence)
{
	struct inode *inode = file_inode(f);
	long base;

	switch (whence) {
	case QS_SEEK_SET: base = 0; break;
	case QS_SEEK_CUR: base = READ_ONCE(f->pos); break;
	case QS_SEEK_END: base = READ_ONCE(inode->size); break;
	default: return -EINVAL;
	}
	if ((off > 0 && base > __LONG_MAX__ - off) || base + off < 0)
		return -EINVAL;
	WRITE_ONCE(f->pos, base + off);
	return base + off;
}

void vfs_fill_stat(struct inode *inode, struct qs_stat *st)
{
	st->mode = inode->mode;
	st->size = READ_ONCE(inode->size);
	st->uid = inode->uid;
	st->gid = inode->gid;
}

static void ramfs_file_stat(struct file *f, struct qs_stat *st)
{
	vfs_fill_stat(file_inode(f), st);
}

static void ramfs_file_release(struct file *f)
{
	dput(f->private);		/* an unlinked file's data goes now */
}

static const struct file_ops ramfs_file_ops = {
	.name		= "ramfs",
	.read		= ramfs_file_read,
	.write		= ramfs_file_write,
	.lseek		= ramfs_file_lseek,
	.stat		= ramfs_file_stat,
	.release	= ramfs_file_release,
};

struct dentry *vfs_file_dentry(struct file *f)
{
	return f->ops == &ramfs_file_ops ? f->private : NULL;
}

static bool is_dir(const struct dentry *d)
{
	return (d->d_inode->mode & FS_S_IFMT) == FS_S_IFDIR;
}

int vfs_open(struct dentry *cwd, const char *path, unsigned int flags, unsigned int mode,
	     struct dentry **out)
{
	unsigned int acc = flags & QS_O_ACCMODE;
	struct dentry *d;
	int err;

	if (acc == QS_O_ACCMODE)
		return -EINVAL;
	/* O_CREAT of a directory is EISDIR whatever the access mode, as
	 * POSIX has it: vfs_create() answers so. */
	if (flags & QS_O_CREAT)
		err = vfs_create(cwd, path, mode, flags & QS_O_EXCL, &d);
	else
		err = path_lookup(cwd, path, &d);
	if (err)
		return err;
	err = -ENOTDIR;
	if ((flags & QS_O_DIRECTORY) && !is_dir(d))
		goto put;
	if ((err = fs_permission(d->d_inode, (acc != QS_O_WRONLY ? FS_MAY_READ : 0) |
					     (acc != QS_O_RDONLY || (flags & QS_O_TRUNC) ?
					      FS_MAY_WRITE : 0))))
		goto put;
	err = -EISDIR;
	if (is_dir(d) && (acc != QS_O_RDONLY || (flags & QS_O_TRUNC)))
		goto put;
	if ((flags & QS_O_TRUNC) && acc != QS_O_RDONLY) {
		struct inode *inode = d->d_inode;

		mutex_lock(&inode->lock);
		inode->size = 0;	/* the buffer stays for the next write */
		mutex_unlock(&inode->lock);
	}
	*out = d;
	return 0;
put:
	dput(d);
	return err;
}

struct file *vfs_file_open(struct dentry *cwd, const char *path, unsigned int flags,
			   unsigned int mode, int *errp)
{
	struct dentry *d;
	struct file *f;
	int err = vfs_open(cwd, path, flags, mode, &d);

	if (err) {
		*errp = err;
		return NULL;
	}
	f = file_alloc(&ramfs_file_ops, d, flags & (QS_O_ACCMODE | QS_O_NONBLOCK | QS_O_APPEND));
	if (!f) {
		dput(d);
		*errp = -ENOMEM;
	}
	return f;
}

/* exec: the program's bytes, held still (inode->lock) until vfs_exec_put(). */
int vfs_exec_get(const char *path, struct dentry **dp, const void **data, size_t *size)
{
	struct dentry *d, *cwd = fs_cwd_get();
	int err = path_lookup(cwd, path, &d);	/* a relative path from the cwd */

	dput(cwd);
	if (err)
		return err;
	if ((d->d_inode->mode & FS_S_IFMT) != FS_S_IFREG || !(d->d_inode->mode & 0111) ||
	    fs_permission(d->d_inode, FS_MAY_EXEC)) {
		dput(d);
		return -EACCES;
	}
	mutex_lock(&d->d_inode->lock);
	*dp = d;
	*data = d->d_inode->data;
	*size = d->d_inode->size;
	return 0;
}

void vfs_exec_put(struct dentry *d)
{
	mutex_unlock(&d->d_inode->lock);
	dput(d);
}
