/*
 * ACPI, just enough to find the processors and interrupt controllers:
 * RSDP (from GRUB's Multiboot2 tag, else found in the BIOS areas) ->
 * RSDT/XSDT -> MADT ("APIC") for local APICs, IOAPICs and ISA interrupt
 * overrides, and the HPET table's address. If there is no usable MADT,
 * or "acpi=off" is given, the Intel MP table is read instead
 * (kernel/arch/x86/mptable.c).
 */
#include <arch/acpi.h>
#include <arch/apic.h>
#include <arch/layout.h>
#include <bootinfo.h>
#include <cmdline.h>
#include <printk.h>
#include <string.h>
#include <panic.h>

struct rsdp {
	char sig[8];
	u8 checksum;
	char oem[6];
	u8 revision;
	u32 rsdt;
	u32 length;
	u64 xsdt;
	u8 xchecksum;
	u8 reserved[3];
} __packed;

struct sdt_header {
	char sig[4];
	u32 length;
	u8 revision, checksum;
	char oem[6], oem_table[8];
	u32 oem_rev, creator, creator_rev;
} __packed;

struct madt {
	struct sdt_header h;
	u32 lapic_addr;
	u32 flags;
	u8 entries[];
} __packed;

struct hpet_table {
	struct sdt_header h;
	u32 block_id;
	u8 space_id, bit_width, bit_offset, access_size;
	u64 address;
} __packed;

static bool acpi_disabled;
static u64 lapic_phys = 0xfee00000;
static u64 hpet_phys;
static u32 pm1a_cnt;
static const char *source = "none";

static int set_acpi(const char *val)
{
	if (!val || strcmp(val, "off"))
		return -1;
	acpi_disabled = true;
	return 0;
}
CMDLINE_PARAM("acpi", set_acpi, "acpi=off: ignore ACPI, find CPUs with the MP table");

u64 acpi_lapic_phys(void) { return lapic_phys; }
u64 acpi_hpet_phys(void) { return hpet_phys; }
u32 acpi_pm1a_cnt(void) { return pm1a_cnt; }
const char *acpi_source(void) { return source; }

void cpus_set_lapic(u64 phys)
{
	lapic_phys = phys;
}

/* ACPI and MP-table structures: all bytes sum to zero. */
bool acpi_checksum_ok(const void *p, size_t n)
{
	u8 sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += ((const u8 *)p)[i];
	return sum == 0;
}

static struct rsdp *rsdp_scan(u64 start, u64 len)
{
	for (u64 a = start; a < start + len; a += 16) {
		struct rsdp *r = phys_to_virt(a);
		if (!memcmp(r->sig, "RSD PTR ", 8) && acpi_checksum_ok(r, 20))
			return r;
	}
	return NULL;
}

static struct rsdp *find_rsdp(void)
{
	u64 ebda;

	if (boot_info.rsdp_phys)
		return phys_to_virt(boot_info.rsdp_phys);
	ebda = (u64)*(u16 *)phys_to_virt(0x40e) << 4;
	struct rsdp *r = ebda ? rsdp_scan(ebda, 1024) : NULL;
	return r ? r : rsdp_scan(0xe0000, 0x20000);
}

static void parse_madt(struct madt *m)
{
	u8 *p = m->entries, *end = (u8 *)m + m->h.length;
	bool first = true;

	lapic_phys = m->lapic_addr;
	while (p + 2 <= end && p[1] >= 2) {
		switch (p[0]) {
		case 0:		/* processor local APIC: flags bit 0 enabled, bit 1 online-capable */
			if (*(u32 *)(p + 4) & 3) {
				cpus_add(p[3], first);
				first = false;
			}
			break;
		case 1:		/* IOAPIC */
			ioapic_add(p[2], *(u32 *)(p + 4), *(u32 *)(p + 8));
			break;
		case 2:		/* interrupt source override (ISA bus) */
			ioapic_add_override(p[3], *(u32 *)(p + 4), *(u16 *)(p + 8));
			break;
		case 5:		/* 64-bit local APIC address */
			lapic_phys = *(u64 *)(p + 4);
			break;
		}
		p += p[1];
	}
}

/*
 * The MADT lists the boot CPU first by convention, but the MADT does not
 * promise it; cpus_add() checks it against the running CPU's APIC ID
 * (kernel/arch/x86/cpus.c), so we only pass a hint here.
 */
void acpi_init(void)
{
	struct rsdp *r = acpi_disabled ? NULL : find_rsdp();
	struct madt *madt = NULL;

	if (r) {
		bool x = r->revision >= 2 && r->xsdt;
		struct sdt_header *root = phys_to_virt(x ? r->xsdt : r->rsdt);
		int n = (root->length - sizeof(*root)) / (x ? 8 : 4);

		for (int i = 0; i < n; i++) {
			u64 a = x ? ((u64 *)(root + 1))[i] : ((u32 *)(root + 1))[i];
			struct sdt_header *h = phys_to_virt(a);
			if (!acpi_checksum_ok(h, h->length))
				continue;
			if (!memcmp(h->sig, "APIC", 4))
				madt = (struct madt *)h;
			else if (!memcmp(h->sig, "FACP", 4) && h->length >= 68)
				pm1a_cnt = *(u32 *)((u8 *)h + 64);	/* PM1a_CNT_BLK */
			else if (!memcmp(h->sig, "HPET", 4))
				hpet_phys = ((struct hpet_table *)h)->address;
		}
	}
	if (madt) {
		source = "ACPI MADT";
		parse_madt(madt);
	} else if (mptable_parse()) {
		source = "MP table";
	} else {
		source = "none (one CPU assumed)";
		cpus_add(lapic_id_early(), true);
	}
	printk("acpi: CPUs from %s: %u found; LAPIC at %#lx%s\n", source, cpus_found,
	       lapic_phys, hpet_phys ? ", HPET present" : "");
}
