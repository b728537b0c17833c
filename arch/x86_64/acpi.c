/*
 * ACPI table discovery: the RSDP (from the boot loader's tag, else, on BIOS
 * firmware only, the BIOS areas), then the XSDT or RSDT, then the MADT.
 * Every table's checksum is verified before it is believed. Tables are
 * read through the direct map (or ioremap, when firmware put them outside
 * RAM).
 */
#include "asm/acpi.h"
#include "asm/page.h"
#include "multiboot.h"
#include "asm/pgtable.h"
#include "percpu.h"
#include "printk.h"
#include "string.h"

_Static_assert(MADT_MAX_CPUS >= NR_CPUS,
	       "the MADT must hold every CPU the kernel can number");

struct acpi_rsdp {
	char signature[8];
	uint8_t checksum;
	char oem_id[6];
	uint8_t revision;
	uint32_t rsdt_addr;
	/* ACPI 2.0+ */
	uint32_t length;
	uint64_t xsdt_addr;
	uint8_t ext_checksum;
	uint8_t reserved[3];
} __attribute__((packed));

enum {
	MADT_LAPIC = 0,
	MADT_IOAPIC = 1,
	MADT_OVERRIDE = 2,
	MADT_LAPIC_ADDR = 5,
	MADT_X2APIC = 9,
};
#define MADT_CPU_ENABLED 1
#define MADT_CPU_ONLINE_CAPABLE 2

struct madt_info madt;

bool acpi_checksum_ok(const void *table, uint32_t len)
{
	const uint8_t *p = table;
	uint8_t sum = 0;

	for (uint32_t i = 0; i < len; i++)
		sum += p[i];
	return sum == 0;
}

static const void *acpi_map(uint64_t pa, uint32_t len)
{
	void *va = phys_to_virt(pa);

	if (!(paging_lookup((uintptr_t)va) & PTE_P) ||
	    !(paging_lookup((uintptr_t)va + len - 1) & PTE_P))
		va = ioremap(pa, len);
	return va;
}

static const struct acpi_rsdp *rsdp_check(const struct acpi_rsdp *r)
{
	if (memcmp(r->signature, "RSD PTR ", 8) != 0 ||
	    !acpi_checksum_ok(r, 20))
		return 0;
	if (r->revision >= 2 && !acpi_checksum_ok(r, r->length))
		return 0;
	return r;
}

static const struct acpi_rsdp *rsdp_scan(uint64_t start, uint64_t len)
{
	for (uint64_t pa = start; pa + 20 <= start + len; pa += 16) {
		const struct acpi_rsdp *r = rsdp_check(phys_to_virt(pa));

		if (r)
			return r;
	}
	return 0;
}

enum acpi_rsdp_source acpi_rsdp_source;

/* The loader's copy first; else the first KiB of the EBDA, then the BIOS
 * ROM area (ACPI spec 5.2.5.1). EFI firmware has neither area (low memory
 * is ordinary RAM there, and 0x40e holds whatever was left in it): its
 * RSDP is in the EFI configuration table, which only the loader saw, so
 * the loader's tag is the only way to it. */
enum acpi_rsdp_source acpi_rsdp_find(const struct boot_info *bi,
				     const void **rsdp)
{
	const struct acpi_rsdp *r = 0;
	uint64_t ebda;

	*rsdp = 0;
	if (bi->rsdp_len)
		r = rsdp_check((const struct acpi_rsdp *)bi->rsdp);
	if (r) {
		*rsdp = r;
		return ACPI_RSDP_LOADER;
	}
	if (bi->firmware == BOOT_FW_EFI)
		return ACPI_RSDP_NONE;
	ebda = (uint64_t)*(const uint16_t *)phys_to_virt(0x40e) << 4;
	if (ebda >= 0x80000 && ebda < 0xa0000)
		r = rsdp_scan(ebda, 1024);
	if (!r)
		r = rsdp_scan(0xe0000, 0x20000);
	*rsdp = r;
	return r ? ACPI_RSDP_BIOS_AREA : ACPI_RSDP_NONE;
}

static const struct acpi_sdt_header *sdt_map(uint64_t pa)
{
	const struct acpi_sdt_header *h = acpi_map(pa, sizeof(*h));

	h = acpi_map(pa, h->length);
	return acpi_checksum_ok(h, h->length) ? h : 0;
}

/* The table with this signature listed in the XSDT (8-byte entries) or
 * RSDT (4-byte entries). */
static const struct acpi_sdt_header *sdt_find(const struct acpi_rsdp *r,
					      const char *sig)
{
	bool x = r->revision >= 2 && r->xsdt_addr;
	const struct acpi_sdt_header *root = sdt_map(x ? r->xsdt_addr
						       : r->rsdt_addr);
	int esize = x ? 8 : 4;

	if (!root) {
		printk("ACPI: %s checksum bad\n", x ? "XSDT" : "RSDT");
		return 0;
	}
	for (uint32_t off = sizeof(*root); off + esize <= root->length;
	     off += esize) {
		const uint8_t *e = (const uint8_t *)root + off;
		uint64_t pa = x ? *(const uint64_t *)e : *(const uint32_t *)e;
		const struct acpi_sdt_header *h = sdt_map(pa);

		if (h && memcmp(h->signature, sig, 4) == 0)
			return h;
	}
	return 0;
}

static void madt_add_cpu(struct madt_info *out, uint32_t apic_id,
			 uint32_t flags)
{
	if (!(flags & (MADT_CPU_ENABLED | MADT_CPU_ONLINE_CAPABLE))) {
		out->nr_disabled++;
		return;
	}
	/* Firmware lists a CPU with an APIC id below 255 as type 0 and one
	 * above as type 9 (x2APIC); one listed as both is one CPU. */
	for (int i = 0; i < out->nr_cpus; i++)
		if (out->apic_ids[i] == apic_id) {
			printk("ACPI: APIC id %u listed twice; once counted\n",
			       apic_id);
			return;
		}
	if (out->nr_cpus == MADT_MAX_CPUS) {
		printk("ACPI: more than %d CPUs; APIC id %u ignored\n",
		       MADT_MAX_CPUS, apic_id);
		return;
	}
	out->apic_ids[out->nr_cpus++] = apic_id;
}

/* The length each entry type must have at least; shorter ones are
 * skipped rather than read past. */
static uint8_t madt_entry_min_len(uint8_t type)
{
	switch (type) {
	case MADT_LAPIC: return 8;
	case MADT_IOAPIC: return 12;
	case MADT_OVERRIDE: return 10;
	case MADT_LAPIC_ADDR: return 12;
	case MADT_X2APIC: return 16;
	default: return 2;
	}
}

static void madt_entry(struct madt_info *out, const uint8_t *e)
{
	if (e[1] < madt_entry_min_len(e[0])) {
		printk("ACPI: MADT entry type %u too short (%u bytes); "
		       "ignored\n", e[0], e[1]);
		return;
	}
	switch (e[0]) {
	case MADT_LAPIC:
		madt_add_cpu(out, e[3], *(const uint32_t *)(e + 4));
		break;
	case MADT_X2APIC:
		madt_add_cpu(out, *(const uint32_t *)(e + 4),
			     *(const uint32_t *)(e + 8));
		break;
	case MADT_IOAPIC:
		if (out->nr_ioapics < MADT_MAX_IOAPICS)
			out->ioapics[out->nr_ioapics++] = (struct madt_ioapic){
				e[2], *(const uint32_t *)(e + 4),
				*(const uint32_t *)(e + 8)};
		break;
	case MADT_OVERRIDE:
		if (out->nr_overrides < MADT_MAX_OVERRIDES)
			out->overrides[out->nr_overrides++] =
				(struct madt_override){
					e[3], *(const uint32_t *)(e + 4),
					*(const uint16_t *)(e + 8)};
		break;
	case MADT_LAPIC_ADDR:
		out->lapic_phys = *(const uint64_t *)(e + 4);
		break;
	}
}

bool madt_parse(const struct acpi_madt *m, struct madt_info *out)
{
	const uint8_t *p = m->entries;
	const uint8_t *end = (const uint8_t *)m + m->hdr.length;

	memset(out, 0, sizeof(*out));
	if (memcmp(m->hdr.signature, "APIC", 4) != 0 ||
	    m->hdr.length < sizeof(*m) || !acpi_checksum_ok(m, m->hdr.length))
		return false;
	out->lapic_phys = m->lapic_addr;
	while (p + 2 <= end && p[1] >= 2 && p + p[1] <= end) {
		madt_entry(out, p);
		p += p[1];
	}
	return out->nr_cpus > 0;
}

bool acpi_init(void)
{
	const struct acpi_rsdp *r;
	const struct acpi_sdt_header *m;

	acpi_rsdp_source = acpi_rsdp_find(&loader_info, (const void **)&r);
	if (!r) {
		printk("ACPI: no RSDP: %s; booting on one CPU\n",
		       loader_info.firmware == BOOT_FW_EFI ?
		       "the loader passed none, and EFI firmware has no BIOS "
		       "area to search" :
		       "the loader passed none, and none is in the BIOS areas");
		return false;
	}
	m = sdt_find(r, "APIC");
	if (!m || !madt_parse((const struct acpi_madt *)m, &madt)) {
		memset(&madt, 0, sizeof(madt)); /* no half-parsed table */
		printk("ACPI: no usable MADT; booting on one CPU\n");
		return false;
	}
	printk("ACPI: RSDP rev %u %s, MADT: %d CPU(s)%s, %d I/O APIC(s), "
	       "%d override(s), local APIC at 0x%lx\n", r->revision,
	       acpi_rsdp_source == ACPI_RSDP_LOADER ? "from the loader's tag"
						    : "from the BIOS area",
	       madt.nr_cpus, madt.nr_disabled ? " (+disabled)" : "",
	       madt.nr_ioapics, madt.nr_overrides, madt.lapic_phys);
	return true;
}
