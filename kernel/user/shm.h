/*
 * Pages shared between processes by key: shm_map(key) maps the key's page
 * at SHM_BASE + key * PAGE_SIZE in the caller, the same physical page in
 * every process that asks, so that processes (and the kernel, through
 * shm_page()) can see each other's stores: the per-CPU counters of the
 * rseq demonstration live there. The SHM_KEYS pages are made on first use
 * and kept for the kernel's lifetime (no process owns them).
 */
#ifndef SHM_H
#define SHM_H

#include "user/uapi.h"

/* The kernel's view of key's page (made, zeroed, on first use); NULL for a
 * bad key or no memory. */
void *shm_page(unsigned long key);

#endif
