/* The per-CPU GDT and TSS (see gdt.h for why they exist in long mode). */
#include "gdt.h"
#include "string.h"

#define SEG_PRESENT  (1ul << 47)
#define SEG_CODEDATA (1ul << 44)
#define SEG_EXEC     (1ul << 43)
#define SEG_RW       (1ul << 41)
#define SEG_LONG     (1ul << 53)
#define SEG_DPL3     (3ul << 45)
#define SEG_TSS_AVAIL (0x9ul << 40)

struct gdt_ptr {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

static void gdt_set_tss(uint64_t *gdt, const struct tss *tss)
{
	uint64_t base = (uint64_t)tss;
	uint64_t limit = sizeof(*tss) - 1;

	gdt[GDT_TSS_LO] = (limit & 0xffff) | ((base & 0xffffff) << 16) |
			  SEG_TSS_AVAIL | SEG_PRESENT |
			  (((base >> 24) & 0xff) << 56);
	gdt[GDT_TSS_HI] = base >> 32;
}

/* CS must be reloaded with a far return; the data segments with moves. */
static void gdt_reload_segments(void)
{
	__asm__ volatile("pushq %[cs]\n\t"
			 "leaq 1f(%%rip), %%rax\n\t"
			 "pushq %%rax\n\t"
			 "lretq\n"
			 "1:\n\t"
			 "movw %w[ds], %%ax\n\t"
			 "movw %%ax, %%ds\n\t"
			 "movw %%ax, %%es\n\t"
			 "movw %%ax, %%ss\n\t"
			 :
			 : [cs] "i"(KERNEL_CS), [ds] "i"(KERNEL_DS)
			 : "rax", "memory");
}

void gdt_load(struct cpu_tables *t, int cpu,
	      const uintptr_t ist_top[IST_COUNT])
{
	struct gdt_ptr ptr = {sizeof(t->gdt) - 1, (uint64_t)t->gdt};

	memset(t, 0, sizeof(*t));
	t->gdt[GDT_KCODE] = SEG_PRESENT | SEG_CODEDATA | SEG_EXEC | SEG_RW |
			    SEG_LONG;
	t->gdt[GDT_KDATA] = SEG_PRESENT | SEG_CODEDATA | SEG_RW;
	t->gdt[GDT_UDATA] = t->gdt[GDT_KDATA] | SEG_DPL3;
	t->gdt[GDT_UCODE] = t->gdt[GDT_KCODE] | SEG_DPL3;
	/* Never loaded: lsl reads its limit, the CPU number (< 2^16). */
	t->gdt[GDT_CPUNUM] = SEG_PRESENT | SEG_CODEDATA | SEG_DPL3 |
			     (uint16_t)cpu;
	for (int i = 0; i < IST_COUNT; i++)
		t->tss.ist[i] = ist_top[i];
	t->tss.iomap_base = sizeof(t->tss); /* no I/O permission bitmap */
	gdt_set_tss(t->gdt, &t->tss);

	__asm__ volatile("lgdt %0" : : "m"(ptr) : "memory");
	gdt_reload_segments();
	__asm__ volatile("ltr %w0" : : "r"(TSS_SEL) : "memory");
}
