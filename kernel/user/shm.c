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

void *shm_page(unsigned key)
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

/* shm_map(key): the user address of key's page. */
long sys_shm_map(SYSCALL_ARGS)
{
	void *page = shm_page(a0);
	uintptr_t va = SHM_BASE + a0 * PAGE_SIZE;

	if (a0 >= SHM_KEYS)
		return -EINVAL;
	if (!page || mm_map_shared(&current_process()->mm, va, page))
		return -ENOMEM;
	return (long)va;
}
