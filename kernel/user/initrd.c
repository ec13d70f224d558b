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
 */
#include "user.h"
#include <bootinfo.h>
#include <string.h>
#include <printk.h>
#include <mm.h>

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
 * Calls fn(name, data, size) for each file until it returns true.
 * Returns false if the archive is malformed or fn never said stop.
 */
static bool cpio_each(bool (*fn)(const char *, const void *, size_t, void *), void *arg)
{
	size_t off = 0;

	while (off + CPIO_HDR <= initrd_size) {
		const u8 *h = initrd + off;
		unsigned long fsize = hex8(h + 54), nsize = hex8(h + 94);
		size_t data;

		if (memcmp(h, "070701", 6) || nsize == 0 || nsize > initrd_size - off - CPIO_HDR)
			return false;
		const char *name = (const char *)h + CPIO_HDR;
		if (name[nsize - 1])
			return false;
		if (!strcmp(name, "TRAILER!!!"))
			return false;
		data = ALIGN_UP(off + CPIO_HDR + nsize, 4);
		if (data > initrd_size || fsize > initrd_size - data)
			return false;
		if (fn(name, initrd + data, fsize, arg))
			return true;
		off = ALIGN_UP(data + fsize, 4);
	}
	return false;
}

struct lookup {
	const char *name;
	const void *data;
	size_t size;
};

static bool match(const char *name, const void *data, size_t size, void *arg)
{
	struct lookup *l = arg;

	if (strcmp(name, l->name))
		return false;
	l->data = data;
	l->size = size;
	return true;
}

int initrd_find(const char *name, const void **data, size_t *size)
{
	struct lookup l = { .name = name };

	if (!initrd || !cpio_each(match, &l))
		return -ENOENT;
	*data = l.data;
	*size = l.size;
	return 0;
}

static bool count(const char *name, const void *data, size_t size, void *arg)
{
	((unsigned long *)arg)[0]++;
	((unsigned long *)arg)[1] += size;
	return false;
}

void initrd_init(void)
{
	unsigned long n[2] = { 0, 0 };

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
