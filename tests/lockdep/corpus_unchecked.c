/*
 * The detector corpus (percpu_corpus.h): what is not a checked access:
 * DEFINE_PER_CPU_STAT statistics (lost updates accepted) and per_cpu_ptr()
 * used only to form and compare addresses; and the per_cpu() that then
 * reaches a copy, which is.
 */
#include <stdbool.h>

#include "corpus_util.h"

/* ------------------------------------------------------------------ */
/* stat: DEFINE_PER_CPU_STAT, lost updates accepted                    */
/* ------------------------------------------------------------------ */

static DEFINE_PER_CPU_STAT(long, st_v);

/* Two tasks update a statistic without protection. Correct by
 * definition: an occasional lost update is acceptable. */
static long stat_two_tasks(void)
{
	corpus_pair(&corpus_bare, &corpus_bare, &st_v);
	return CORPUS_NO_COUNT;
}

/* The test task sums every CPU's statistic while a worker updates it. */
static long stat_remote_reader(void)
{
	long s = 0;
	int cpu;

	corpus_zero(&st_v);
	corpus_add_context(&corpus_bare, &st_v, corpus_cpu());
	corpus_start_contexts();
	for_each_online_cpu(cpu)
		s += per_cpu(st_v, cpu);
	corpus_join_contexts();
	if (s < 0 || s > corpus.loops)
		corpus_broken("a statistic out of its range");
	return CORPUS_NO_COUNT;
}

/* ------------------------------------------------------------------ */
/* address: forming per_cpu_ptr() addresses is not an access            */
/* ------------------------------------------------------------------ */

/* While a worker updates C's copy (its own alone), the test task finds
 * which CPU a pointer belongs to by comparing per_cpu_ptr()s. Correct. */
static DEFINE_PER_CPU(long, ao_v);

static int owner_of(long *var, long *p)
{
	int cpu;

	for_each_online_cpu(cpu)
		if (per_cpu_ptr(var, cpu) == p)
			return cpu;
	return -1;
}

static long address_owner_search(void)
{
	corpus_zero(&ao_v);
	corpus_add_context(&corpus_bare, &ao_v, corpus_cpu());
	corpus_start_contexts();
	if (owner_of(&ao_v, per_cpu_ptr(&ao_v, corpus_cpu())) != corpus_cpu())
		corpus_broken("per_cpu_ptr() owner search failed");
	corpus_join_contexts();
	return (long)corpus.loops - corpus_sum(&ao_v);
}

/* ... checks that the copies are distinct, pair by pair. Correct. */
static DEFINE_PER_CPU(long, ad_v);

static long address_distinct(void)
{
	int a, b;

	corpus_zero(&ad_v);
	corpus_add_context(&corpus_bare, &ad_v, corpus_cpu());
	corpus_start_contexts();
	for_each_online_cpu(a)
		for_each_online_cpu(b)
			if (a < b &&
			    per_cpu_ptr(&ad_v, a) == per_cpu_ptr(&ad_v, b))
				corpus_broken("two CPUs share a per-CPU copy");
	corpus_join_contexts();
	return (long)corpus.loops - corpus_sum(&ad_v);
}

/* ... then updates the copy it found with per_cpu(): that is an access,
 * unordered with the worker's. Racy. */
static DEFINE_PER_CPU(long, ap_v);

static long address_then_per_cpu(void)
{
	int owner;

	corpus_zero(&ap_v);
	corpus_add_context(&corpus_bare, &ap_v, corpus_cpu());
	corpus_start_contexts();
	owner = owner_of(&ap_v, per_cpu_ptr(&ap_v, corpus_cpu()));
	if (owner < 0)
		corpus_broken("per_cpu_ptr() owner search failed");
	else
		for (int i = 0; i < corpus.loops; i++)
			corpus_rmw_per_cpu(&ap_v, owner);
	corpus_join_contexts();
	return 2l * corpus.loops - corpus_sum(&ap_v);
}

const struct corpus_scenario corpus_unchecked[] = {
	CORRECT(stat, stat_two_tasks, 1),
	CORRECT(stat, stat_remote_reader, 1),
	CORRECT(address, address_owner_search, 1),
	CORRECT(address, address_distinct, 1),
	RACY(address, address_then_per_cpu, 1),
	{0},
};
