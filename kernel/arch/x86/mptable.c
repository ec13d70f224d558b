/*
 * The Intel MultiProcessor Specification 1.4 table: the pre-ACPI way to
 * find CPUs and IOAPICs. Used when there is no MADT or with acpi=off.
 * QEMU's SeaBIOS still provides one (for up to 255 CPUs).
 */
#include <arch/acpi.h>
#include <arch/apic.h>
#include <arch/layout.h>
#include <printk.h>
#include <string.h>

struct mpf {
	char sig[4];		/* "_MP_" */
	u32 config;
	u8 length, spec_rev, checksum, feature1;
	u8 feature2, reserved[3];
} __packed;

struct mpc {
	char sig[4];		/* "PCMP" */
	u16 length;
	u8 spec_rev, checksum;
	char oem[8], product[12];
	u32 oem_table;
	u16 oem_size, count;
	u32 lapic;
	u16 ext_length;
	u8 ext_checksum, reserved;
} __packed;

static struct mpf *scan(u64 start, u64 len)
{
	for (u64 a = start; a + 16 <= start + len; a += 16) {
		struct mpf *f = phys_to_virt(a);
		if (!memcmp(f->sig, "_MP_", 4) && f->length == 1 && acpi_checksum_ok(f, 16))
			return f;
	}
	return NULL;
}

bool mptable_parse(void)
{
	u64 ebda = (u64)*(u16 *)phys_to_virt(0x40e) << 4;
	struct mpf *f = NULL;

	if (ebda)
		f = scan(ebda, 1024);
	if (!f)
		f = scan(0x9fc00, 1024);
	if (!f)
		f = scan(0xf0000, 0x10000);
	if (!f || !f->config)
		return false;

	struct mpc *c = phys_to_virt(f->config);
	if (memcmp(c->sig, "PCMP", 4) || !acpi_checksum_ok(c, c->length))
		return false;
	cpus_set_lapic(c->lapic);

	u8 *p = (u8 *)(c + 1), *end = (u8 *)c + c->length;
	for (int i = 0; i < c->count && p < end; i++) {
		switch (p[0]) {
		case 0:		/* processor: apic id, version, flags (1 enabled, 2 BSP) */
			if (p[3] & 1)
				cpus_add(p[1], p[3] & 2);
			p += 20;
			break;
		case 2:		/* IOAPIC: id, version, flags, address */
			if (p[3] & 1)
				ioapic_add(p[1], *(u32 *)(p + 4), 0);
			p += 8;
			break;
		case 3:		/* I/O interrupt: type, flags, bus, irq, apic, pin */
			/* ISA identity mapping is assumed; overrides matter only for
			 * the timer, which we do not route through the IOAPIC. */
			p += 8;
			break;
		default:	/* bus (1), local interrupt (4) */
			p += 8;
		}
	}
	return true;
}
