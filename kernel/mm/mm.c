/* User address spaces (see mm.h), on the arch's page-table calls. */
#include "mm/mm.h"
#include "errno.h"
#include "asm/page.h"
#include "asm/pgtable.h"
#include "mm/page_alloc.h"
#include "string.h"

int mm_init(struct mm *mm)
{
	mm->pgd = pgd_alloc();
	return mm->pgd ? 0 : -ENOMEM;
}

void mm_destroy(struct mm *mm)
{
	if (mm->pgd)
		pgd_free(mm->pgd);
	mm->pgd = 0;
}

static uint64_t prot_flags(unsigned prot)
{
	return (prot & MM_WRITE ? PTE_W : 0) | (prot & MM_EXEC ? 0 : PTE_NX);
}

int mm_map_zero(struct mm *mm, uintptr_t va, size_t len, unsigned prot)
{
	uintptr_t end = PAGE_ALIGN(va + len);

	for (va = PAGE_ALIGN_DOWN(va); va < end; va += PAGE_SIZE) {
		void *page;

		if (pgd_lookup_user(mm->pgd, va) & PTE_P)
			return -EINVAL;
		if (!(page = page_alloc()))
			return -ENOMEM;
		memset(page, 0, PAGE_SIZE);
		if (!pgd_map_user(mm->pgd, va, virt_to_phys(page),
				  prot_flags(prot))) {
			page_free(page);
			return -ENOMEM;
		}
	}
	return 0;
}

int mm_map_shared(struct mm *mm, uintptr_t va, void *page)
{
	if (pgd_lookup_user(mm->pgd, va) & PTE_P)
		return 0;
	return pgd_map_user(mm->pgd, va, virt_to_phys(page),
			    PTE_W | PTE_NX | PTE_SHARED) ? 0 : -ENOMEM;
}

int mm_write(struct mm *mm, uintptr_t va, const void *src, size_t len)
{
	const char *s = src;

	while (len) {
		uint64_t pte = pgd_lookup_user(mm->pgd, va);
		size_t off = va & (PAGE_SIZE - 1);
		size_t n = PAGE_SIZE - off < len ? PAGE_SIZE - off : len;

		if (!(pte & PTE_P))
			return -EFAULT;
		memcpy((char *)phys_to_virt(pte & PTE_ADDR_MASK) + off, s, n);
		va += n;
		s += n;
		len -= n;
	}
	return 0;
}
