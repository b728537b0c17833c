/*
 * The I/O APIC (device interrupts) and the legacy 8259 PICs. The kernel
 * takes no device interrupts yet; what matters is that nothing arrives
 * unasked: the PICs are remapped away from the exception vectors (a
 * spurious IRQ 7 arrives even when masked) and masked, and every I/O APIC
 * pin is programmed masked, the ISA ones with their vector, polarity and
 * trigger (from the MADT overrides) so that unmasking one is enough.
 */
#include "asm/acpi.h"
#include "asm/apic.h"
#include "asm/processor.h"
#include "asm/pgtable.h"
#include "printk.h"
#include "trap.h"

#define IOREGSEL 0x00
#define IOWIN 0x10
#define IOAPIC_VER 0x01
#define IOAPIC_REDTBL(n) (0x10 + 2 * (n))

#define RTE_MASKED (1ul << 16)
#define RTE_LEVEL (1ul << 15)
#define RTE_ACTIVE_LOW (1ul << 13)

/* Override flags (ACPI MADT): polarity in bits 0-1, trigger in bits 2-3. */
#define MPS_POLARITY_LOW 3
#define MPS_TRIGGER_LEVEL (3 << 2)

struct ioapic {
	volatile uint32_t *regs; /* volatile: MMIO, each access a device's */
	uint32_t gsi_base;
	uint32_t nr_pins;
};

static struct ioapic ioapics[MADT_MAX_IOAPICS];
static int nr_ioapics;

static uint32_t ioapic_read(struct ioapic *io, uint32_t reg)
{
	io->regs[IOREGSEL / 4] = reg;
	return io->regs[IOWIN / 4];
}

static void ioapic_write(struct ioapic *io, uint32_t reg, uint32_t v)
{
	io->regs[IOREGSEL / 4] = reg;
	io->regs[IOWIN / 4] = v;
}

static struct ioapic *ioapic_for(uint32_t gsi)
{
	for (int i = 0; i < nr_ioapics; i++)
		if (gsi >= ioapics[i].gsi_base &&
		    gsi < ioapics[i].gsi_base + ioapics[i].nr_pins)
			return &ioapics[i];
	return 0;
}

static void ioapic_write_entry(uint32_t gsi, uint64_t rte)
{
	struct ioapic *io = ioapic_for(gsi);
	uint32_t pin;

	if (!io)
		return;
	pin = gsi - io->gsi_base;
	ioapic_write(io, IOAPIC_REDTBL(pin), RTE_MASKED); /* mask first */
	ioapic_write(io, IOAPIC_REDTBL(pin) + 1, rte >> 32);
	ioapic_write(io, IOAPIC_REDTBL(pin), (uint32_t)rte);
}

uint64_t ioapic_read_entry(uint32_t gsi)
{
	struct ioapic *io = ioapic_for(gsi);
	uint32_t pin;

	if (!io)
		return ~0ul;
	pin = gsi - io->gsi_base;
	return ioapic_read(io, IOAPIC_REDTBL(pin)) |
	       (uint64_t)ioapic_read(io, IOAPIC_REDTBL(pin) + 1) << 32;
}

/* ISA IRQ irq's redirection entry: identity-mapped to a GSI, edge and
 * active high, unless an override says otherwise. */
static void ioapic_route_isa(int irq, uint32_t dest)
{
	uint32_t gsi = irq;
	uint64_t rte = RTE_MASKED | (IRQ_VECTOR_BASE + irq) |
		       ((uint64_t)dest << 56);

	/* An identity-mapped IRQ whose GSI another IRQ's override took
	 * (QEMU: IRQ 0 -> GSI 2, so IRQ 2, the cascade, has no pin). */
	for (int i = 0; i < madt.nr_overrides; i++)
		if (madt.overrides[i].gsi == (uint32_t)irq &&
		    madt.overrides[i].irq != irq)
			gsi = ~0u;
	for (int i = 0; i < madt.nr_overrides; i++) {
		const struct madt_override *o = &madt.overrides[i];

		if (o->irq != irq)
			continue;
		gsi = o->gsi;
		if ((o->flags & 3) == MPS_POLARITY_LOW)
			rte |= RTE_ACTIVE_LOW;
		if ((o->flags & (3 << 2)) == MPS_TRIGGER_LEVEL)
			rte |= RTE_LEVEL;
	}
	if (gsi != ~0u)
		ioapic_write_entry(gsi, rte);
}

void ioapic_init(uint32_t dest_apic_id)
{
	for (int i = 0; i < madt.nr_ioapics; i++) {
		struct ioapic *io = &ioapics[nr_ioapics++];

		io->regs = ioremap(madt.ioapics[i].phys, 4096);
		io->gsi_base = madt.ioapics[i].gsi_base;
		io->nr_pins = ((ioapic_read(io, IOAPIC_VER) >> 16) & 0xff) + 1;
		for (uint32_t pin = 0; pin < io->nr_pins; pin++)
			ioapic_write_entry(io->gsi_base + pin, RTE_MASKED);
		printk("IOAPIC[%d]: id %u at 0x%x, GSI %u-%u\n", i,
		       madt.ioapics[i].id, madt.ioapics[i].phys, io->gsi_base,
		       io->gsi_base + io->nr_pins - 1);
	}
	for (int irq = 0; irq < 16; irq++)
		ioapic_route_isa(irq, dest_apic_id);
}

/* A spurious IRQ 7 or 15 from a masked 8259: no EOI, nothing to do. */
static void pic_spurious(struct trap_frame *f)
{
}

void pic_disable(void)
{
	/* ICW1-4: edge, cascade, vectors 0x20 and 0x28, 8086 mode. */
	outb(0x20, 0x11);
	outb(0xa0, 0x11);
	outb(0x21, PIC_VECTOR_BASE);
	outb(0xa1, PIC_VECTOR_BASE + 8);
	outb(0x21, 4);
	outb(0xa1, 2);
	outb(0x21, 1);
	outb(0xa1, 1);
	outb(0x21, 0xff);
	outb(0xa1, 0xff);
	trap_set_handler(PIC_VECTOR_BASE + 7, pic_spurious);
	trap_set_handler(PIC_VECTOR_BASE + 15, pic_spurious);
}
