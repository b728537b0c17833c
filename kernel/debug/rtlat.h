/*
 * rtlat: an in-kernel cyclictest (rt-tests) with timerlat's split of the
 * latency. A SCHED_FIFO task bound to one CPU sleeps until a timer that
 * expires every period; each wake-up's lateness is measured twice, as
 * Linux's timerlat does:
 *
 *   IRQ latency     timer callback (hard interrupt) - expiry time
 *   thread latency  the task running again           - expiry time
 *
 * Meanwhile a SCHED_NORMAL background task on the same CPU runs per-CPU
 * sections of length section_ns back to back, protected as protect says.
 * A section that cannot be preempted (preempt_disable(), or local_lock()
 * without PREEMPT_RT) holds the woken task off until it ends: thread
 * latency up to the section length. One that only pins the task to its
 * CPU (migrate_disable(), or local_lock() on PREEMPT_RT) can be preempted
 * at once. The kmalloc loads are the allocator itself: kmalloc/kfree
 * storms on the measured CPU, alone or with storms on every other online
 * CPU too, whose only per-CPU sections are the allocator's own (its
 * sheaves' local_lock, and the shared slabs' raw lock for a refill or a
 * flush, contended when other CPUs allocate). The BH load is softirq-
 * context data: sections of section_ns inside local_bh_disable(), under
 * the data's own local_lock_nested_bh(), while the measuring task, woken,
 * enters a BH section of its own over other data (as a forced-threaded
 * interrupt handler does) before its latency is taken: on PREEMPT_RT
 * with the BH lock (softirq.bh_lock=1) it waits for the preempted
 * section's holder; without it, for nothing. See docs/realtime.md.
 */
#ifndef RTLAT_H
#define RTLAT_H

#include <stdbool.h>
#include <stdint.h>

enum rtlat_protect {
	RTLAT_PREEMPT_DISABLE, /* get_cpu_var()/put_cpu_var() */
	RTLAT_LOCAL_LOCK,      /* local_lock(): preempt off, or RT's lock */
	RTLAT_MIGRATE_DISABLE, /* migrate_disable() only */
	RTLAT_KMALLOC_LOCAL,   /* kmalloc/kfree storms on this CPU only */
	RTLAT_KMALLOC_ALL,     /* kmalloc/kfree storms on every CPU */
	RTLAT_IDLE,            /* no background task: the floor */
	RTLAT_BH,              /* BH sections, and one in the measuring task */
	RTLAT_NR_PROTECT
};

/* Histogram buckets of 1 us, as cyclictest's --histogram; later ones
 * count as overflows. */
#define RTLAT_HIST_US 4096

struct rtlat_config {
	int cpu;                 /* where the measuring task and the load run */
	uint64_t period_ns;      /* the timer's period (cyclictest -i) */
	uint64_t section_ns;     /* each background section's length (not
				  * for the kmalloc loads: the allocator's) */
	enum rtlat_protect protect;
	int loops;               /* wake-ups to measure (cyclictest -l) */
	int prio;                /* the measuring task's SCHED_FIFO priority */
};

/* Latencies in ns; hist in 1 us buckets. */
struct rtlat_series {
	unsigned long count;
	uint64_t min, max, sum, last;
	unsigned long overflows;
	uint32_t hist[RTLAT_HIST_US];
};

struct rtlat_result {
	int pid;                      /* the measuring task's id */
	int load_cpus;                /* CPUs with a background task */
	unsigned long overruns;       /* periods missed entirely */
	unsigned long sections;       /* background sections (kmalloc load:
				       * bursts, all CPUs) completed */
	unsigned long own_bh;         /* RTLAT_BH: the measuring task's own
				       * BH sections, one per wake-up */
	struct rtlat_series thread, irq;
};

/* The protection's name ("preempt_disable", ...). */
const char *rtlat_protect_name(enum rtlat_protect p);

/* Measure: start the load on cfg->cpu (RTLAT_KMALLOC_ALL's on every
 * online CPU) and the measuring task on cfg->cpu, wait for cfg->loops wake-ups,
 * stop them all. 0, or -1 when a task could not be made or the CPU is
 * not online. Runs one measurement at a time. */
int rtlat_run(const struct rtlat_config *cfg, struct rtlat_result *res);

/* Print res in cyclictest's format (status lines, then --histogram
 * buckets and summary), tagged with cfg, and one JSON line "RTLAT {...}"
 * that scripts/rtlat-report reads. */
void rtlat_print(const struct rtlat_config *cfg,
		 const struct rtlat_result *res);

#endif
