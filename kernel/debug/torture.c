/*
 * Torture tests, after Linux's locktorture: for a set time, writers at
 * mixed priorities take one lock type over and over with random short and
 * long holds, some with migration disabled around the lock, while a
 * shuffler keeps changing their affinity. Inside the critical section each
 * writer marks an owner word with an atomic exchange: finding it already
 * marked means two writers were inside at once, a Fail. The statistics
 * line has Linux's shape, "Writes: Total: N Max/Min: a/b Fail: f".
 *
 * lock_busted is a lock that does not exclude: a run must catch it (its
 * Fail must rise), seed after seed, which shows the check can fail.
 * percpu_counter has writers bump a per-CPU counter with this_cpu_inc()
 * while they migrate all the time: the sum over CPUs must equal what they
 * counted, exactly. percpu_racy is its control, a read-modify-write through
 * a pointer formed once, which must lose updates. rcu runs rcutorture
 * (rcutorture.c) with CPUs going offline and back; rcu_busted, its
 * control, a grace period that does not wait, must be caught.
 *
 * Selected with torture=GLOB (names below), run for torture_secs=S each,
 * seeded with ktest_seed=N; scripts/torture.sh (`make torture`) boots it.
 * The soft-lockup watchdog is on, so a hang is a report.
 */
#include "atomic.h"
#include "cpumask.h"
#include "glob.h"
#include "locking/local_lock.h"
#include "bootinfo.h"
#include "locking/mutex.h"
#include "percpu.h"
#include "prandom.h"
#include "printk.h"
#include "locking/rtmutex.h"
#include "sched/sched.h"
#include "smp.h"
#include "locking/spinlock.h"
#include "time/time.h"
#include "debug/torture.h"
#include "debug/rcutorture.h"
#include "vsprintf.h"
#include "watchdog.h"
#include "asm/processor.h"
#include "asm/timer.h"

#define TORTURE_MAX_WRITERS 16
#define TORTURE_WATCHDOG_MS 10000
#define BUSTED_SEEDS 10            /* lock_busted: caught for each of these */
#define BUSTED_LIMIT_MS 10000      /* ... within this */
#define STAT_INTERVAL_MS 5000

#ifdef CONFIG_PREEMPT_RT
#define TORTURE_RT 1
#else
#define TORTURE_RT 0
#endif

enum torture_kind { LOCK, LOCK_BUSTED, COUNTER, COUNTER_RACY, RCU, RCU_BUSTED };

struct torture_ops {
	const char *name;
	enum torture_kind kind;
	void (*lock)(void);
	void (*unlock)(void);
	bool percpu;                   /* excludes per CPU: an owner word each */
};

struct torture_pcp {
	local_lock_t lock;
	int owner;
};

static DEFINE_RAW_SPINLOCK(torture_raw);
static DEFINE_SPINLOCK(torture_spin);
static DEFINE_RT_MUTEX(torture_rtm);
static DEFINE_MUTEX(torture_mutex);
static DEFINE_PER_CPU(struct torture_pcp, torture_pcp) = {
	.lock = INIT_LOCAL_LOCK(lock),
};
/* Both counters are reset and summed from one task while no writer runs,
 * which the per-CPU checker would call unprotected cross-CPU access: they
 * are out of its sight (_STAT). Their exactness is what is measured. */
static DEFINE_PER_CPU_STAT(unsigned long, torture_count);
static DEFINE_PER_CPU_STAT(unsigned long, torture_racy_count);
static int torture_owner;

static void raw_lock(void) { raw_spin_lock(&torture_raw); }
static void raw_unlock(void) { raw_spin_unlock(&torture_raw); }
static void spin_lock_op(void) { spin_lock(&torture_spin); }
static void spin_unlock_op(void) { spin_unlock(&torture_spin); }
static void rtm_lock(void) { rt_mutex_lock(&torture_rtm); }
static void rtm_unlock(void) { rt_mutex_unlock(&torture_rtm); }
static void mutex_lock_op(void) { mutex_lock(&torture_mutex); }
static void mutex_unlock_op(void) { mutex_unlock(&torture_mutex); }
static void local_lock_op(void) { local_lock(&torture_pcp.lock); }
static void local_unlock_op(void) { local_unlock(&torture_pcp.lock); }
static void busted_lock(void) { }
static void busted_unlock(void) { }

static const struct torture_ops torture_types[] = {
	{"raw_spin_lock", LOCK, raw_lock, raw_unlock, false},
	{"spin_lock", LOCK, spin_lock_op, spin_unlock_op, false},
	{"rt_mutex_lock", LOCK, rtm_lock, rtm_unlock, false},
	{"mutex_lock", LOCK, mutex_lock_op, mutex_unlock_op, false},
	{"local_lock", LOCK, local_lock_op, local_unlock_op, true},
	{"lock_busted", LOCK_BUSTED, busted_lock, busted_unlock, false},
	{"percpu_counter", COUNTER, 0, 0, false},
	{"percpu_racy", COUNTER_RACY, 0, 0, false},
	{"rcu", RCU, 0, 0, false},
	{"rcu_busted", RCU_BUSTED, 0, 0, false},
};

struct torture_writer {
	struct task_struct *task;
	struct rnd_state rnd;
	unsigned long writes;
	int id;
};

static struct {
	const struct torture_ops *ops;
	uint64_t seed;
	bool stop;                     /* released; the writers acquire it */
	atomic_long_t fail;            /* two writers inside at once */
	atomic_long_t mig_fail;        /* moved with migration disabled */
	int nwriters;
	struct torture_writer w[TORTURE_MAX_WRITERS];
	struct task_struct *shuffler;
} tt;

static inline uint32_t rnd(struct torture_writer *w)
{
	return prandom_u32_state(&w->rnd);
}

/* Mostly short holds; now and then a long one (locktorture's long_hold),
 * so that the other writers pile up behind it. */
static void torture_hold(struct torture_writer *w)
{
	if (rnd(w) % 2000 == 0) {
		udelay(200 + rnd(w) % 1800);
		return;
	}
	for (uint32_t i = rnd(w) % 64; i > 0; i--)
		cpu_relax();
}

static void torture_lock_once(struct torture_writer *w)
{
	bool pin = rnd(w) % 4 == 0;
	int cpu = -1, *owner;

	if (pin) {
		migrate_disable();
		cpu = raw_smp_processor_id();
	}
	tt.ops->lock();
	owner = tt.ops->percpu ? &this_cpu_ptr(&torture_pcp)->owner
			       : &torture_owner;
	/* The lock's own check: nobody else may be inside. xchg() is a
	 * full barrier, so a second writer inside is always seen. */
	if (xchg(owner, w->id + 1))
		atomic_long_inc(&tt.fail);
	torture_hold(w);
	smp_store_release(owner, 0);
	tt.ops->unlock();
	if (pin) {
		if (raw_smp_processor_id() != cpu)
			atomic_long_inc(&tt.mig_fail);
		migrate_enable();
	}
}

/* The control: the pointer is formed once, then a preemption or a
 * migration between the load and the store loses someone's update. A
 * tick rarely lands in so short a window, so now and then the window
 * holds a sleep: the preemption made certain, as the explorer would. */
static void torture_racy_inc(struct torture_writer *w)
{
	unsigned long *p = raw_cpu_ptr(&torture_racy_count);
	unsigned long v = READ_ONCE(*p);

	if (rnd(w) % 8 == 0)
		msleep(1);
	for (uint32_t i = rnd(w) % 256; i > 0; i--)
		cpu_relax();
	WRITE_ONCE(*p, v + 1);
}

/* A migration storm: the counter writers move themselves, often. */
static void torture_move_self(struct torture_writer *w)
{
	int n = (int)num_online_cpus(), cpu = (int)(rnd(w) % n);

	if (n > 1)
		set_cpus_allowed(current, cpumask_of(cpu));
}

static void torture_pause(struct torture_writer *w)
{
	uint32_t r = rnd(w) % 64;

	if (r == 0)
		msleep(1);
	else if (r < 8)
		yield();
}

static int torture_writer_fn(void *arg)
{
	struct torture_writer *w = arg;

	while (!smp_load_acquire(&tt.stop)) {
		switch (tt.ops->kind) {
		case LOCK:
		case LOCK_BUSTED:
			torture_lock_once(w);
			break;
		case COUNTER:
			this_cpu_inc(torture_count);
			break;
		case COUNTER_RACY:
			torture_racy_inc(w);
			break;
		case RCU:
		case RCU_BUSTED:
			break; /* rcutorture.c runs tasks of its own */
		}
		WRITE_ONCE(w->writes, w->writes + 1); /* read by the stats */
		if (tt.ops->kind >= COUNTER && rnd(w) % 16 == 0)
			torture_move_self(w);
		torture_pause(w);
	}
	return 0;
}

/* Changes the writers' affinity at random: often to one CPU or a few,
 * sometimes back to all of them. */
static int torture_shuffler_fn(void *arg)
{
	struct torture_writer sh = {.id = -1};
	int n = (int)num_online_cpus();

	prandom_seed_state(&sh.rnd, tt.seed ^ 0x5eed);
	while (!smp_load_acquire(&tt.stop)) {
		struct torture_writer *w = &tt.w[rnd(&sh) % tt.nwriters];
		cpumask_t mask;

		cpumask_clear(&mask);
		for (int cpu = 0; cpu < n; cpu++)
			if (rnd(&sh) % 2)
				cpumask_set_cpu(cpu, &mask);
		if (rnd(&sh) % 4 == 0 || cpumask_weight(&mask) == 0)
			cpumask_copy(&mask, cpu_online_mask);
		set_cpus_allowed(w->task, &mask);
		msleep(1 + rnd(&sh) % 5);
	}
	return 0;
}

static void torture_stats(void)
{
	unsigned long total = 0, max = 0, min = ~0ul;

	for (int i = 0; i < tt.nwriters; i++) {
		unsigned long n = READ_ONCE(tt.w[i].writes);

		total += n;
		max = n > max ? n : max;
		min = n < min ? n : min;
	}
	printk("%s-torture: Writes: Total: %lu Max/Min: %lu/%lu Fail: %lu\n",
	       tt.ops->name, total, max, min, atomic_long_read(&tt.fail));
}

static unsigned long torture_writes(void)
{
	unsigned long total = 0;

	for (int i = 0; i < tt.nwriters; i++)
		total += tt.w[i].writes;
	return total;
}

/* Only while no writer runs. */
static void torture_counters_reset(void)
{
	int cpu;

	for_each_online_cpu(cpu) {
		per_cpu(torture_count, cpu) = 0;
		per_cpu(torture_racy_count, cpu) = 0;
	}
}

static unsigned long torture_counters_sum(enum torture_kind kind)
{
	unsigned long sum = 0;
	int cpu;

	for_each_online_cpu(cpu)
		sum += kind == COUNTER ? per_cpu(torture_count, cpu)
				       : per_cpu(torture_racy_count, cpu);
	return sum;
}

/* Writers at mixed priorities: NORMAL, FIFO 10 and FIFO 20 in turn. */
static int torture_start(const struct torture_ops *ops, uint64_t seed)
{
	static const int prio[3] = {0, 10, 20};

	tt.ops = ops;
	tt.seed = seed;
	tt.stop = false;
	atomic_long_set(&tt.fail, 0);
	atomic_long_set(&tt.mig_fail, 0);
	torture_owner = 0;
	torture_counters_reset();
	tt.nwriters = 2 * (int)num_online_cpus();
	if (tt.nwriters > TORTURE_MAX_WRITERS)
		tt.nwriters = TORTURE_MAX_WRITERS;
	for (int i = 0; i < tt.nwriters; i++) {
		struct torture_writer *w = &tt.w[i];

		w->id = i;
		w->writes = 0;
		prandom_seed_state(&w->rnd, seed * 1000003ull + (uint64_t)i);
		w->task = kthread_create(torture_writer_fn, w, "torture_writer");
		if (!w->task)
			return -1;
		if (prio[i % 3])
			sched_setscheduler(w->task, SCHED_FIFO, prio[i % 3]);
	}
	tt.shuffler = kthread_create(torture_shuffler_fn, 0, "torture_shuffle");
	if (!tt.shuffler)
		return -1;
	for (int i = 0; i < tt.nwriters; i++)
		wake_up_process(tt.w[i].task);
	wake_up_process(tt.shuffler);
	return 0;
}

static void torture_stop(void)
{
	smp_store_release(&tt.stop, true);
	for (int i = 0; i < tt.nwriters; i++)
		kthread_join(tt.w[i].task);
	kthread_join(tt.shuffler);
}

/* Run until ms have passed, or a Fail is seen if stop_on_fail; the
 * milliseconds it ran. Statistics every STAT_INTERVAL_MS. */
static uint64_t torture_wait(uint64_t ms, bool stop_on_fail)
{
	uint64_t t0 = ktime_get_ns(), next = STAT_INTERVAL_MS, now;

	for (;;) {
		msleep(stop_on_fail ? 10 : 100);
		now = (ktime_get_ns() - t0) / 1000000;
		if (now >= ms ||
		    (stop_on_fail && atomic_long_read_acquire(&tt.fail)))
			return now;
		if (now >= next) {
			torture_stats();
			next += STAT_INTERVAL_MS;
		}
	}
}

static void torture_banner(const struct torture_ops *ops, uint64_t seed,
			   unsigned int secs)
{
	printk("%s-torture:--- Start of test: seed=%lu nwriters=%d secs=%u "
	       "cpus=%u rt=%d\n", ops->name, (unsigned long)seed,
	       tt.nwriters, secs, num_online_cpus(),
	       TORTURE_RT);
	printk("%s-torture: replay: make torture TORTURE=%s SEED=%lu CPUS=%u "
	       "RT=%d TORTURE_SECS=%u DETERMINISTIC=1\n", ops->name, ops->name,
	       (unsigned long)seed, num_online_cpus(),
	       TORTURE_RT, secs);
}

static bool torture_end(const struct torture_ops *ops, bool ok, const char *why)
{
	printk("%s-torture:--- End of test: %s%s%s\n", ops->name,
	       ok ? "SUCCESS" : "FAILURE", why[0] ? ": " : "", why);
	return ok;
}

static bool torture_lock(const struct torture_ops *ops, uint64_t seed,
			 unsigned int secs)
{
	unsigned long fail, mig_fail;

	if (torture_start(ops, seed))
		return torture_end(ops, false, "out of memory");
	torture_banner(ops, seed, secs);
	torture_wait(secs * 1000ull, false);
	torture_stop();
	torture_stats();
	fail = atomic_long_read(&tt.fail);
	mig_fail = atomic_long_read(&tt.mig_fail);
	if (mig_fail)
		printk("%s-torture: %lu section(s) moved with migration disabled\n",
		       ops->name, mig_fail);
	return torture_end(ops, !fail && !mig_fail && torture_writes(),
			   fail ? "two writers inside at once" : "");
}

/* Each of BUSTED_SEEDS seeds must catch the lock within BUSTED_LIMIT_MS. */
static bool torture_busted(const struct torture_ops *ops, uint64_t seed)
{
	int caught = 0;

	for (int i = 0; i < BUSTED_SEEDS; i++) {
		uint64_t ms;

		if (torture_start(ops, seed + i))
			return torture_end(ops, false, "out of memory");
		torture_banner(ops, seed + i, BUSTED_LIMIT_MS / 1000);
		ms = torture_wait(BUSTED_LIMIT_MS, true);
		torture_stop();
		torture_stats();
		if (atomic_long_read(&tt.fail)) {
			caught++;
			printk("%s-torture: seed=%lu caught after %lu ms\n", ops->name,
			       (unsigned long)(seed + i), (unsigned long)ms);
		} else {
			printk("%s-torture: seed=%lu NOT caught in %d ms\n", ops->name,
			       (unsigned long)(seed + i), BUSTED_LIMIT_MS);
		}
	}
	printk("%s-torture: caught with %d of %d seeds\n", ops->name, caught,
	       BUSTED_SEEDS);
	return torture_end(ops, caught == BUSTED_SEEDS,
			   caught == BUSTED_SEEDS ? "a lock that does not exclude is caught"
						  : "a lock that does not exclude went unseen");
}

static bool torture_counter(const struct torture_ops *ops, uint64_t seed,
			    unsigned int secs)
{
	unsigned long sum, writes;

	if (torture_start(ops, seed))
		return torture_end(ops, false, "out of memory");
	torture_banner(ops, seed, secs);
	torture_wait(secs * 1000ull, false);
	torture_stop();
	writes = torture_writes();
	sum = torture_counters_sum(ops->kind);
	atomic_long_set(&tt.fail, writes - sum);
	torture_stats();
	printk("%s-torture: counted %lu, per-CPU sum %lu: %lu update(s) lost\n",
	       ops->name, writes, sum, writes - sum);
	if (ops->kind == COUNTER)
		return torture_end(ops, sum == writes && writes, "");
	return torture_end(ops, sum < writes,
			   sum < writes ? "the racy control loses updates, as it must"
					: "the racy control lost nothing: the storm is too weak");
}

/* rcutorture for secs, CPUs going offline and back: Fail 0. The busted
 * control: each of BUSTED_SEEDS seeds must see an error within
 * BUSTED_LIMIT_MS. */
static bool torture_rcu(const struct torture_ops *ops, uint64_t seed,
			unsigned int secs)
{
	struct rcu_torture_result r;
	struct rcu_torture_cfg cfg = {.seed = seed, .ms = secs * 1000ul,
				      .hotplug = true};
	int caught = 0;

	if (ops->kind == RCU) {
		printk("%s-torture:--- Start of test: seed=%lu secs=%u cpus=%u "
		       "rt=%d\n", ops->name, (unsigned long)seed, secs,
		       num_online_cpus(), TORTURE_RT);
		if (rcu_torture(&cfg, &r))
			return torture_end(ops, false, "out of memory");
		rcu_torture_print(ops->name, &r);
		return torture_end(ops, !r.errors && r.updates && r.reads,
				   r.errors ? "a reader saw its element freed "
					      "or two grace periods old" : "");
	}
	cfg = (struct rcu_torture_cfg){.busted = true, .stop_on_error = true,
				       .ms = BUSTED_LIMIT_MS};
	for (int i = 0; i < BUSTED_SEEDS; i++) {
		cfg.seed = seed + i;
		if (rcu_torture(&cfg, &r))
			return torture_end(ops, false, "out of memory");
		rcu_torture_print(ops->name, &r);
		caught += r.errors > 0;
	}
	printk("%s-torture: caught with %d of %d seeds\n", ops->name, caught,
	       BUSTED_SEEDS);
	return torture_end(ops, caught == BUSTED_SEEDS,
			   caught == BUSTED_SEEDS ? "a grace period that does "
						    "not wait is caught"
						  : "a grace period that does "
						    "not wait went unseen");
}

#define TORTURE_MAX_SECS 3600

int torture_run(const char *glob)
{
	unsigned long seed = 1, secs = 10;
	int failed = 0, ran = 0;

	cmdline_get_ulong("ktest_seed", &seed, 0, ~0ul);
	cmdline_get_ulong("torture_secs", &secs, 1, TORTURE_MAX_SECS);
	printk("torture: ktest_seed=%lu torture=%s torture_secs=%lu\n", seed,
	       glob, secs);
	/* A run with other options than asked for proves nothing: fail at
	 * once, rather than spend the time. */
	if (cmdline_refused()) {
		printk("torture: %lu boot option(s) refused (see above): not "
		       "run, failed\n", cmdline_refused());
		return 1;
	}
	if (softlockup_start(TORTURE_WATCHDOG_MS))
		printk("torture: no soft-lockup watchdog (out of memory)\n");
	for (unsigned i = 0; i < sizeof(torture_types) / sizeof(torture_types[0]); i++) {
		const struct torture_ops *ops = &torture_types[i];
		bool ok;

		if (!glob_match_list(glob, ops->name))
			continue;
		ran++;
		if (ops->kind == LOCK)
			ok = torture_lock(ops, seed, secs);
		else if (ops->kind == LOCK_BUSTED)
			ok = torture_busted(ops, seed);
		else if (ops->kind >= RCU)
			ok = torture_rcu(ops, seed, secs);
		else
			ok = torture_counter(ops, seed, secs);
		failed += !ok;
	}
	if (!ran) {
		printk("torture: no type matches '%s'\n", glob);
		failed++;
	}
	printk("torture: %d type(s), %d failed\n", ran, failed);
	return failed;
}
