/*
 * Lab 7's per-CPU users (tests/labs/lab7_users.c, docs/labs/lab7.md): three
 * pieces of code in the style of get_cpu_var() users, each converted to
 * local_lock in this tree. Each run function returns the number of its
 * results that came out wrong (0: all right).
 */
#ifndef LAB7_USERS_H
#define LAB7_USERS_H

/* Per-CPU receive statistics; every 64 packets a batch is handed on under
 * a spinlock_t. Two senders on the last CPU. */
long lab7_rx_run(void);

/* A per-CPU cache of object slots in front of a global pool under a
 * spinlock_t. Two users on the last CPU allocate and free. */
long lab7_objcache_run(void);

/* A checksum over this CPU's block buffer, calling poll(arg) between the
 * blocks, as a driver polls its device; the checksum is returned in
 * *sum. */
long lab7_csum_run(void (*poll)(void *), void *arg, unsigned long *sum);

/* Per-CPU event counts that a hard interrupt on the CPU (a hard timer)
 * also updates; every 32 of the task's events a batch is handed on
 * under a spinlock_t. One task on the last CPU. */
long lab7_irqstat_run(void);

#endif
