/*
 * Symbol lookup over the table scripts/build/gensyms.sh generates: entries sorted
 * by address, each naming its symbol by an offset into one string blob. The
 * table lives in its own section placed after everything else, so adding it
 * in the final link moves no other symbol.
 */
#include "ksyms.h"
#include "printk.h"
#include "string.h"
#include "vsprintf.h"

struct ksym {
	uint64_t addr;
	uint64_t name_off; /* into ksyms_names */
};

extern const uint64_t ksyms_count;
extern const struct ksym ksyms_table[];
extern const char ksyms_names[];
extern char __text_start[], _end[];

/* The last symbol at or below addr. */
static long ksym_index(uintptr_t addr)
{
	long lo = 0, hi = (long)ksyms_count - 1, found = -1;

	while (lo <= hi) {
		long mid = lo + (hi - lo) / 2;
		if (ksyms_table[mid].addr <= addr) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return found;
}

const char *ksym_lookup(uintptr_t addr, uintptr_t *offset, uintptr_t *size)
{
	long i;
	uintptr_t end;

	if (addr < (uintptr_t)__text_start || addr >= (uintptr_t)_end)
		return 0;
	i = ksym_index(addr);
	if (i < 0)
		return 0;
	end = (uint64_t)i + 1 < ksyms_count ? ksyms_table[i + 1].addr
					    : (uintptr_t)_end;
	*offset = addr - ksyms_table[i].addr;
	*size = end - ksyms_table[i].addr;
	return ksyms_names + ksyms_table[i].name_off;
}

uintptr_t ksym_address(const char *name)
{
	for (uint64_t i = 0; i < ksyms_count; i++)
		if (strcmp(ksyms_names + ksyms_table[i].name_off, name) == 0)
			return ksyms_table[i].addr;
	return 0;
}

const char *ksym_snprint(char *buf, size_t size, uintptr_t addr)
{
	uintptr_t off, len;
	const char *name = ksym_lookup(addr, &off, &len);

	if (name)
		snprintf(buf, size, "%s+0x%lx/0x%lx", name, off, len);
	else
		snprintf(buf, size, "0x%lx", addr);
	return buf;
}

void print_symbol(uintptr_t addr)
{
	char buf[128];

	printk("%s", ksym_snprint(buf, sizeof(buf), addr));
}
