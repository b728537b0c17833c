/* Pages shared by key (see shm.h). */
#include "user/shm.h"
#include "mm/mm.h"
#include "locking/mutex.h"
#include "mm/page_alloc.h"
#include "user/process.h"
#include "string.h"
#include "user/syscalls.h"
#include "asm/page.h"

static DEFINE_MUTEX(shm_lock);
static void *shm_pages[SHM_KEYS]; /* under shm_lock */

void *shm_page(unsigned long key)
{
	void *page;

	if (key >= SHM_KEYS)
		return 0;
	mutex_lock(&shm_lock);
	if (!shm_pages[key] && (shm_pages[key] = page_alloc()))
		memset(shm_pages[key], 0, PAGE_SIZE);
	page = shm_pages[key];
	mutex_unlock(&shm_lock);
	return page;
}

/* shm_map(key): the user address of key's page. The key is the whole
 * 64-bit argument, checked before anything is made or computed from it
 * (a key of 2^32 + 1 is no key, not key 1). */
long sys_shm_map(SYSCALL_ARGS)
{
	void *page;
	uintptr_t va;

	if (a0 >= SHM_KEYS)
		return -EINVAL;
	page = shm_page(a0);
	va = SHM_BASE + a0 * PAGE_SIZE;
	if (!page || mm_map_shared(&current_process()->mm, va, page))
		return -ENOMEM;
	return (long)va;
}
