/*
 * What the boot loader told us, in one loader-independent form
 * (kernel/core/multiboot.c fills it from Multiboot2 or Multiboot1).
 */
#ifndef _BOOTINFO_H
#define _BOOTINFO_H

#include <types.h>

/* The longest kernel command line kept (the rest is cut, with a warning). */
#define BOOT_CMDLINE_MAX	4096

#define BOOT_MMAP_MAX		64
#define BOOT_MODULES_MAX	8

#define MEM_USABLE		1
#define MEM_RESERVED		2
#define MEM_ACPI		3
#define MEM_NVS			4
#define MEM_BAD			5

struct boot_mmap_entry {
	u64 base, len;
	u32 type;
};

struct boot_module {
	u64 start, end;			/* physical, end exclusive */
	char name[64];
};

struct boot_info {
	const char *loader;		/* "multiboot2" or "multiboot1" */
	char loader_name[64];		/* what the loader calls itself */
	char cmdline[BOOT_CMDLINE_MAX];
	size_t cmdline_len;		/* as the loader gave it: more than fits = cut */
	struct boot_mmap_entry mmap[BOOT_MMAP_MAX];
	unsigned int mmap_count;
	struct boot_module modules[BOOT_MODULES_MAX];
	unsigned int module_count;
	u64 rsdp_phys;			/* 0: search the BIOS areas */
	u64 info_phys, info_end;	/* the loader's info block: keep it */
	unsigned int malformed;		/* its strings with no NUL in their tag */
};

extern struct boot_info boot_info;

void multiboot_parse(u32 magic, u32 info_phys);
/*
 * A string from the loader into d (dsz bytes, always terminated, cut to
 * fit). Multiboot2 gives each string in a tag of known size: max, the
 * bytes it may occupy, of which none past the last is read. Multiboot1
 * gives a bare pointer: BOOT_STR_NOSIZE. Returns the string's length, or
 * -EINVAL when it has no NUL within max (a malformed tag).
 */
#define BOOT_STR_NOSIZE		((size_t)-1)
ssize_t boot_strcpy(char *d, size_t dsz, const char *s, size_t max);

#endif
