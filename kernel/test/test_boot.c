/*
 * What the kernel copies out of the boot loader's information
 * (kernel/core/multiboot.c): a string that Multiboot2 gives in a tag of
 * known size is read no further than the tag, even when the loader left
 * out its NUL; in a real info block the bytes after it are the next tag.
 *
 *   ktest=boot_*
 */
#include <ktest.h>
#include <bootinfo.h>
#include <string.h>
#include <errno.h>

/* A module tag whose string room holds "hello" and no NUL. */
KTEST(boot_string_bounded_by_its_tag)
{
	static const char block[] = "hellooverrun";	/* the tag's 5 bytes, then past it */
	char d[64];
	ssize_t n;

	memset(d, 'x', sizeof(d));
	n = boot_strcpy(d, sizeof(d), block, 5);
	KT_EXPECT(t, n == -EINVAL, "no NUL in its 5 bytes: returned %ld, want -EINVAL (%d)",
		  (long)n, -EINVAL);
	KT_EXPECT(t, strnlen(d, sizeof(d)) <= 5, "read past its 5 bytes: copied '%.63s'", d);
	n = boot_strcpy(d, sizeof(d), block, 0);
	KT_EXPECT(t, n == -EINVAL && !d[0], "a tag with no room for a string: %ld, '%.63s'",
		  (long)n, d);
}

/* Well-formed strings: their length returned, cut to the field. */
KTEST(boot_string_terminated)
{
	static const char initrd[] = "initrd.cpio\0junk";
	char name[101], d[64];
	ssize_t n;

	n = boot_strcpy(d, sizeof(d), initrd, sizeof(initrd));
	KT_EXPECT(t, n == 11 && !strcmp(d, "initrd.cpio"), "%ld '%s'", (long)n, d);
	n = boot_strcpy(d, sizeof(d), initrd, 12);	/* the NUL is the room's last byte */
	KT_EXPECT(t, n == 11 && !strcmp(d, "initrd.cpio"), "%ld '%s'", (long)n, d);
	n = boot_strcpy(d, sizeof(d), initrd, BOOT_STR_NOSIZE);
	KT_EXPECT(t, n == 11 && !strcmp(d, "initrd.cpio"), "Multiboot1: %ld '%s'", (long)n, d);
	/* A long path (QEMU's -initrd passes it) is cut to the field, not refused. */
	memset(name, 'a', sizeof(name) - 1);
	name[sizeof(name) - 1] = 0;
	n = boot_strcpy(d, sizeof(d), name, sizeof(name));
	KT_EXPECT(t, n == 100 && strlen(d) == sizeof(d) - 1, "a 100-byte name: %ld, %zu kept",
		  (long)n, strlen(d));
}
