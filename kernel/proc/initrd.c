/*
 * The initrd: a "newc" cpio archive (tools/mkinitrd.py makes it from the
 * programs in user/bin/) that the boot loader loads as a module: GRUB's
 * `module2` from the ISO, QEMU's `-initrd` with -kernel. The physical
 * allocator never hands out module memory (kernel/mm/pmm.c), so the
 * archive stays where the loader put it and is read in place, through the
 * direct map.
 *
 * newc: each file is a 110-byte ASCII header ("070701" and thirteen
 * 8-digit hex fields, of which we need the size and the name length),
 * the name with its NUL, padding to 4 bytes, the data, padding to 4.
 * The name "TRAILER!!!" ends the archive.
 *
 * At boot the filesystem unpacks it into ramfs (kernel/fs/ramfs.c), where
 * exec() and open() find its files; the kernel's tests still read it here.
 */
#include "proc.h"
#include <syscall.h>
#include <kmalloc.h>
#include <bootinfo.h>
#include <string.h>
#include <printk.h>
#include <mm.h>
#include <fs.h>

#define CPIO_HDR	110

static const u8 *initrd;
static size_t initrd_size;

static unsigned long hex8(const u8 *s)
{
	unsigned long v = 0;

	for (int i = 0; i < 8; i++) {
		char c = s[i];
		v = v * 16 + (c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			      c >= 'A' && c <= 'F' ? c - 'A' + 10 : 0);
	}
	return v;
}

/*
 * Calls fn(file, arg) for each file until it returns true.
 * Returns false if the archive is malformed or fn never said stop.
 */
static bool cpio_each(bool (*fn)(const struct initrd_file *, void *), void *arg)
{
	size_t off = 0;

	while (off + CPIO_HDR <= initrd_size) {
		const u8 *h = initrd + off;
		unsigned long fsize = hex8(h + 54), nsize = hex8(h + 94);
		struct initrd_file f;
		size_t data;

		if (memcmp(h, "070701", 6) || nsize == 0 || nsize > initrd_size - off - CPIO_HDR)
			return false;
		f.name = (const char *)h + CPIO_HDR;
		if (f.name[nsize - 1])
			return false;
		if (!strcmp(f.name, "TRAILER!!!"))
			return false;
		data = ALIGN_UP(off + CPIO_HDR + nsize, 4);
		if (data > initrd_size || fsize > initrd_size - data)
			return false;
		f.data = initrd + data;
		f.size = fsize;
		f.mode = hex8(h + 14);
		if (fn(&f, arg))
			return true;
		off = ALIGN_UP(data + fsize, 4);
	}
	return false;
}

struct lookup {
	const char *name;
	long index;			/* or the index-th file, if name is NULL */
	struct initrd_file f;
};

static bool match(const struct initrd_file *f, void *arg)
{
	struct lookup *l = arg;

	if (l->name ? strcmp(f->name, l->name) : l->index-- > 0)
		return false;
	l->f = *f;
	return true;
}

int initrd_lookup(const char *name, struct initrd_file *f)
{
	struct lookup l = { .name = name };

	while (*l.name == '/')
		l.name++;
	if (!initrd || !cpio_each(match, &l))
		return -ENOENT;
	*f = l.f;
	return 0;
}

int initrd_find(const char *name, const void **data, size_t *size)
{
	struct initrd_file f;

	if (initrd_lookup(name, &f) || (f.mode & QS_S_IFMT) != QS_S_IFREG)
		return -ENOENT;
	*data = f.data;
	*size = f.size;
	return 0;
}

static bool count(const struct initrd_file *f, void *arg)
{
	((unsigned long *)arg)[0]++;
	((unsigned long *)arg)[1] += f->size;
	return false;
}

/* open() resolves in the filesystem (kernel/fs/open.c), where the initrd
 * was unpacked at boot; the descriptor and O_CLOEXEC are this file's. */
static long sys_open(struct pt_regs *r)
{
	unsigned int flags = SYSCALL_ARG1(r);
	struct dentry *cwd;
	struct file *file;
	char *path;
	int err;

	if (flags & ~(QS_O_ACCMODE | QS_O_CREAT | QS_O_EXCL | QS_O_TRUNC | QS_O_APPEND |
		      QS_O_NONBLOCK | QS_O_DIRECTORY | QS_O_CLOEXEC))
		return -EINVAL;
	path = kmalloc(FS_PATH_MAX);
	if (!path)
		return -ENOMEM;
	err = strncpy_from_user(path, (const char __user *)SYSCALL_ARG0(r), FS_PATH_MAX);
	if (err >= FS_PATH_MAX)
		err = -ENAMETOOLONG;
	if (err < 0)
		goto out;
	cwd = fs_cwd_get();
	file = vfs_file_open(cwd, path, flags, SYSCALL_ARG2(r), &err);
	dput(cwd);
	if (!file)
		goto out;
	err = fd_install(file);
	if (err < 0) {
		file_put(file);
		goto out;
	}
	if (flags & QS_O_CLOEXEC)
		fd_set_cloexec(err, true);
out:
	kfree(path);
	return err;
}
SYSCALL_DEFINE(SYS_open, sys_open);

/* The index-th entry of the archive: a minimal readdir for `ls`. */
static long sys_qs_readdir(struct pt_regs *r)
{
	struct lookup l = { .index = SYSCALL_ARG0(r) };
	struct qs_dirent *d;
	long err;

	if (l.index < 0)
		return -EINVAL;
	if (!initrd || !cpio_each(match, &l))
		return -ENOENT;
	d = kzalloc(sizeof(*d));
	if (!d)
		return -ENOMEM;
	strlcpy(d->name, l.f.name, sizeof(d->name));
	d->size = l.f.size;
	d->mode = l.f.mode;
	err = copy_to_user((void __user *)SYSCALL_ARG1(r), d, sizeof(*d));
	kfree(d);
	return err;
}
SYSCALL_DEFINE(SYS_qs_readdir, sys_qs_readdir);

/* Each file of the archive, for the filesystem to unpack (kernel/fs/ramfs.c). */
struct each_arg {
	void (*fn)(const char *, unsigned int, const void *, size_t, void *);
	void *arg;
};

static bool each_one(const struct initrd_file *f, void *arg)
{
	struct each_arg *a = arg;

	a->fn(f->name, f->mode, f->data, f->size, a->arg);
	return false;
}

void initrd_each(void (*fn)(const char *name, unsigned int mode, const void *data,
			    size_t size, void *arg), void *arg)
{
	struct each_arg a = { fn, arg };

	if (initrd)
		cpio_each(each_one, &a);
}

void initrd_init(void)
{
	unsigned long n[2] = { 0, 0 };

	if (initrd)
		return;		/* already found (in-kernel tests read it early) */
	if (!boot_info.module_count) {
		printk("initrd: none (the boot loader gave no module)\n");
		return;
	}
	/* The first module is the initrd (tools/qrun.py and the ISO's grub.cfg). */
	initrd = phys_to_virt(boot_info.modules[0].start);
	initrd_size = boot_info.modules[0].end - boot_info.modules[0].start;
	cpio_each(count, n);
	printk("initrd: %s, %lu files, %lu bytes of programs (%zu in all)\n",
	       boot_info.modules[0].name, n[0], n[1], initrd_size);
}
