/*
 * Tests of the ACPI tables the kernel reads (arch/x86_64/acpi.c) and of
 * the I/O APIC set-up built from them (arch/x86_64/ioapic.c): the checksum,
 * MADT parsing of hand-built tables (good, corrupt and malformed), and the
 * live MADT and I/O APIC redirection entries QEMU's firmware led to.
 */
#include <stdarg.h>

#include "asm/acpi.h"
#include "asm/apic.h"
#include "asm/smp.h"
#include "ktest.h"
#include "string.h"

/* A hand-built MADT, appended to entry by entry: each test builds one in
 * b and parses it into info. */
static struct {
	uint8_t buf[10240]; /* MADT_MAX_CPUS + 2 x2APIC entries, and more */
	uint32_t len;
} b;
static struct madt_info info;

static void put(const void *p, uint32_t n)
{
	if (b.len + n > sizeof(b.buf)) {
		ktest_fail_msg(__FILE__, __LINE__, "test MADT buffer too small");
		ktest_abort();
	}
	memcpy(b.buf + b.len, p, n);
	b.len += n;
}

static void put8(uint8_t v) { put(&v, 1); }
static void put16(uint16_t v) { put(&v, 2); }
static void put32(uint32_t v) { put(&v, 4); }
static void put64(uint64_t v) { put(&v, 8); }

/* n bytes, given as ints: an entry's type, length and byte fields. */
static void put_raw(int n, ...)
{
	va_list ap;

	va_start(ap, n);
	while (n--)
		put8((uint8_t)va_arg(ap, int));
	va_end(ap);
}

/* The header (length and checksum filled in by madt_finish) and the
 * MADT's own two fields. */
static void madt_begin(uint32_t lapic_addr)
{
	struct acpi_sdt_header h = {.revision = 3};

	memset(&b, 0, sizeof(b));
	memcpy(h.signature, "APIC", 4);
	memcpy(h.oem_id, "KTEST ", 6);
	memcpy(h.oem_table_id, "KTESTMAD", 8);
	put(&h, sizeof(h));
	put32(lapic_addr);
	put32(1); /* PCAT_COMPAT */
}

/* The entries: type and length first, as ACPI lays them out. */
static void madt_lapic(uint8_t uid, uint8_t apic_id, uint32_t flags)
{
	put_raw(4, 0, 8, uid, apic_id);
	put32(flags);
}

static void madt_x2apic(uint32_t apic_id, uint32_t flags, uint32_t uid)
{
	put_raw(4, 9, 16, 0, 0);
	put32(apic_id);
	put32(flags);
	put32(uid);
}

static void madt_ioapic(uint8_t id, uint32_t addr, uint32_t gsi_base)
{
	put_raw(4, 1, 12, id, 0);
	put32(addr);
	put32(gsi_base);
}

static void madt_override(uint8_t irq, uint32_t gsi, uint16_t flags)
{
	put_raw(4, 2, 10, 0 /* bus: ISA */, irq);
	put32(gsi);
	put16(flags);
}

static void madt_lapic_addr(uint64_t addr)
{
	put_raw(4, 5, 12, 0, 0);
	put64(addr);
}

static uint8_t sum_bytes(const uint8_t *p, uint32_t n)
{
	uint8_t s = 0;

	while (n--)
		s += *p++;
	return s;
}

/* Set the length and make the bytes sum to zero. */
static const struct acpi_madt *madt_finish(void)
{
	struct acpi_sdt_header *h = (struct acpi_sdt_header *)b.buf;

	h->length = b.len;
	h->checksum = 0;
	h->checksum = -sum_bytes(b.buf, b.len);
	return (const struct acpi_madt *)b.buf;
}

/* Finish and parse b: it parses, and lists exactly n CPUs, with the
 * APIC ids that follow. */
static void expect_parsed_cpus(int n, ...)
{
	va_list ap;

	KASSERT_TRUE(madt_parse(madt_finish(), &info));
	KEXPECT_EQ(info.nr_cpus, n);
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		KEXPECT_EQ(info.apic_ids[i], (uint32_t)va_arg(ap, int));
	va_end(ap);
}

/* A table whose bytes sum to zero passes; one flipped byte fails it, and
 * bytes past the length do not count. */
KTEST(acpi, checksum)
{
	static uint8_t t[65];

	for (int i = 0; i < 64; i++)
		t[i] = (uint8_t)(i * 37 + 11);
	t[9] = 0;
	t[9] = -sum_bytes(t, 64);
	t[64] = 0x55; /* beyond the length */
	KEXPECT_TRUE(acpi_checksum_ok(t, 64));
	t[30] ^= 0x01;
	KEXPECT_FALSE(acpi_checksum_ok(t, 64));
	t[30] ^= 0x01;
	t[63] ^= 0x80;
	KEXPECT_FALSE(acpi_checksum_ok(t, 64));
	t[63] ^= 0x80;
	KEXPECT_TRUE(acpi_checksum_ok(t, 64));
	KEXPECT_FALSE(acpi_checksum_ok(t, 65));
}

/* Every entry type the kernel reads is decoded: enabled, disabled and
 * online-capable LAPICs, x2APICs, I/O APICs, overrides, the 64-bit LAPIC
 * address. */
KTEST(acpi, madt_parse_all_entry_types)
{
	madt_begin(0xfee00000);
	madt_lapic(0, 0, 1);
	madt_lapic(1, 3, 1);
	madt_lapic(2, 5, 0);           /* disabled */
	madt_lapic(3, 7, 2);           /* online capable */
	madt_x2apic(0x1234, 1, 4);
	madt_ioapic(9, 0xfec01000, 24);
	madt_override(0, 2, 0x000f);   /* active low, level */
	madt_lapic_addr(0x1fee00000ul);
	expect_parsed_cpus(4, 0, 3, 7, 0x1234);
	KEXPECT_EQ(info.nr_disabled, 1);
	KEXPECT_EQ(info.nr_ioapics, 1);
	KEXPECT_EQ(info.ioapics[0].id, 9);
	KEXPECT_EQ(info.ioapics[0].phys, 0xfec01000);
	KEXPECT_EQ(info.ioapics[0].gsi_base, 24);
	KEXPECT_EQ(info.nr_overrides, 1);
	KEXPECT_EQ(info.overrides[0].irq, 0);
	KEXPECT_EQ(info.overrides[0].gsi, 2);
	KEXPECT_EQ(info.overrides[0].flags, 0x000f);
	KEXPECT_EQ(info.lapic_phys, 0x1fee00000ul);
}

/* Without a type-5 entry the header's 32-bit LAPIC address is used. */
KTEST(acpi, madt_lapic_addr_from_header)
{
	madt_begin(0xfee00000);
	madt_lapic(0, 2, 1);
	expect_parsed_cpus(1, 2);
	KEXPECT_EQ(info.lapic_phys, 0xfee00000);
}

/* A MADT with a bad checksum, a wrong signature or a length shorter than
 * its header is refused. */
KTEST(acpi, madt_bad_tables_refused)
{
	struct acpi_madt *m = (struct acpi_madt *)b.buf;

	madt_begin(0xfee00000);
	madt_lapic(0, 0, 1);
	madt_finish();
	KASSERT_TRUE(madt_parse(m, &info));

	b.buf[b.len - 1] ^= 0x01; /* a flag bit: checksum now off by one */
	KEXPECT_FALSE(madt_parse(m, &info));
	b.buf[b.len - 1] ^= 0x01;

	memcpy(m->hdr.signature, "APIX", 4);
	madt_finish(); /* checksum right, signature wrong */
	KEXPECT_FALSE(madt_parse(m, &info));
	memcpy(m->hdr.signature, "APIC", 4);

	madt_finish();
	m->hdr.length = sizeof(struct acpi_sdt_header);
	m->hdr.checksum = 0;
	m->hdr.checksum = -sum_bytes(b.buf, m->hdr.length);
	KEXPECT_FALSE(madt_parse(m, &info));
}

/* An entry of length 0 ends parsing (no endless loop) and what precedes
 * it is kept. */
KTEST(acpi, madt_zero_length_entry_stops)
{
	madt_begin(0xfee00000);
	madt_lapic(0, 1, 1);
	madt_lapic(1, 2, 1);
	put_raw(2, 0, 0); /* type LAPIC, length 0 */
	madt_lapic(2, 9, 1);
	expect_parsed_cpus(2, 1, 2);
}

/* An entry running past the end of the table is not read. */
KTEST(acpi, madt_entry_past_end_ignored)
{
	madt_begin(0xfee00000);
	madt_lapic(0, 4, 1);
	put_raw(4, 0, 8, 1, 6); /* a LAPIC entry claiming 8 bytes, 4 here */
	expect_parsed_cpus(1, 4);
	KEXPECT_EQ(info.nr_disabled, 0);
}

/* An entry shorter than its type's layout is not decoded (the parser
 * would read the next entry's bytes as its fields). */
KTEST(acpi, madt_short_entry_not_decoded)
{
	madt_begin(0xfee00000);
	madt_lapic(0, 4, 1);
	put_raw(4, 0, 4, 1, 0x42); /* a LAPIC entry of 4 bytes, not 8 */
	madt_ioapic(1, 0xfec00000, 0); /* its bytes look like flags 1 */
	expect_parsed_cpus(1, 4);
	KEXPECT_EQ(info.nr_ioapics, 1);
}

/* More than 255 CPUs, as QEMU's q35 lists them: type 0 entries for APIC
 * ids below 255 and type 9 (x2APIC) for the rest, all kept in table
 * order with their 32-bit ids; a CPU listed as both types counts once. */
KTEST(acpi, madt_x2apic_ids_above_255)
{
	madt_begin(0xfee00000);
	for (int id = 0; id < 255; id++)
		madt_lapic((uint8_t)id, (uint8_t)id, 1);
	for (uint32_t id = 255; id < 300; id++)
		madt_x2apic(id, 1, id);
	madt_x2apic(7, 1, 7);          /* already listed as type 0 */
	madt_x2apic(0x10000, 0, 300);  /* disabled */
	KASSERT_TRUE(madt_parse(madt_finish(), &info));
	KEXPECT_EQ(info.nr_cpus, 300);
	KEXPECT_EQ(info.nr_disabled, 1);
	for (int i = 0; i < info.nr_cpus; i++)
		if (info.apic_ids[i] != (uint32_t)i) {
			KEXPECT_EQ(info.apic_ids[i], i);
			break;
		}
}

/* A MADT listing more CPUs than the kernel can number keeps the first
 * MADT_MAX_CPUS and ignores the rest (with a message), rather than
 * writing past the table. */
KTEST(acpi, madt_more_cpus_than_max_ignored)
{
	madt_begin(0xfee00000);
	for (uint32_t id = 0; id < MADT_MAX_CPUS + 2; id++)
		madt_x2apic(id * 2, 1, id);
	KASSERT_TRUE(madt_parse(madt_finish(), &info));
	KEXPECT_EQ(info.nr_cpus, MADT_MAX_CPUS);
	KEXPECT_EQ(info.apic_ids[MADT_MAX_CPUS - 1], (MADT_MAX_CPUS - 1) * 2);
}

/* The GSI ISA IRQ irq is wired to (-1: none, its pin taken by another
 * IRQ's override, as QEMU does with IRQ 0 on GSI 2), and its override's
 * flags. */
static int isa_irq_gsi(int irq, uint16_t *flags)
{
	*flags = 0;
	for (int i = 0; i < madt.nr_overrides; i++)
		if (madt.overrides[i].irq == irq) {
			*flags = madt.overrides[i].flags;
			return madt.overrides[i].gsi;
		}
	for (int i = 0; i < madt.nr_overrides; i++)
		if (madt.overrides[i].gsi == (uint32_t)irq)
			return -1;
	return irq;
}

#define RTE_VECTOR(e) ((e) & 0xff)
#define RTE_ACTIVE_LOW (1ul << 13)
#define RTE_LEVEL (1ul << 15)
#define RTE_MASKED (1ul << 16)
#define RTE_DEST(e) ((e) >> 56)

/* The firmware's MADT was read, and each ISA IRQ's redirection entry (on
 * the GSI the overrides give it) is masked, carries vector
 * IRQ_VECTOR_BASE + irq, the override's polarity and trigger, and targets
 * the boot CPU. */
KTEST(acpi, live_madt_and_isa_routing)
{
	KEXPECT_GE(madt.nr_cpus, 1);
	KEXPECT_GE(madt.nr_ioapics, 1);
	KEXPECT_NE(madt.lapic_phys, 0);
	KEXPECT_EQ(madt.lapic_phys % 4096, 0);
	for (int irq = 0; irq < 16; irq++) {
		uint16_t flags;
		int gsi = isa_irq_gsi(irq, &flags);
		uint64_t e;

		if (gsi < 0)
			continue;
		e = ioapic_read_entry(gsi);
		if (e == ~0ul) {
			ktest_fail_msg(__FILE__, __LINE__,
				       "IRQ %d: no I/O APIC serves GSI %d", irq,
				       gsi);
			continue;
		}
		if (!(e & RTE_MASKED) ||
		    RTE_VECTOR(e) != (uint64_t)IRQ_VECTOR_BASE + irq ||
		    !!(e & RTE_ACTIVE_LOW) != ((flags & 3) == 3) ||
		    !!(e & RTE_LEVEL) != (((flags >> 2) & 3) == 3) ||
		    RTE_DEST(e) != arch_cpu_hw_id(0))
			ktest_fail_msg(__FILE__, __LINE__,
				       "IRQ %d (GSI %d, override flags %#x): "
				       "entry %#lx, want masked, vector %#x, "
				       "dest %u", irq, gsi, flags,
				       (unsigned long)e, IRQ_VECTOR_BASE + irq,
				       arch_cpu_hw_id(0));
	}
}
