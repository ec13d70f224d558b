/*
 * Reading the boot loader's information: Multiboot2 (GRUB) or Multiboot1
 * (QEMU -kernel). Both give the command line, the memory map and the
 * modules; GRUB also hands us the ACPI RSDP. Everything is copied into
 * boot_info so that nothing later depends on the loader's memory.
 */
#include <bootinfo.h>
#include <string.h>
#include <errno.h>
#include <printk.h>
#include <panic.h>
#include <arch/layout.h>

#define MB2_MAGIC	0x36d76289
#define MB1_MAGIC	0x2badb002

struct boot_info boot_info;

static void add_mmap(u64 base, u64 len, u32 type)
{
	if (boot_info.mmap_count >= BOOT_MMAP_MAX)
		return;
	if (type < MEM_USABLE || type > MEM_BAD)
		type = MEM_RESERVED;
	boot_info.mmap[boot_info.mmap_count++] = (struct boot_mmap_entry){ base, len, type };
}

/* What it promises: include/bootinfo.h (kernel/test/test_boot.c checks it). */
ssize_t boot_strcpy(char *d, size_t dsz, const char *s, size_t max)
{
	size_t n = strnlen(s, max);		/* no byte past max is read */
	size_t k = n < dsz - 1 ? n : dsz - 1;

	memcpy(d, s, k);
	d[k] = 0;
	return n == max ? -EINVAL : (ssize_t)n;
}

/* A string of the loader's that had no NUL in its tag: counted and said. */
static void malformed(const char *what, size_t room)
{
	boot_info.malformed++;
	printk("boot: WARNING: the loader's %s has no NUL within its %zu bytes (a malformed "
	       "Multiboot2 tag): nothing past them was read\n", what, room);
}

static void add_module(u64 start, u64 end, const char *name, size_t max)
{
	struct boot_module *m;

	if (boot_info.module_count >= BOOT_MODULES_MAX)
		return;
	m = &boot_info.modules[boot_info.module_count++];
	m->start = start;
	m->end = end;
	/* The module itself is kept: its memory must stay out of the page
	 * allocator's hands whatever its name (kernel/mm/pmm.c). Only the
	 * name is refused. */
	if (boot_strcpy(m->name, sizeof(m->name), name, max) < 0) {
		m->name[0] = 0;
		malformed("module name", max);
	}
}

/* The bytes a tag of `size` has for its string, after a head of `head`. */
static size_t room(u32 size, u32 head)
{
	return size > head ? size - head : 0;
}

static void parse_mb2(u32 info)
{
	u8 *p = phys_to_virt(info);
	u32 total = *(u32 *)p;

	boot_info.loader = "multiboot2";
	boot_info.info_end = info + total;
	for (u8 *t = p + 8; t < p + total;) {
		u32 type = ((u32 *)t)[0], size = ((u32 *)t)[1];

		if (type == 0)
			break;
		switch (type) {
		case 1: {	/* command line: the bytes within the tag, if cut */
			ssize_t n = boot_strcpy(boot_info.cmdline, sizeof(boot_info.cmdline),
						(char *)t + 8, room(size, 8));

			if (n < 0)
				malformed("command line", room(size, 8));
			boot_info.cmdline_len = n < 0 ? strlen(boot_info.cmdline) : (size_t)n;
			break;
		}
		case 2:		/* boot loader name */
			if (boot_strcpy(boot_info.loader_name, sizeof(boot_info.loader_name),
					(char *)t + 8, room(size, 8)) < 0)
				malformed("name", room(size, 8));
			break;
		case 3:		/* module */
			add_module(((u32 *)t)[2], ((u32 *)t)[3], (char *)t + 16, room(size, 16));
			break;
		case 6: {	/* memory map */
			u32 esize = ((u32 *)t)[2];
			for (u8 *e = t + 16; e < t + size; e += esize)
				add_mmap(*(u64 *)e, *(u64 *)(e + 8), *(u32 *)(e + 16));
			break;
		}
		case 14:	/* ACPI 1.0 RSDP (copied into the tag) */
		case 15:	/* ACPI 2.0+ RSDP */
			if (!boot_info.rsdp_phys || type == 15)
				boot_info.rsdp_phys = virt_to_phys(t + 8);
			break;
		}
		t += ALIGN_UP(size, 8);
	}
}

struct mb1_info {
	u32 flags, mem_lower, mem_upper, boot_device, cmdline, mods_count, mods_addr;
	u32 syms[4];
	u32 mmap_length, mmap_addr;
	u32 drives_length, drives_addr, config_table, boot_loader_name;
} __packed;

static void parse_mb1(u32 info)
{
	struct mb1_info *mb = phys_to_virt(info);

	boot_info.loader = "multiboot1";
	boot_info.info_end = info + sizeof(*mb);
	if (mb->flags & (1 << 2))
		boot_info.cmdline_len = strlcpy(boot_info.cmdline, phys_to_virt(mb->cmdline),
						sizeof(boot_info.cmdline));
	if (mb->flags & (1 << 9))
		strlcpy(boot_info.loader_name, phys_to_virt(mb->boot_loader_name),
			sizeof(boot_info.loader_name));
	if (mb->flags & (1 << 3)) {
		u32 *m = phys_to_virt(mb->mods_addr);
		for (u32 i = 0; i < mb->mods_count; i++, m += 4)
			add_module(m[0], m[1], m[2] ? phys_to_virt(m[2]) : "", BOOT_STR_NOSIZE);
	}
	if (mb->flags & (1 << 6)) {
		u8 *e = phys_to_virt(mb->mmap_addr), *end = e + mb->mmap_length;
		while (e < end) {
			u32 size = *(u32 *)e;
			add_mmap(*(u64 *)(e + 4), *(u64 *)(e + 12), *(u32 *)(e + 20));
			e += size + 4;
		}
	} else if (mb->flags & 1) {
		add_mmap(0, (u64)mb->mem_lower * 1024, MEM_USABLE);
		add_mmap(0x100000, (u64)mb->mem_upper * 1024, MEM_USABLE);
	}
}

static bool memchr_eq(const char *s, char c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] == c)
			return true;
	return false;
}

void multiboot_parse(u32 magic, u32 info)
{
	boot_info.info_phys = info;
	if (magic == MB2_MAGIC)
		parse_mb2(info);
	else if (magic == MB1_MAGIC)
		parse_mb1(info);
	else
		panic("not started by a Multiboot loader (magic %#x)", magic);
	/* Loaders may put the kernel's file name first (QEMU's Multiboot1 does). */
	char *first_end = strchr(boot_info.cmdline, ' ');
	size_t first_len = first_end ? (size_t)(first_end - boot_info.cmdline)
				     : strlen(boot_info.cmdline);
	if (first_len >= 4 && !strncmp(boot_info.cmdline + first_len - 4, ".elf", 4) &&
	    !memchr_eq(boot_info.cmdline, '=', first_len))
		memmove(boot_info.cmdline, boot_info.cmdline + first_len + (first_end ? 1 : 0),
			strlen(boot_info.cmdline + first_len) + 1);
	if (!boot_info.mmap_count)
		panic("the boot loader gave no memory map");
}
