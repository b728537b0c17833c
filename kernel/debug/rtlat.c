/*
 * rtlat: the in-kernel cyclictest (see rtlat.h and docs/realtime.md).
 *
 * The measuring task arms a one-shot timer for the next period on its own
 * CPU and sleeps; the timer callback records the IRQ latency and wakes it;
 * on the way back it records the thread latency. Like cyclictest, a wake-
 * up later than a whole period skips the periods it missed (overruns).
 */
#include "debug/rtlat.h"
#include "bottom_half.h"
#include "locking/local_lock.h"
#include "mm/kmalloc.h"
#include "percpu.h"
#include "printk.h"
#include "sched/sched.h"
#include "smp.h"
#include "time/time.h"
#include "time/timer.h"

/* What the background sections protect: this CPU's copy of a counter. */
struct rtlat_pcp {
	local_lock_t lock;
	unsigned long locked;        /* under lock */
};
static DEFINE_PER_CPU(struct rtlat_pcp, rtlat_pcp) = {
	.lock = INIT_LOCAL_LOCK(lock)};
/* Softirq-context data, each under its own nested-BH lock: the BH
 * load's, and the measuring task's (RTLAT_BH). */
static DEFINE_PER_CPU(struct rtlat_pcp, rtlat_bh_load) = {
	.lock = INIT_LOCAL_LOCK(lock)};
static DEFINE_PER_CPU(struct rtlat_pcp, rtlat_bh_own) = {
	.lock = INIT_LOCAL_LOCK(lock)};
static DEFINE_PER_CPU(unsigned long, rtlat_preempt_count);
static DEFINE_PER_CPU(unsigned long, rtlat_pinned);

#ifdef CONFIG_PREEMPT_RT
#define RTLAT_RT 1
#else
#define RTLAT_RT 0
#endif

/* One measurement at a time: its state. */
static struct {
	const struct rtlat_config *cfg;
	struct rtlat_result *res;
	struct timer_list timer;
	struct task_struct *measurer;
	bool fired;                  /* the timer ran for this period */
	bool stop;                   /* the background tasks should end */
	atomic_long_t sections;      /* by every background task at once */
	struct task_struct *load[NR_CPUS];  /* the background tasks, by CPU */
} rl;

/* Objects per kmalloc burst: past a sheaf's capacity, so that bursts
 * refill and flush through the shared slabs, not only pop and push. */
#define KMALLOC_BURST (3 * KMALLOC_SHEAF_CAPACITY / 2)

static const char *const protect_names[RTLAT_NR_PROTECT] = {
	"preempt_disable", "local_lock", "migrate_disable", "kmalloc_this_cpu",
	"kmalloc_all_cpus", "idle", "local_bh_disable",
};

const char *rtlat_protect_name(enum rtlat_protect p)
{
	return (unsigned int)p < RTLAT_NR_PROTECT ? protect_names[p] : "?";
}

static void series_add(struct rtlat_series *s, uint64_t ns)
{
	uint64_t us = ns / 1000;

	if (!s->count || ns < s->min)
		s->min = ns;
	if (ns > s->max)
		s->max = ns;
	s->sum += ns;
	s->last = ns;
	s->count++;
	if (us < RTLAT_HIST_US)
		s->hist[us]++;
	else
		s->overflows++;
}

/* A clock that runs backwards never does here (one TSC), but a latency
 * is never negative: an early callback counts as 0. */
static uint64_t late_by(uint64_t now, uint64_t expected)
{
	return now > expected ? now - expected : 0;
}

static void rtlat_timer_fn(struct timer_list *t)
{
	series_add(&rl.res->irq, late_by(ktime_get_ns(), t->expires));
	smp_store_release(&rl.fired, true); /* after the series is updated */
	wake_up_process(rl.measurer);
}

static void busy_ns(uint64_t ns)
{
	uint64_t t0 = ktime_get_ns();

	while (ktime_get_ns() - t0 < ns)
		cpu_relax();
}

/* A BH section over this CPU's copy of d, under d's nested-BH lock, for
 * ns: BHs off keeps this CPU's softirqs out (on PREEMPT_RT through the BH
 * lock, while there is one), the nested-BH lock other BH sections of the
 * CPU once it is gone. */
static void bh_section(struct rtlat_pcp *d, uint64_t ns)
{
	local_bh_disable();
	local_lock_nested_bh(&d->lock);
	this_cpu_ptr(d)->locked++;
	busy_ns(ns);
	local_unlock_nested_bh(&d->lock);
	local_bh_enable();
}

/* One section of cfg->section_ns over this CPU's data, as protected. */
static void section(const struct rtlat_config *cfg)
{
	switch (cfg->protect) {
	case RTLAT_PREEMPT_DISABLE:
		get_cpu_var(rtlat_preempt_count)++;
		busy_ns(cfg->section_ns);
		put_cpu_var(rtlat_preempt_count);
		break;
	case RTLAT_LOCAL_LOCK:
		local_lock(&rtlat_pcp.lock);
		this_cpu_ptr(&rtlat_pcp)->locked++;
		busy_ns(cfg->section_ns);
		local_unlock(&rtlat_pcp.lock);
		break;
	case RTLAT_MIGRATE_DISABLE:
		/* Pinned, the task stays on this CPU for the whole section,
		 * but other tasks of this CPU may run in between: only an
		 * operation safe on its own (one %gs instruction) touches the
		 * per-CPU data. The per-CPU checker would report a plain
		 * read-modify-write through this_cpu_ptr() here. */
		migrate_disable();
		this_cpu_inc(rtlat_pinned);
		busy_ns(cfg->section_ns);
		migrate_enable();
		break;
	case RTLAT_BH:
		bh_section(&rtlat_bh_load, cfg->section_ns);
		break;
	default:
		break;
	}
}

/* One burst of the kmalloc load: KMALLOC_BURST objects of one class
 * (32 to 512 bytes, a class per burst in turn), each written, then all
 * freed. The only per-CPU sections are the allocator's own. */
static void kmalloc_burst(unsigned long n)
{
	size_t size = (size_t)32 << (n % 5);
	void *objs[KMALLOC_BURST];

	for (int i = 0; i < KMALLOC_BURST; i++)
		if ((objs[i] = kmalloc(size)))
			WRITE_ONCE(*(char *)objs[i], (char)i); /* a real store */
	for (int i = 0; i < KMALLOC_BURST; i++)
		kfree(objs[i]);
}

static int background(void *arg)
{
	const struct rtlat_config *cfg = arg;

	for (unsigned long n = 0; !smp_load_acquire(&rl.stop); n++) {
		if (cfg->protect == RTLAT_KMALLOC_LOCAL ||
		    cfg->protect == RTLAT_KMALLOC_ALL)
			kmalloc_burst(n);
		else
			section(cfg);
		atomic_long_inc(&rl.sections);
	}
	return 0;
}

/* The background tasks, SCHED_NORMAL: on cfg->cpu, and for
 * RTLAT_KMALLOC_ALL on every online CPU. false when one could not be
 * made. */
static bool load_start(const struct rtlat_config *cfg)
{
	int cpu;

	for_each_online_cpu(cpu) {
		if (cfg->protect == RTLAT_IDLE ||
		    (cpu != cfg->cpu && cfg->protect != RTLAT_KMALLOC_ALL))
			continue;
		rl.load[cpu] = kthread_create(background, (void *)cfg,
					      "rtlat_load");
		if (!rl.load[cpu])
			return false;
		kthread_bind(rl.load[cpu], cpu);
		wake_up_process(rl.load[cpu]);
		rl.res->load_cpus++;
	}
	return true;
}

static void load_stop(void)
{
	smp_store_release(&rl.stop, true);
	for (int cpu = 0; cpu < NR_CPUS; cpu++) {
		if (rl.load[cpu])
			kthread_join(rl.load[cpu]);
		rl.load[cpu] = 0;
	}
	rl.res->sections = atomic_long_read(&rl.sections);
}

static int measurer(void *arg)
{
	const struct rtlat_config *cfg = arg;
	uint64_t next = ktime_get_ns() + cfg->period_ns;

	for (int i = 0; i < cfg->loops; i++) {
		uint64_t now;

		WRITE_ONCE(rl.fired, false); /* no timer is queued now */
		add_timer(&rl.timer, next);
		for (;;) {
			set_current_state(TASK_UNINTERRUPTIBLE);
			if (smp_load_acquire(&rl.fired))
				break;
			schedule();
		}
		set_current_state(TASK_RUNNING);
		if (cfg->protect == RTLAT_BH) {
			bh_section(&rtlat_bh_own, 0);
			rl.res->own_bh++;
		}
		now = ktime_get_ns();
		series_add(&rl.res->thread, late_by(now, next));
		next += cfg->period_ns;
		while (next <= now) { /* missed whole periods */
			next += cfg->period_ns;
			rl.res->overruns++;
		}
	}
	return 0;
}

int rtlat_run(const struct rtlat_config *cfg, struct rtlat_result *res)
{
	struct task_struct *m;

	if (cfg->cpu < 0 || !cpumask_test_cpu(cfg->cpu, cpu_online_mask))
		return -1;
	*res = (struct rtlat_result){0};
	rl.cfg = cfg;
	rl.res = res;
	rl.stop = false;
	atomic_long_set(&rl.sections, 0);
	timer_setup_hard(&rl.timer, rtlat_timer_fn); /* measures the hard interrupt */
	m = load_start(cfg) ? kthread_create(measurer, (void *)cfg, "rtlat") : 0;
	if (!m) {
		load_stop();
		return -1;
	}
	res->pid = m->pid;
	rl.measurer = m;
	kthread_bind(m, cfg->cpu);
	sched_setscheduler(m, SCHED_FIFO, cfg->prio);
	wake_up_process(m);
	kthread_join(m);
	load_stop();
	return 0;
}

static uint64_t avg_ns(const struct rtlat_series *s)
{
	return s->count ? s->sum / s->count : 0;
}

/* cyclictest's status line; latencies in us. */
static void print_status(int thread, int pid, const struct rtlat_config *cfg,
			 const struct rtlat_series *s)
{
	printk("T:%2d (%5d) P:%2d I:%lu C:%7lu Min:%7lu Act:%8lu Avg:%8lu "
	       "Max:%8lu\n", thread, pid, cfg->prio, cfg->period_ns / 1000,
	       s->count, s->min / 1000, s->last / 1000, avg_ns(s) / 1000,
	       s->max / 1000);
}

/* cyclictest --histogram: one row per 1 us bucket, a column per thread
 * (T:0 thread latency, T:1 IRQ latency); empty rows are left out. */
static void print_hist(const struct rtlat_result *res)
{
	const struct rtlat_series *s[2] = {&res->thread, &res->irq};

	printk("# Histogram\n");
	for (int us = 0; us < RTLAT_HIST_US; us++)
		if (s[0]->hist[us] || s[1]->hist[us])
			printk("%06d %06u\t%06u\n", us, s[0]->hist[us],
			       s[1]->hist[us]);
	printk("# Total: %09lu %09lu\n", s[0]->count, s[1]->count);
	printk("# Min Latencies: %05lu %05lu\n", s[0]->min / 1000,
	       s[1]->min / 1000);
	printk("# Avg Latencies: %05lu %05lu\n", avg_ns(s[0]) / 1000,
	       avg_ns(s[1]) / 1000);
	printk("# Max Latencies: %05lu %05lu\n", s[0]->max / 1000,
	       s[1]->max / 1000);
	printk("# Histogram Overflows: %05lu %05lu\n", s[0]->overflows,
	       s[1]->overflows);
}

void rtlat_print(const struct rtlat_config *cfg, const struct rtlat_result *res)
{
	const int rt = RTLAT_RT, bh_lock = rt && softirq_needs_bh_lock();

	printk("# rtlat: protect=%s rt=%d bh_lock=%d L=%luus cpu=%d load on %d "
	       "CPU(s) (T:0 thread latency, T:1 IRQ latency of the same "
	       "wake-ups)\n", rtlat_protect_name(cfg->protect), rt, bh_lock,
	       cfg->section_ns / 1000, cfg->cpu, res->load_cpus);
	print_status(0, res->pid, cfg, &res->thread);
	print_status(1, res->pid, cfg, &res->irq);
	print_hist(res);
	printk("RTLAT {\"protect\": \"%s\", \"rt\": %d, \"bh_lock\": %d, "
	       "\"cpu\": %d, "
	       "\"period_ns\": %lu, \"section_ns\": %lu, \"loops\": %lu, "
	       "\"overruns\": %lu, \"sections\": %lu, \"load_cpus\": %d, "
	       "\"thread\": {\"min\": %lu, \"avg\": %lu, \"max\": %lu}, "
	       "\"irq\": {\"min\": %lu, \"avg\": %lu, \"max\": %lu}}\n",
	       rtlat_protect_name(cfg->protect), rt, bh_lock, cfg->cpu,
	       cfg->period_ns,
	       cfg->section_ns, res->thread.count, res->overruns, res->sections,
	       res->load_cpus,
	       res->thread.min, avg_ns(&res->thread), res->thread.max,
	       res->irq.min, avg_ns(&res->irq), res->irq.max);
}
