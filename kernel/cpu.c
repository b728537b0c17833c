/*
 * CPU hotplug (cpuhotplug.h; docs/hotplug.md):
 * the ladder of states each CPU climbs and descends, the hotplug lock
 * that keeps readers' view of the online CPUs still, and the two ends of
 * the ladder that touch the CPU itself: starting it (bringup_cpu, then
 * ap_main() and notify_cpu_starting() on the CPU) and parking it
 * (takedown_cpu, then cpuhp_play_dead() on the CPU).
 *
 * cpuhp_cpu[cpu].state is the highest state whose startup has run for
 * cpu. The controlling CPU moves it one step at a time, except across
 * the STARTING/DYING section, which the CPU itself walks with interrupts
 * off: bringup_cpu returns with the CPU at CPUHP_AP_ONLINE, takedown_cpu
 * with it back at CPUHP_BRINGUP_CPU.
 */
#include "cpuhotplug.h"
#include "errno.h"
#include "compiler.h"
#include "interrupt.h"
#include "irq_work.h"
#include "locking/lockdep.h"
#include "locking/mutex.h"
#include "mm/drain.h"
#include "net/netdevice.h"
#include "panic.h"
#include "percpu.h"
#include "percpu_counter.h"
#include "printk.h"
#include "rcu/rcutree.h"
#include "sched/completion.h"
#include "sched/sched.h"
#include "time/timer.h"
#include "sched/wait.h"
#include "smp.h"
#include "asm/barrier.h"
#include "asm/smp.h"
#include "asm/timer.h"
#include "time/time.h"

/* How long a starting CPU may stay silent after its kick and after the
 * last CPU to answer (arch_poll_cpu_alive). */
#define AP_BOOT_TIMEOUT_US 5000000ul

struct cpuhp_step {
	const char *name;                   /* NULL: a free slot */
	int (*startup)(unsigned int cpu);
	int (*teardown)(unsigned int cpu);
};

/* One CPU's place on the ladder. should_die and dead are the handshake
 * with the CPU that parks (takedown_cpu, cpuhp_play_dead), each a
 * release store seen by an acquire load; kicked, waiter and up_ns the one
 * with the CPU that starts (bringup_cpu, ap_main). */
struct cpuhp_cpu_state {
	enum cpuhp_state state;
	bool should_die;
	bool dead;
	struct completion done;
	bool kicked;        /* started by bringup_nonboot_cpus(), not waited for */
	int waiter;         /* the CPU waiting for it to come online */
	uint64_t up_ns;     /* when it went online, by its own clock reading */
};

static int bringup_cpu(unsigned int cpu);
static int takedown_cpu(unsigned int cpu);

/*
 * The table. Slots are written only with no hotplug operation running
 * (cpuhp_setup_state() holds the hotplug lock as a reader, or runs at
 * boot before the other CPUs start), so the walk reads it unlocked.
 */
static struct cpuhp_step cpuhp_steps[CPUHP_ONLINE + 1] = {
	[CPUHP_OFFLINE] = {"offline", 0, 0},
	[CPUHP_SMPCFD_PREPARE] = {"smp:prepare", smpcfd_prepare_cpu, 0},
	[CPUHP_TIMERS_PREPARE] = {"timers:prepare", timers_prepare_cpu,
				  timers_dead_cpu},
	[CPUHP_SOFTIRQ_DEAD] = {"softirq:dead", 0, takeover_tasklets},
	[CPUHP_NET_DEV_DEAD] = {"net/dev:dead", 0, dev_cpu_dead},
	[CPUHP_PAGE_ALLOC_DEAD] = {"mm/page_alloc:dead", 0,
				   page_alloc_cpu_dead},
	[CPUHP_SLUB_DEAD] = {"mm/slub:dead", 0, kmalloc_cpu_dead},
	[CPUHP_PERCPU_CNT_DEAD] = {"lib/percpu_cnt:dead", 0,
				   percpu_counter_cpu_dead},
	[CPUHP_RCUTREE_PREP] = {"RCU/tree:prepare", rcutree_prepare_cpu,
				rcutree_dead_cpu},
	[CPUHP_BRINGUP_CPU] = {"cpu:bringup", bringup_cpu, 0},
	[CPUHP_AP_SCHED_STARTING] = {"sched:starting", sched_cpu_starting,
				     sched_cpu_dying},
	[CPUHP_AP_IRQ_WORK_DYING] = {"irq_work:dying", 0, irq_work_cpu_dying},
	[CPUHP_AP_SMPCFD_DYING] = {"smp:dying", 0, smpcfd_dying_cpu},
	[CPUHP_AP_ONLINE] = {"ap:online", 0, 0},
	[CPUHP_TEARDOWN_CPU] = {"cpu:teardown", 0, takedown_cpu},
	[CPUHP_AP_SCHED_WAIT_EMPTY] = {"sched:waitempty", 0,
				       sched_cpu_wait_empty},
	[CPUHP_AP_RCUTREE_ONLINE] = {"RCU/tree:online", rcutree_online_cpu,
				     rcutree_offline_cpu},
	[CPUHP_AP_ACTIVE] = {"sched:active", sched_cpu_activate,
			     sched_cpu_deactivate},
	[CPUHP_ONLINE] = {"online", 0, 0},
};

/* The boot CPU is CPU 0, online from the start. */
static struct cpuhp_cpu_state cpuhp_cpu[NR_CPUS] = {
	[0] = {.state = CPUHP_ONLINE},
};

static void (*ap_entry)(int cpu);   /* set once, at boot */
static bool cpuhp_booted;           /* the other CPUs have been started */
static DEFINE_RAW_SPINLOCK(cpuhp_steps_lock); /* claims of free slots */

enum cpuhp_state cpuhp_cpu_state(int cpu)
{
	return cpuhp_cpu[cpu].state;
}

/* For messages: a free slot of a dynamic range has no name. */
static const char *cpuhp_state_name(enum cpuhp_state s)
{
	return cpuhp_steps[s].name ? cpuhp_steps[s].name : "a free slot";
}

/* The STARTING/DYING section: run on the CPU itself, interrupts off. */
static bool cpuhp_is_ap_state(enum cpuhp_state s)
{
	return s > CPUHP_BRINGUP_CPU && s < CPUHP_AP_ONLINE;
}

static bool cpuhp_is_marker(enum cpuhp_state s)
{
	return s == CPUHP_OFFLINE || s == CPUHP_BRINGUP_CPU ||
	       s == CPUHP_AP_ONLINE || s == CPUHP_TEARDOWN_CPU ||
	       s == CPUHP_ONLINE;
}

/* ---- the hotplug lock (Linux's cpu_hotplug_lock) ---- */

/*
 * A reader-writer lock with writer preference: once a writer waits, new
 * readers wait too, so a stream of readers cannot starve cpu_down().
 * cpu_add_remove_lock orders the writers; readers and the writer meet on
 * hp_lock.writer and hp_lock.readers, under hp_lock.lock.
 */
static DEFINE_MUTEX(cpu_add_remove_lock);
static struct {
	raw_spinlock_t lock;
	int readers;
	bool writer;
	struct wait_queue_head wq;
} hp_lock = {
	.lock = __RAW_SPIN_LOCK_UNLOCKED(hp_lock.lock),
	.wq = {__RAW_SPIN_LOCK_UNLOCKED(hp_lock.wq.lock),
	       LIST_HEAD_INIT(hp_lock.wq.head)},
};

static bool hp_read_trylock(void)
{
	unsigned long flags;
	bool ok;

	raw_spin_lock_irqsave(&hp_lock.lock, flags);
	ok = !hp_lock.writer;
	if (ok)
		hp_lock.readers++;
	raw_spin_unlock_irqrestore(&hp_lock.lock, flags);
	return ok;
}

static bool hp_no_readers(void)
{
	/* Acquire: the last reader's section (ended under the lock)
	 * before the writer's. */
	return smp_load_acquire(&hp_lock.readers) == 0;
}

/* Before the other CPUs are started no task but the boot CPU's idle task
 * runs, nothing can be a writer, and that task may not sleep: no lock. */
void cpus_read_lock(void)
{
	if (!cpuhp_booted)
		return;
	might_sleep();
	wait_event(hp_lock.wq, hp_read_trylock());
}

void cpus_read_unlock(void)
{
	unsigned long flags;
	bool last;

	if (!cpuhp_booted)
		return;
	raw_spin_lock_irqsave(&hp_lock.lock, flags);
	last = --hp_lock.readers == 0 && hp_lock.writer;
	raw_spin_unlock_irqrestore(&hp_lock.lock, flags);
	if (last)
		wake_up(&hp_lock.wq);
}

static void cpus_write_lock(void)
{
	unsigned long flags;

	mutex_lock(&cpu_add_remove_lock);
	raw_spin_lock_irqsave(&hp_lock.lock, flags);
	hp_lock.writer = true;
	raw_spin_unlock_irqrestore(&hp_lock.lock, flags);
	wait_event(hp_lock.wq, hp_no_readers());
}

static void cpus_write_unlock(void)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&hp_lock.lock, flags);
	hp_lock.writer = false;
	raw_spin_unlock_irqrestore(&hp_lock.lock, flags);
	wake_up(&hp_lock.wq);
	mutex_unlock(&cpu_add_remove_lock);
}

/* ---- the ends of the ladder that touch the CPU ---- */

/* Before cpu runs: what we did so far happens before what it does, in
 * the per-CPU checker's view of bring-up (lockdep_percpu_hb.c); ap_main()
 * acquires. */
static void cpuhp_kick_prepare(int cpu)
{
	lockdep_hb_release(&__per_cpu_offset[cpu]);
}

/*
 * Wait until the started cpu is online, or has not answered within its
 * bound (arch_poll_cpu_alive, which then parks it). Once it is alive we
 * wait halted, not spinning: under QEMU's one-threaded TCG
 * (DETERMINISTIC=1) a spinning waiter keeps the host thread for its whole
 * time slice while the CPUs it waits for cannot run; the CPU wakes us
 * with an IPI once online (cpuhp_online_idle), the tick otherwise. Until
 * it is alive we spin (with pause, which ends our time slice there): with
 * -icount QEMU 7.2 books an AP's INIT as its whole time slice, which runs
 * to the next timer event, and a halted waiter leaves no near event to
 * end it (measured: halting there left the CPUs unstarted for 1 to 145
 * ms; docs/boot.md, "What it costs"). waiter is
 * stored, and the online mask read, with full barriers, as the CPU sets
 * its bit and then reads waiter: one of the two sees the other's write.
 */
static bool cpuhp_wait_online(int cpu)
{
	struct cpuhp_cpu_state *st = &cpuhp_cpu[cpu];
	unsigned long flags;
	int alive = 0;
	bool online;

	for (;;) {
		/* With interrupts as they were: giving up frees the CPU's
		 * stacks and unmaps the trampoline, which flushes TLBs by
		 * cross-CPU calls. */
		if (!alive)
			alive = arch_poll_cpu_alive(cpu, AP_BOOT_TIMEOUT_US);
		if (alive < 0)
			return false;
		local_irq_save(flags);
		/* Store, full barrier, load: the CPU does the mirror image
		 * (sets its online bit, reads waiter), so one of us sees
		 * the other's store. */
		smp_store_mb(st->waiter, raw_smp_processor_id());
		online = alive > 0 && cpu_online(cpu);
		if (!online) {
			if (alive > 0 && !irqs_disabled_flags(flags))
				safe_halt(); /* sti; hlt: no IPI slips in */
			else
				cpu_relax();
		}
		local_irq_restore(flags);
		if (online)
			break;
	}
	/* What the CPU set up before it went online (set_cpu_online()'s
	 * barrier) is seen from here on: the test of its bit acquires. */
	smp_acquire__after_ctrl_dep();
	return true;
}

/* Start cpu, unless bringup_nonboot_cpus() has with the others, and wait
 * until it has walked its STARTING states and is online (ap_main). */
static int bringup_cpu(unsigned int cpu)
{
	struct cpuhp_cpu_state *st = &cpuhp_cpu[cpu];
	int one = cpu;

	if (!st->kicked) {
		cpuhp_kick_prepare(cpu);
		arch_kick_cpus(&one, 1, ap_entry);
		if (one < 0)
			return -ENOMEM;
	}
	st->kicked = false;
	if (!cpuhp_wait_online(cpu))
		return -EIO;
	st->state = CPUHP_AP_ONLINE;
	return 0;
}

/* Ask cpu, which runs nothing but its idle task now, to walk its DYING
 * states and park, and wait until it has. */
static int takedown_cpu(unsigned int cpu)
{
	struct cpuhp_cpu_state *st = &cpuhp_cpu[cpu];

	init_completion(&st->done);
	st->dead = false;
	smp_store_release(&st->should_die, true);
	resched_cpu(cpu); /* out of its halt, back to the idle loop's check */
	wait_for_completion(&st->done);
	/* complete() was its last call; the store after it its last write.
	 * Until then it may hold a lock we must not have it hold when it is
	 * started again (the INIT would leave that lock taken for good). */
	smp_cond_load_acquire(&st->dead, VAL);
	st->should_die = false;
	return 0;
}

bool cpuhp_should_die(void)
{
	return smp_load_acquire(&cpuhp_cpu[raw_smp_processor_id()].should_die);
}

/* A STARTING or DYING callback has nobody to report to: it must work. */
static void cpuhp_ap_invoke(int cpu, enum cpuhp_state s, bool up)
{
	int (*fn)(unsigned int) = up ? cpuhp_steps[s].startup
				     : cpuhp_steps[s].teardown;

	if (fn && fn(cpu))
		printk("cpuhp: CPU %d: %s callback of %s failed; going on\n",
		       cpu, up ? "startup" : "teardown", cpuhp_steps[s].name);
}

/* The STARTING states, from the first. st->state is the controlling
 * CPU's until we are online: it may be reading it for its own walk (the
 * CPUs start together), so we leave it as it is; bringup_cpu() moves it
 * to CPUHP_AP_ONLINE once it sees us online. */
void notify_cpu_starting(int cpu)
{
	rcu_cpu_starting(cpu); /* before any callback: they may use RCU */
	for (enum cpuhp_state s = CPUHP_BRINGUP_CPU + 1; s < CPUHP_AP_ONLINE;
	     s++)
		cpuhp_ap_invoke(cpu, s, true);
	cpuhp_cpu[cpu].up_ns = ktime_get_ns();
}

void cpuhp_online_idle(int cpu)
{
	/* After set_cpu_online()'s locked set_bit(): its store, a full
	 * barrier, then this load, the mirror of cpuhp_wait_online(). */
	smp_mb__after_atomic();
	arch_send_ipi(READ_ONCE(cpuhp_cpu[cpu].waiter), IPI_RESCHEDULE);
}

/*
 * The last thing a CPU does, from its idle loop with interrupts off: it
 * leaves the online set first, so that whoever sees it online sees it
 * whole; then its DYING callbacks run, in reverse order; then it stops
 * its timer, wakes the controller, leaves RCU (after complete(), which
 * may still read under it; the controller waits for dead before its DEAD
 * steps) and parks.
 */
__noreturn void cpuhp_play_dead(void)
{
	int cpu = raw_smp_processor_id();
	struct cpuhp_cpu_state *st = &cpuhp_cpu[cpu];

	set_cpu_offline(cpu);
	st->state = CPUHP_AP_ONLINE - 1;
	while (st->state > CPUHP_BRINGUP_CPU) {
		cpuhp_ap_invoke(cpu, st->state, false);
		st->state--;
	}
	arch_timer_stop();
	complete(&st->done);
	rcutree_report_cpu_dead(); /* no reader runs here from now on */
	arch_cpu_play_dead(&st->dead);
}

/* ---- walking the ladder ---- */

static int cpuhp_invoke(int cpu, enum cpuhp_state s, bool up)
{
	int (*fn)(unsigned int) = up ? cpuhp_steps[s].startup
				     : cpuhp_steps[s].teardown;

	return fn ? fn(cpu) : 0;
}

/* One step up: the startup of the next state. bringup_cpu moves the
 * state itself (the CPU walks its STARTING section). */
static int cpuhp_step_up(int cpu, struct cpuhp_cpu_state *st)
{
	enum cpuhp_state s = st->state + 1;
	int err = cpuhp_invoke(cpu, s, true);

	if (!err && s != CPUHP_BRINGUP_CPU)
		st->state = s;
	return err;
}

/* One step down: the teardown of this state. takedown_cpu leaves the
 * CPU at CPUHP_BRINGUP_CPU (it walked its DYING section). */
static int cpuhp_step_down(int cpu, struct cpuhp_cpu_state *st)
{
	enum cpuhp_state s = st->state;
	int err = cpuhp_invoke(cpu, s, false);

	if (!err && s != CPUHP_TEARDOWN_CPU)
		st->state = s - 1;
	return err;
}

/* Back to where a failed walk began, whatever the steps say: each one
 * that fails is reported and stepped over. */
static void cpuhp_rollback(int cpu, struct cpuhp_cpu_state *st,
			   enum cpuhp_state to)
{
	while (st->state != to) {
		bool up = st->state < to;
		enum cpuhp_state s = up ? st->state + 1 : st->state;
		int err = up ? cpuhp_step_up(cpu, st) : cpuhp_step_down(cpu, st);

		if (err) {
			printk("cpuhp: CPU %d: rolling back, %s of %s failed "
			       "(%d); stepped over\n", cpu,
			       up ? "startup" : "teardown",
			       cpuhp_steps[s].name, err);
			st->state = up ? s : s - 1;
		}
	}
}

/* Walk cpu to target; on a failure, back to where it was. */
static int cpuhp_walk(int cpu, enum cpuhp_state target)
{
	struct cpuhp_cpu_state *st = &cpuhp_cpu[cpu];
	enum cpuhp_state from = st->state;
	int err = 0;

	while (!err && st->state != target) {
		err = st->state < target ? cpuhp_step_up(cpu, st)
					 : cpuhp_step_down(cpu, st);
	}
	if (err) {
		enum cpuhp_state at = st->state < target ? st->state + 1
							 : st->state;

		printk("cpuhp: CPU %d: %s failed at %s (error %d); back to "
		       "%s\n", cpu, target > from ? "bring-up" : "take-down",
		       cpuhp_state_name(at), err, cpuhp_state_name(from));
		cpuhp_rollback(cpu, st, from);
	}
	return err;
}

/* ---- cpu_up, cpu_down ---- */

static bool cpu_number_ok(int cpu, const char *who)
{
	if (cpu >= 0 && cpu < nr_cpu_ids &&
	    cpumask_test_cpu(cpu, cpu_possible_mask))
		return true;
	printk("%s: CPU %d: no such CPU (CPUs 0-%d)\n", who, cpu,
	       nr_cpu_ids - 1);
	return false;
}

int cpu_up(int cpu)
{
	int err;

	if (!cpu_number_ok(cpu, "cpu_up"))
		return -EINVAL;
	might_sleep();
	cpus_write_lock();
	if (cpuhp_cpu[cpu].state == CPUHP_ONLINE) {
		printk("cpu_up: CPU %d is already online\n", cpu);
		err = -EALREADY;
	} else {
		err = cpuhp_walk(cpu, CPUHP_ONLINE);
	}
	cpus_write_unlock();
	return err;
}

/* Why cpu may not go down now, or 0. Under the hotplug lock. */
static int cpu_down_refused(int cpu)
{
	struct task_struct *self = current;

	if (cpuhp_cpu[cpu].state == CPUHP_OFFLINE) {
		printk("cpu_down: CPU %d is already offline\n", cpu);
		return -EALREADY;
	}
	if (num_online_cpus() == 1) {
		printk("cpu_down: CPU %d is the last online CPU\n", cpu);
		return -EBUSY;
	}
	if (cpu == 0) {
		printk("cpu_down: CPU 0 is the boot CPU: it takes the legacy "
		       "interrupts and counts jiffies, and stays online\n");
		return -EPERM;
	}
	if (self->migration_disabled && task_cpu(self) == cpu) {
		printk("cpu_down: CPU %d: %s/%d asks while pinned to it "
		       "(migrate_disable): it would wait for itself\n", cpu,
		       self->comm, self->pid);
		return -EDEADLK;
	}
	/* A per-CPU thread stays on its CPU until it parks, which only
	 * its subsystem's teardown asks: the ladder would wait in
	 * sched_cpu_wait_empty() for the very task walking it, holding
	 * the hotplug lock. */
	if (self->per_cpu_kthread && task_cpu(self) == cpu) {
		printk("cpu_down: CPU %d: %s/%d asks from a per-CPU thread of "
		       "that CPU, which stays there until it parks: it would "
		       "wait for itself\n", cpu, self->comm, self->pid);
		return -EDEADLK;
	}
	return 0;
}

int cpu_down(int cpu)
{
	int err;

	if (!cpu_number_ok(cpu, "cpu_down"))
		return -EINVAL;
	might_sleep();
	cpus_write_lock();
	err = cpu_down_refused(cpu);
	if (!err)
		err = cpuhp_walk(cpu, CPUHP_OFFLINE);
	cpus_write_unlock();
	return err;
}

/*
 * As Linux 6.5's parallel bring-up: every CPU up to where it is started
 * (its PREPARE steps, here), then all of them started at once, then each
 * the rest of the way in turn, which for most is only to see it online:
 * they set themselves up at the same time (ap_main). A CPU that could not
 * be started with the others is started alone by its own walk.
 */
uint64_t bringup_nonboot_cpus(int nr_cpus, void (*entry)(int cpu))
{
	static int cpus[NR_CPUS];
	uint64_t t0, last;
	int n = 0;

	ap_entry = entry;
	for (int cpu = 1; cpu < nr_cpus; cpu++)
		if (!cpuhp_walk(cpu, CPUHP_BRINGUP_CPU - 1)) {
			cpuhp_kick_prepare(cpu);
			cpus[n++] = cpu;
		}
	t0 = last = ktime_get_ns();
	arch_kick_cpus(cpus, n, entry);
	for (int i = 0; i < n; i++)
		if (cpus[i] >= 0)
			cpuhp_cpu[cpus[i]].kicked = true;
	for (int cpu = 1; cpu < nr_cpus; cpu++) {
		uint64_t up;

		if (cpuhp_walk(cpu, CPUHP_ONLINE)) {
			/* Back down from where phase one left it. */
			cpuhp_walk(cpu, CPUHP_OFFLINE);
			continue;
		}
		up = cpuhp_cpu[cpu].up_ns;
		printk("smpboot: CPU %d up in %lu us\n", cpu,
		       (unsigned long)((up - t0) / 1000));
		if (up > last)
			last = up;
	}
	cpuhp_booted = true;
	return last - t0;
}

/* ---- filling the table ---- */

static bool cpuhp_dyn_range(enum cpuhp_state state, enum cpuhp_state *first,
			    enum cpuhp_state *last)
{
	switch (state) {
	case CPUHP_BP_PREPARE_DYN:
		*first = CPUHP_BP_PREPARE_DYN;
		*last = CPUHP_BP_PREPARE_DYN_END;
		return true;
	case CPUHP_AP_STARTING_DYN:
		*first = CPUHP_AP_STARTING_DYN;
		*last = CPUHP_AP_STARTING_DYN_END;
		return true;
	case CPUHP_AP_ONLINE_DYN:
		*first = CPUHP_AP_ONLINE_DYN;
		*last = CPUHP_AP_ONLINE_DYN_END;
		return true;
	default:
		*first = *last = state;
		return false;
	}
}

/* Claim a free slot: state itself, or the first free one of its dynamic
 * range. Returns the slot or a negative error. */
static int cpuhp_claim(enum cpuhp_state state, const char *name,
		       int (*startup)(unsigned int cpu),
		       int (*teardown)(unsigned int cpu))
{
	enum cpuhp_state first, last, s;
	unsigned long flags;
	int ret;

	if (state <= CPUHP_OFFLINE || state >= CPUHP_ONLINE ||
	    cpuhp_is_marker(state) || !name) {
		printk("cpuhp_setup_state: state %d (%s): not a state that "
		       "takes callbacks\n", state, name ? name : "no name");
		return -EINVAL;
	}
	ret = cpuhp_dyn_range(state, &first, &last) ? -ENOSPC : -EBUSY;
	raw_spin_lock_irqsave(&cpuhp_steps_lock, flags);
	for (s = first; s <= last; s++)
		if (!cpuhp_steps[s].name) {
			cpuhp_steps[s] = (struct cpuhp_step){name, startup,
							     teardown};
			ret = s;
			break;
		}
	raw_spin_unlock_irqrestore(&cpuhp_steps_lock, flags);
	if (ret == -ENOSPC)
		printk("cpuhp_setup_state: %s: no free state in %d-%d\n", name,
		       first, last);
	else if (ret < 0)
		printk("cpuhp_setup_state: %s: state %d is taken (by %s)\n",
		       name, state, cpuhp_steps[state].name);
	return ret;
}

struct ap_call {
	int (*fn)(unsigned int cpu);
	int ret;
};

static void ap_call_fn(void *arg)
{
	struct ap_call *c = arg;

	c->ret = c->fn(raw_smp_processor_id());
}

/* Run one callback of state s for cpu where the state's section says:
 * on the CPU itself (interrupts off) for STARTING/DYING, else here. */
static int cpuhp_issue(int cpu, enum cpuhp_state s, bool up)
{
	struct ap_call c = {up ? cpuhp_steps[s].startup
			       : cpuhp_steps[s].teardown, 0};

	if (!c.fn)
		return 0;
	if (!cpuhp_is_ap_state(s))
		return c.fn(cpu);
	if (smp_call_function_single(cpu, ap_call_fn, &c, true))
		return -EBUSY; /* not online: cannot be (we hold the lock) */
	return c.ret;
}

/* startup(s) on every CPU past s; on a failure, teardown on those done. */
static int cpuhp_issue_all(enum cpuhp_state s)
{
	int cpu, err = 0, failed = -1;

	for_each_online_cpu(cpu) {
		if (cpuhp_cpu[cpu].state < s)
			continue;
		if ((err = cpuhp_issue(cpu, s, true))) {
			failed = cpu;
			break;
		}
	}
	if (!err)
		return 0;
	printk("cpuhp_setup_state: %s: startup failed on CPU %d (%d); undone\n",
	       cpuhp_steps[s].name, failed, err);
	for_each_online_cpu(cpu) {
		if (cpu == failed)
			break;
		if (cpuhp_cpu[cpu].state >= s)
			cpuhp_issue(cpu, s, false);
	}
	return err;
}

static void cpuhp_release(enum cpuhp_state s)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&cpuhp_steps_lock, flags);
	cpuhp_steps[s] = (struct cpuhp_step){0, 0, 0};
	raw_spin_unlock_irqrestore(&cpuhp_steps_lock, flags);
}

static int cpuhp_setup(enum cpuhp_state state, const char *name,
		       int (*startup)(unsigned int cpu),
		       int (*teardown)(unsigned int cpu), bool calls)
{
	enum cpuhp_state first, last;
	bool dyn = cpuhp_dyn_range(state, &first, &last);
	int s, err;

	cpus_read_lock();
	s = cpuhp_claim(state, name, startup, teardown);
	if (s >= 0 && calls && (err = cpuhp_issue_all(s))) {
		cpuhp_release(s);
		s = err;
	}
	cpus_read_unlock();
	if (s < 0)
		return s;
	return dyn ? s : 0;
}

int cpuhp_setup_state(enum cpuhp_state state, const char *name,
		      int (*startup)(unsigned int cpu),
		      int (*teardown)(unsigned int cpu))
{
	return cpuhp_setup(state, name, startup, teardown, true);
}

int cpuhp_setup_state_nocalls(enum cpuhp_state state, const char *name,
			      int (*startup)(unsigned int cpu),
			      int (*teardown)(unsigned int cpu))
{
	return cpuhp_setup(state, name, startup, teardown, false);
}

static void cpuhp_remove(enum cpuhp_state state, bool calls)
{
	int cpu;

	if (state <= CPUHP_OFFLINE || state >= CPUHP_ONLINE ||
	    cpuhp_is_marker(state) || WARN_ON(!cpuhp_steps[state].name))
		return;
	cpus_read_lock();
	if (calls)
		for_each_online_cpu(cpu)
			if (cpuhp_cpu[cpu].state >= state)
				cpuhp_issue(cpu, state, false);
	cpuhp_release(state);
	cpus_read_unlock();
}

void cpuhp_remove_state(enum cpuhp_state state)
{
	cpuhp_remove(state, true);
}

void cpuhp_remove_state_nocalls(enum cpuhp_state state)
{
	cpuhp_remove(state, false);
}
