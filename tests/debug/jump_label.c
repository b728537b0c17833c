/*
 * Static keys (kernel/jump_label.c, arch/x86_64/text_patch.c): a site
 * reads false until its key is enabled, true after, false again after a
 * disable, and a CPU running through the site while it is rewritten
 * sees the old or the new branch, never a torn instruction.
 */
#include "jump_label.h"
#include "ktest_util.h"
#include "asm/text-patching.h"

static DEFINE_STATIC_KEY_FALSE(test_key);
/* A key with no site: enabling it patches nothing. */
static DEFINE_STATIC_KEY_FALSE(siteless_key);

static __attribute__((noinline)) int probe(void)
{
	if (static_branch_unlikely(&test_key))
		return 1;
	return 0;
}

KTEST(jump_label, enable_and_disable)
{
	KASSERT_FALSE(static_key_enabled(&test_key));
	KEXPECT_EQ(probe(), 0);
	static_branch_enable(&test_key);
	KEXPECT_TRUE(static_key_enabled(&test_key));
	KEXPECT_EQ(probe(), 1);
	static_branch_enable(&test_key); /* already on: nothing changes */
	KEXPECT_EQ(probe(), 1);
	static_branch_disable(&test_key);
	KEXPECT_FALSE(static_key_enabled(&test_key));
	KEXPECT_EQ(probe(), 0);
	static_branch_disable(&test_key);
	KEXPECT_EQ(probe(), 0);
	/* Another key's change leaves this one's site alone. */
	static_branch_enable(&siteless_key);
	KEXPECT_EQ(probe(), 0);
	static_branch_disable(&siteless_key);
}

#define PROBES_PER_PHASE 2000

/* What the test task is doing, as the prober sees it. */
enum probe_phase {
	PH_OFF,         /* the key off, no change started */
	PH_ENABLING,
	PH_ON,          /* static_branch_enable() returned */
	PH_DISABLING,
	PH_OFF_AGAIN,   /* static_branch_disable() returned */
	PH_STOP,
	PH_NR
};

struct prober {
	volatile int phase;
	volatile long calls[PH_NR];  /* probes inside one phase */
	volatile long wrong;         /* ... that disagreed with it */
};

static int prober_fn(void *arg)
{
	static const int want[PH_NR] = {
		[PH_OFF] = 0, [PH_ENABLING] = -1, [PH_ON] = 1,
		[PH_DISABLING] = -1, [PH_OFF_AGAIN] = 0,
	};
	struct prober *p = arg;
	int ph;

	while ((ph = load_int(&p->phase)) != PH_STOP) {
		int v = probe();

		/* A probe between two looks at the same phase ran inside
		 * it: while a change is under way either answer is right. */
		if (load_int(&p->phase) != ph)
			continue;
		if (want[ph] >= 0 && v != want[ph])
			p->wrong++;
		p->calls[ph]++;
	}
	return 0;
}

/* Patch the site while another CPU runs through it without pause: a
 * change is complete, on that CPU too, once it returns, and the site is
 * never torn on the way (a torn one would fault or run astray). */
KTEST_CPUS(jump_label, patch_under_a_running_cpu, 2)
{
	struct prober p = {.phase = PH_OFF};
	struct task_struct *t = ktest_spawn_on(last_cpu(), prober_fn, &p, "probe");

	KASSERT_TRUE(t != 0);
	KEXPECT_TRUE(ktest_poll_long(&p.calls[PH_OFF], PROBES_PER_PHASE,
				     KTEST_WAIT_MS));
	store_int(&p.phase, PH_ENABLING);
	static_branch_enable(&test_key);
	store_int(&p.phase, PH_ON);
	KEXPECT_TRUE(ktest_poll_long(&p.calls[PH_ON], PROBES_PER_PHASE,
				     KTEST_WAIT_MS));
	store_int(&p.phase, PH_DISABLING);
	static_branch_disable(&test_key);
	store_int(&p.phase, PH_OFF_AGAIN);
	KEXPECT_TRUE(ktest_poll_long(&p.calls[PH_OFF_AGAIN], PROBES_PER_PHASE,
				     KTEST_WAIT_MS));
	store_int(&p.phase, PH_STOP);
	KEXPECT_EQ(ktest_join(t), 0);
	ktest_log("probes: %ld off, %ld on, %ld off again; %ld and %ld "
		  "during the changes; %lu late int3s", p.calls[PH_OFF],
		  p.calls[PH_ON], p.calls[PH_OFF_AGAIN], p.calls[PH_ENABLING],
		  p.calls[PH_DISABLING],
		  text_poke_nr_stale_int3());
	KEXPECT_EQ(p.wrong, 0);
}

/* A key with more sites than one batch of the arch (128): each site an
 * inline copy of the branch, so each its own entry in __jump_table. */
static DEFINE_STATIC_KEY_FALSE(many_key);
#define MANY_SITES 300

static __always_inline int many_site(void)
{
	return static_branch_unlikely(&many_key);
}

#define SITES_10(s) s s s s s s s s s s
#define SITES_100(s) SITES_10(SITES_10(s))

/* How many of the MANY_SITES sites take their branch. */
static __attribute__((noinline)) int many_probe(void)
{
	int n = 0;

	SITES_100(n += many_site();)
	SITES_100(n += many_site();)
	SITES_100(n += many_site();)
	return n;
}

/* Every flush of one change pinned, on the CPU of the first: the
 * arch serialises the CPU it runs on by hand and every other by IPI, so
 * a task that moved between two batches would leave a CPU unserialised.
 * Checked for a change that takes three batches, from a task free to run
 * on every CPU. The pin count is what the kernel controls; a move
 * itself would need the host to preempt at the right instant. */
static void expect_pinned_flushes(const char *what)
{
	struct jump_label_flush f[JUMP_LABEL_FLUSH_LOG];
	int n = jump_label_last_flushes(f, JUMP_LABEL_FLUSH_LOG);

	KEXPECT_EQ(n, (MANY_SITES + 127) / 128);
	for (int i = 0; i < n && i < JUMP_LABEL_FLUSH_LOG; i++) {
		if (f[i].migration_disabled < 1 || f[i].cpu != f[0].cpu)
			ktest_log("%s: flush %d of %d on CPU %d with pin "
				  "count %d (the first on CPU %d)", what, i + 1,
				  n, f[i].cpu, f[i].migration_disabled,
				  f[0].cpu);
		KEXPECT_GE(f[i].migration_disabled, 1);
		KEXPECT_EQ(f[i].cpu, f[0].cpu);
	}
}

KTEST(jump_label, many_sites_patched_pinned)
{
	cpumask_t saved = current->cpus_mask;

	KASSERT_EQ(many_probe(), 0);
	set_cpus_allowed(current, cpu_online_mask);
	static_branch_enable(&many_key);
	expect_pinned_flushes("enable");
	KEXPECT_EQ(many_probe(), MANY_SITES);
	static_branch_disable(&many_key);
	expect_pinned_flushes("disable");
	KEXPECT_EQ(many_probe(), 0);
	set_cpus_allowed(current, &saved);
}
