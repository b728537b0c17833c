/* The exception table's lookup (see extable.h). The table is a handful of
 * entries (linker.ld collects every __ex_table section), so a linear
 * search is the clear choice. */
#include "extable.h"

extern const struct exception_table_entry __start___ex_table[],
	__stop___ex_table[];

const struct exception_table_entry *search_exception_tables(uintptr_t ip)
{
	for (const struct exception_table_entry *e = __start___ex_table;
	     e < __stop___ex_table; e++)
		if (e->insn == ip)
			return e;
	return 0;
}
