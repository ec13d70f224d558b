/*
 * The RAM filesystem: inodes whose data lives in kmalloc'd memory, and
 * whose directory tree is the dentry cache (a dentry in the cache is the
 * directory entry; there is no other copy), as in Linux's ramfs. The
 * initrd is unpacked into it at boot: a file's data points into the
 * archive, in place, until its first write copies it.
 */
#include <fs.h>
#include <initrd.h>
#include <kmalloc.h>
#include <string.h>
#include <printk.h>
#include <panic.h>
#include <errno.h>

struct dentry *fs_root;
struct mutex fs_mutex;
static atomic_long_t next_ino;

struct inode *ramfs_new_inode(unsigned int mode)
{
	struct inode *inode = fs_kzalloc(sizeof(*inode));

	if (!inode)
		return NULL;
	inode->mode = mode;
	inode->uid = fs_uid();
	inode->gid = fs_gid();
	inode->ino = atomic_long_inc_return(&next_ino);
	mutex_init(&inode->lock, "inode");
	return inode;
}

int fs_permission(const struct inode *inode, int mask)
{
	int uid = fs_uid();
	unsigned int bits = inode->mode;

	if (uid == 0)
		return 0;		/* root passes the mode bits */
	if (uid == inode->uid)
		bits >>= 6;
	else if (fs_gid() == inode->gid)
		bits >>= 3;
	return (bits & mask) == (unsigned int)mask ? 0 : -EACCES;
}

void ramfs_free_inode(struct inode *inode)
{
	if (inode->cap)
		kfree(inode->data);
	kfree(inode);
}

/* One buffer per file, from kmalloc's whole pages: far more than memory. */
#define RAMFS_MAX_FILE	(1UL << 32)

/* Write n bytes of buf at pos (inode->lock held): 0, -ENOMEM or -EFBIG. */
int ramfs_write(struct inode *inode, const void *buf, size_t n, size_t pos)
{
	size_t end = pos + n;

	if (end < pos)
		return -EINVAL;
	if (end > RAMFS_MAX_FILE)
		return -EFBIG;		/* and the doubling below cannot overflow */
	if (end > inode->cap) {
		/* An initrd file (cap 0) is copied whole: the new buffer holds
		 * its size even when the write ends inside it. */
		size_t need = end > inode->size ? end : inode->size;
		size_t cap = inode->cap ? inode->cap : 64;
		u8 *p;

		while (cap < need)
			cap *= 2;
		p = fs_kmalloc(cap);
		if (!p)
			return -ENOMEM;
		if (inode->size)
			memcpy(p, inode->data, inode->size);
		if (inode->cap)
			kfree(inode->data);
		inode->data = p;
		inode->cap = cap;
	}
	if (pos > inode->size)
		memset(inode->data + inode->size, 0, pos - inode->size);
	memcpy(inode->data + pos, buf, n);
	if (end > inode->size)
		inode->size = end;
	return 0;
}

static void unpack_one(const char *name, unsigned int mode, const void *data, size_t size,
		       void *arg)
{
	long *counts = arg;
	char *path = kmalloc(FS_PATH_MAX);
	struct dentry *d;
	int err;

	if (!path)
		return;
	/* mkdir -p of the directories above it */
	snprintf(path, FS_PATH_MAX, "/%s", name);
	for (char *s = path + 1; *s; s++) {
		if (*s == '/') {
			*s = 0;
			vfs_mkdir(fs_root, path, 0755);
			*s = '/';
		}
	}
	if ((mode & FS_S_IFMT) == FS_S_IFDIR) {
		err = vfs_mkdir(fs_root, path, mode & 07777);
		if (!err)
			counts[1]++;
	} else if ((err = vfs_create(fs_root, path, mode, true, &d)) == 0) {
		/* In place: cap 0 says the data is the initrd's, copied on write. */
		d->d_inode->data = (u8 *)data;
		d->d_inode->size = size;
		dput(d);
		counts[0]++;
	}
	if (err && err != -EEXIST)
		printk("fs: %s from the initrd: error %d\n", name, err);
	kfree(path);
}

void fs_init(void)
{
	long counts[2] = { 0, 0 };
	struct inode *root;

	dcache_init();
	mutex_init(&fs_mutex, "fs_mutex");
	root = ramfs_new_inode(FS_S_IFDIR | 0755);
	fs_root = root ? d_alloc_root(root) : NULL;
	if (!fs_root)
		panic("fs: no memory for the root");
	initrd_init();
	initrd_each(unpack_one, counts);
	vfs_mkdir(fs_root, "/tmp", 0777);	/* where any uid may create files */
	printk("fs: ramfs on /, dcache=%s lookup; %ld files, %ld directories from the initrd\n",
	       dcache_mode == DCACHE_RCU ? "rcu" : "lock", counts[0], counts[1]);
}
