/*
 * The initrd: the cpio archive the boot loader hands the kernel as a
 * module (docs/user-mode.md), read in place by kernel/proc/initrd.c. The
 * filesystem unpacks it at boot (initrd_each()); exec and the module
 * tests read files from it directly.
 */
#ifndef _INITRD_H
#define _INITRD_H

#include <types.h>

struct initrd_file {
	const char *name;		/* "bin/sh": no leading slash */
	const void *data;		/* in place, in the archive */
	size_t size;
	u32 mode;			/* QS_S_IF* type and permissions */
};

void initrd_init(void);
/* A file or directory by path (leading slashes ignored), or -ENOENT. */
int initrd_lookup(const char *name, struct initrd_file *f);
/* A regular file's contents, or -ENOENT. */
int initrd_find(const char *name, const void **data, size_t *size);
/* Each file of the initrd, for the unpacking at boot. */
void initrd_each(void (*fn)(const char *name, unsigned int mode, const void *data,
			    size_t size, void *arg), void *arg);

#endif
