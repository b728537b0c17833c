/*
 * The page the other CPUs start in. A STARTUP IPI names a page number
 * below 1 MiB and the CPU runs its first instructions there in real mode,
 * so the trampoline (boot/trampoline.asm) needs a page of RAM down there.
 * Under BIOS firmware much of the first MiB is the BIOS's; under EFI it is
 * whatever the memory map says. Either way the page is taken from what
 * the map calls usable, never assumed free.
 */
#ifndef _ASM_X86_REALMODE_H
#define _ASM_X86_REALMODE_H

#include <stdbool.h>
#include <stdint.h>

struct boot_info;

/* The trampoline's page; 0 when there is none (before
 * reserve_real_mode(), or when it found nothing). */
extern uint64_t trampoline_phys;

/* Picks the trampoline's page from the loader's memory map and says so
 * in the boot log. Returns false, with the reason printed, when the map
 * has no usable page below 1 MiB: then no other CPU can be started. */
bool reserve_real_mode(void);

/* Exposed for the tests, which feed it hand-made maps: the highest page
 * below 1 MiB, and above page 0, that lies wholly in a usable region of
 * bi's map; 0 if there is none. */
uint64_t trampoline_find(const struct boot_info *bi);

#endif
