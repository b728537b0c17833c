/*
 * The contended-lock runner the lock benchmarks share (bench_locks.c):
 * one bound SCHED_FIFO task per CPU, all hammering one lock together.
 */
#ifndef BENCH_LOCKS_H
#define BENCH_LOCKS_H

#include "locking/lock_kind.h"

/* Acquire+release pairs of pool lock 0 of kind k done by ncpus tasks
 * (CPUs 0..ncpus-1) together in ms milliseconds. The caller runs at
 * SCHED_FIFO above 10, so that the hammers start together. */
long lock_bench_contended(enum lock_kind k, int ncpus, int ms);

#endif
