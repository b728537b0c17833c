/*
 * Per-CPU areas, static and dynamic, as Linux's mm/percpu.c (percpu.h,
 * percpu_alloc.h, docs/percpu.md).
 *
 * Static: the template section .percpu holds every DEFINE_PER_CPU
 * variable with its initial value; each possible CPU gets a page-aligned
 * copy, and __per_cpu_offset[cpu] is the distance from the template to
 * that copy. The copies live at fixed addresses, CPU c's at
 * PERCPU_REGION + c * PERCPU_AREA_STRIDE (asm/page.h), backed by pages
 * of the page allocator.
 *
 * Dynamic: alloc_percpu() and free_percpu(), a first-fit allocator over a
 * region reserved at the end of the per-CPU template, as Linux's first
 * chunk. The region is part of the template, so setup_per_cpu_areas()
 * gives every CPU a copy of it at the same offset as everything else: one
 * template address p names CPU c's copy at p + __per_cpu_offset[c], the
 * rule DEFINE_PER_CPU variables follow. per_cpu_ptr(), this_cpu_ptr() and
 * the %gs: operations need no change to work on what alloc_percpu()
 * returns; the allocator only decides which part of the region is whose.
 */
#include "percpu.h"
#include "percpu_alloc.h"
#include "preempt.h"
#include "irqflags.h"
#include "asm/page.h"
#include "asm/pgtable.h"
#include "ksyms.h"
#include "locking/lockdep.h"
#include "locking/mutex.h"
#include "mm/page_alloc.h"
#include "panic.h"
#include "printk.h"
#include "rwonce.h"
#include "string.h"
#include "vsprintf.h"

/* this_cpu_off must be the first variable of every area (linker.ld places
 * .percpu.first first), so that a debugger finds it at the area's start. */
__attribute__((section(".percpu.first"))) unsigned long this_cpu_off;
DEFINE_PER_CPU(int, cpu_number);
DEFINE_PER_CPU(int, __preempt_count);

unsigned long __per_cpu_offset[NR_CPUS];

static size_t percpu_size(void)
{
	return PAGE_ALIGN((size_t)(__per_cpu_end - __per_cpu_start));
}

_Static_assert((unsigned long)NR_CPUS * PERCPU_AREA_STRIDE <=
		       -(unsigned long)PERCPU_REGION,
	       "every CPU's slot fits in the per-CPU region");

/* Pages for the address va .. va + size, mapped there: CPU c's area (and
 * the lock validator's shadow of it, lockdep_percpu.c). Not zeroed. */
void *percpu_map_pages(uintptr_t va, size_t size, const char *what, int cpu)
{
	size_t pages = PAGE_ALIGN(size) / PAGE_SIZE;
	char *mem = pages_alloc(pages);

	if (!mem)
		panic("percpu: no memory for CPU %d's %s (%lu pages)", cpu,
		      what, (unsigned long)pages);
	for (size_t i = 0; i < pages; i++)
		if (!paging_map_page(va + i * PAGE_SIZE,
				     virt_to_phys(mem + i * PAGE_SIZE),
				     PTE_W | PTE_G | PTE_NX))
			panic("percpu: no page table for CPU %d's %s", cpu,
			      what);
	return (void *)va;
}

static char *percpu_area_alloc(int cpu)
{
	return percpu_map_pages(PERCPU_REGION +
				(uintptr_t)cpu * PERCPU_AREA_STRIDE,
				percpu_size(), "area", cpu);
}

/*
 * Runs on the boot CPU with interrupts off, before any other CPU starts:
 * the template is copied as it is now, including what the boot CPU has
 * already written into it (it ran on the template until here).
 */
void setup_per_cpu_areas(int nr_cpus)
{
	unsigned long flags;

	if (percpu_size() > PERCPU_AREA_MAX)
		panic("percpu: the template (%lu bytes) is larger than an "
		      "area's slot allows (PERCPU_AREA_MAX, %lu bytes)",
		      (unsigned long)percpu_size(),
		      (unsigned long)PERCPU_AREA_MAX);
	local_irq_save(flags);
	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		char *area = percpu_area_alloc(cpu);
		/* LAB1 BEGIN */
		unsigned long off = (unsigned long)area -
				    (unsigned long)__per_cpu_start;

		memcpy(area, __per_cpu_start, __per_cpu_end - __per_cpu_start);
		__per_cpu_offset[cpu] = off;
		*raw_per_cpu_ptr(&this_cpu_off, cpu) = off;
		*raw_per_cpu_ptr(&cpu_number, cpu) = cpu;
		/* LAB1 STUB: (void)area; */
		/* LAB1 END */
	}
	lockdep_percpu_areas_ready(nr_cpus);
	percpu_enter(0);
	local_irq_restore(flags);
}

/*
 * The area's first words say whose it is: a CPU that went on through
 * another's area (or the template) would corrupt both, far from the cause,
 * so a wrong GS base stops the boot here with the reason.
 */
void percpu_enter(int cpu)
{
	arch_set_percpu_base(__per_cpu_offset[cpu]);
	if (this_cpu_read(this_cpu_off) != __per_cpu_offset[cpu] ||
	    this_cpu_read(cpu_number) != cpu)
		panic("percpu: CPU %d is not on its own per-CPU area: GS base "
		      "%#lx, __per_cpu_offset %#lx, this_cpu_off %#lx, "
		      "cpu_number %d (setup_per_cpu_areas, arch_set_percpu_base)",
		      cpu, arch_percpu_base(), __per_cpu_offset[cpu],
		      this_cpu_read(this_cpu_off), this_cpu_read(cpu_number));
}

int percpu_addr_cpu(const void *addr)
{
	/* LAB1 BEGIN */
	uintptr_t a = (uintptr_t)addr;
	size_t size = __per_cpu_end - __per_cpu_start;

	for (int cpu = 0; cpu < NR_CPUS && __per_cpu_offset[cpu]; cpu++) {
		uintptr_t start = (uintptr_t)__per_cpu_start +
				  __per_cpu_offset[cpu];

		if (a >= start && a < start + size)
			return cpu;
	}
	return -1;
	/* LAB1 STUB: return -1; */
	/* LAB1 END */
}

/* ---- dynamic per-CPU memory: alloc_percpu(), free_percpu() ---- */

/*
 * The region's template range. linker.ld puts .percpu.dynamic last in
 * the template, before __per_cpu_end, so each CPU's area holds a copy
 * (of zeros) at this offset. The template range itself is never used as
 * memory after boot: it only gives the region its addresses. Page-aligned
 * so that an alignment up to a page holds in every CPU's copy too (each
 * area is page-aligned).
 */
static char pcpu_dynamic[PERCPU_DYNAMIC_SIZE]
	__attribute__((section(".percpu.dynamic"), aligned(PAGE_SIZE)));

#define PCPU_UNITS ((int)(PERCPU_DYNAMIC_SIZE / PCPU_MIN_ALLOC_SIZE))
#define MAP_LONGS (PCPU_UNITS / 64)

/*
 * The map, in units of PCPU_MIN_ALLOC_SIZE bytes, under pcpu_alloc_mutex.
 * Invariants:
 *   - an allocation is a run of set bits of alloc_map from its first unit
 *     s, with pcpu_len[s] its length in units and pcpu_site[s] the caller
 *     of alloc_percpu(); pcpu_len[] is 0 at every unit that begins none;
 *   - freed_map marks the first unit of an allocation that was freed and
 *     that no allocation has covered since: freeing that pointer again is
 *     a double free, not a foreign pointer.
 * pcpu_len[] and pcpu_site[] are also read without the mutex, for reports
 * (percpu_dynamic_describe()), hence READ_ONCE()/WRITE_ONCE().
 */
static DEFINE_MUTEX(pcpu_alloc_mutex);
static unsigned long alloc_map[MAP_LONGS];
static unsigned long freed_map[MAP_LONGS];
static uint16_t pcpu_len[PCPU_UNITS];
static unsigned long pcpu_site[PCPU_UNITS];
static struct percpu_alloc_info pcpu_info = {.size = PERCPU_DYNAMIC_SIZE};

static bool test_unit(const unsigned long *map, int u)
{
	return (map[u / 64] >> (u % 64)) & 1;
}

static void assign_units(unsigned long *map, int start, int n, bool on)
{
	for (int u = start; u < start + n; u++) {
		if (on)
			map[u / 64] |= 1ul << (u % 64);
		else
			map[u / 64] &= ~(1ul << (u % 64));
	}
}

/* The first unit s, a multiple of step, with n free units from it; -1
 * when there is none. Each retry starts past the unit that blocked the
 * last, so the scan is linear in the region's size. */
static int find_fit(int n, int step)
{
	int s = 0;

	while (s + n <= PCPU_UNITS) {
		int u = s;

		while (u < s + n && !test_unit(alloc_map, u))
			u++;
		if (u == s + n)
			return s;
		s = (u + step) / step * step;
	}
	return -1;
}

static size_t largest_free(void)
{
	int best = 0, run = 0;

	for (int u = 0; u < PCPU_UNITS; u++) {
		run = test_unit(alloc_map, u) ? 0 : run + 1;
		if (run > best)
			best = run;
	}
	return (size_t)best * PCPU_MIN_ALLOC_SIZE;
}

/* Mutex held. */
static void report_failure(size_t size, size_t align, unsigned long site,
			   const char *why)
{
	char s[96];

	pcpu_info.nr_failed++;
	ksym_snprint(s, sizeof(s), site);
	printk("percpu: alloc_percpu(%zu bytes, align %zu) from %s failed: %s "
	       "(%zu of %u bytes free, largest free run %zu)\n",
	       size, align, s, why, PERCPU_DYNAMIC_SIZE - pcpu_info.used,
	       PERCPU_DYNAMIC_SIZE, largest_free());
}

/* Mutex held: units [s, s+n) become one allocation. */
static void claim(int s, int n, unsigned long site)
{
	assign_units(alloc_map, s, n, true);
	assign_units(freed_map, s, n, false);
	WRITE_ONCE(pcpu_site[s], site);
	WRITE_ONCE(pcpu_len[s], (uint16_t)n);
	pcpu_info.used += (size_t)n * PCPU_MIN_ALLOC_SIZE;
	pcpu_info.nr_allocs++;
}

/* Mutex held: the allocation at s goes back to the free space. */
static void release(int s)
{
	int n = pcpu_len[s];

	WRITE_ONCE(pcpu_len[s], 0);
	assign_units(alloc_map, s, n, false);
	assign_units(freed_map, s, 1, true);
	pcpu_info.used -= (size_t)n * PCPU_MIN_ALLOC_SIZE;
	pcpu_info.nr_allocs--;
}

static void *unit_addr(int u)
{
	return pcpu_dynamic + (size_t)u * PCPU_MIN_ALLOC_SIZE;
}

static const char *check_args(size_t size, size_t align)
{
	if (!size)
		return "size 0";
	if (size > PERCPU_DYNAMIC_SIZE)
		return "larger than the dynamic per-CPU region";
	if (!align || (align & (align - 1)) || align > PAGE_SIZE)
		return "alignment not a power of two up to a page";
	return 0;
}

void *__alloc_percpu(size_t size, size_t align)
{
	unsigned long site = _RET_IP_;
	const char *why = check_args(size, align);
	int n = (size + PCPU_MIN_ALLOC_SIZE - 1) / PCPU_MIN_ALLOC_SIZE;
	int step = 1, s = -1, cpu;
	void *p = 0;

	might_sleep();
	if (align > PCPU_MIN_ALLOC_SIZE)
		step = align / PCPU_MIN_ALLOC_SIZE; /* in units */
	mutex_lock(&pcpu_alloc_mutex);
	if (!why && (s = find_fit(n, step)) < 0)
		why = "the dynamic per-CPU region has no room";
	if (why) {
		report_failure(size, align, site, why);
	} else {
		claim(s, n, site);
		p = unit_addr(s);
		/* A new variable: nothing the checker knew of the range's
		 * past holds for it. */
		lockdep_percpu_forget(p, (size_t)n * PCPU_MIN_ALLOC_SIZE);
	}
	mutex_unlock(&pcpu_alloc_mutex);
	if (!p)
		return 0;
	/* Outside the mutex: the units are ours, nobody else has p yet. */
	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr((char *)p, cpu), 0,
		       (size_t)n * PCPU_MIN_ALLOC_SIZE);
	return p;
}

/* Mutex held: why p cannot be freed (0: it can; *s is its first unit),
 * and whether that is a double free. */
static const char *check_free(const void *p, int *s, bool *twice)
{
	uintptr_t off = (uintptr_t)p - (uintptr_t)pcpu_dynamic;

	*twice = false;
	if (!percpu_dynamic_addr(p))
		return percpu_addr_cpu(p) >= 0 ?
			       "one CPU's copy (per_cpu_ptr()), not the pointer "
			       "alloc_percpu() returned" :
			       "not a pointer alloc_percpu() returned (outside "
			       "the dynamic per-CPU region)";
	*s = off / PCPU_MIN_ALLOC_SIZE;
	if (off % PCPU_MIN_ALLOC_SIZE || !pcpu_len[*s]) {
		if (!(off % PCPU_MIN_ALLOC_SIZE) && test_unit(freed_map, *s)) {
			*twice = true;
			return "double free (freed before, not allocated since)";
		}
		return test_unit(alloc_map, *s) ?
			       "inside an allocation, not its start" :
			       "not allocated (free space of the dynamic "
			       "per-CPU region)";
	}
	return 0;
}

void free_percpu(void *p)
{
	const char *why;
	bool twice;
	int s = 0;

	if (!p)
		return;
	might_sleep();
	/* LAB11 BEGIN */
	mutex_lock(&pcpu_alloc_mutex);
	why = check_free(p, &s, &twice);
	if (why) {
		if (twice)
			pcpu_info.double_frees++;
		else
			pcpu_info.foreign_frees++;
		printk("BUG: free_percpu(%p): %s; ignored\n", p, why);
		dump_stack();
	} else {
		/* Under the mutex: forgotten before anyone can reuse it. */
		lockdep_percpu_forget(p, (size_t)pcpu_len[s] *
						 PCPU_MIN_ALLOC_SIZE);
		release(s);
	}
	mutex_unlock(&pcpu_alloc_mutex);
	/* LAB11 STUB: @free_percpu a refused pointer returns early */
	/* LAB11 END */
}

void percpu_alloc_info(struct percpu_alloc_info *info)
{
	mutex_lock(&pcpu_alloc_mutex);
	*info = pcpu_info;
	info->largest_free = largest_free();
	mutex_unlock(&pcpu_alloc_mutex);
}

bool percpu_dynamic_addr(const void *addr)
{
	uintptr_t a = (uintptr_t)addr, start = (uintptr_t)pcpu_dynamic;

	return a >= start && a < start + PERCPU_DYNAMIC_SIZE;
}

/* The first unit of the allocation holding addr, or -1 (free space or
 * outside the region). */
static int unit_of(const void *addr)
{
	int u, s, len = 0;

	if (!percpu_dynamic_addr(addr))
		return -1;
	u = ((uintptr_t)addr - (uintptr_t)pcpu_dynamic) / PCPU_MIN_ALLOC_SIZE;
	for (s = u; s >= 0; s--)
		if ((len = READ_ONCE(pcpu_len[s])))
			break;
	return s < 0 || u >= s + len ? -1 : s;
}

const void *percpu_dynamic_base(const void *addr)
{
	int s = unit_of(addr);

	return s < 0 ? 0 : unit_addr(s);
}

bool percpu_dynamic_describe(const void *addr, char *buf, size_t size)
{
	char site[112];
	int s = unit_of(addr);

	if (s < 0)
		return false; /* free space, or not dynamic memory */
	ksym_snprint(site, sizeof(site),
		     READ_ONCE(pcpu_site[s]));
	snprintf(buf, size, "alloc_percpu(%u)+0x%lx from %s",
		 READ_ONCE(pcpu_len[s]) *
			 PCPU_MIN_ALLOC_SIZE,
		 (unsigned long)((uintptr_t)addr - (uintptr_t)unit_addr(s)),
		 site);
	return true;
}
