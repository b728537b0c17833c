/*
 * User programs against the kernel's memory (kernel/user/process.c,
 * output.c; docs/usermode.md): a fork bomb is stopped by RLIMIT_NPROC
 * with -EAGAIN, or by -ENOMEM when memory runs out first, and either way
 * every process completes and every page comes back; a spawn with no
 * memory fails cleanly; an orphan's output capture outlives the caller's
 * interest in it.
 */
#include "drain.h"
#include "kmalloc.h"
#include "ktest_util.h"
#include "page_alloc.h"
#include "process.h"
#include "rcupdate.h"
#include "shm.h"
#include "string.h"
#include "user/user_util.h"

/* Run the fork bomb from depth 0; its status. */
static int run_bomb(struct bomb_page *pg)
{
	char *argv[] = {"forkbomb", "0"};
	struct process *p;
	int err;

	memset((void *)pg, 0, sizeof(*pg));
	err = process_spawn("forkbomb", 2, argv, 0, &p);
	return err ? err : process_wait(p);
}

static void log_bomb(const char *what, const struct bomb_page *pg)
{
	ktest_log("%s: %d spawned, %d refused (-EAGAIN), %d out of memory, "
		  "%d failed otherwise, %d killed, %d completed", what,
		  pg->spawned, pg->refused, pg->nomem, pg->failed, pg->killed,
		  pg->completed);
}

/* The limit stops the bomb: at least one spawn refused with -EAGAIN,
 * none otherwise, every process (the first too) completed, and the free
 * page count is back where it was (a first run, and more kernel stacks
 * at once than the bomb can hold, take beforehand the page tables that
 * stay: the shared page's, and those of the kernel stacks' slots). */
KTEST(user, fork_bomb_stopped_by_nproc)
{
	struct bomb_page *pg = shm_page(BOMB_KEY);
	size_t before;

	KASSERT_TRUE(pg);
	KASSERT_EQ(run_bomb(pg), 0);
	ktest_warm_kstacks(4 * NPROC_TREE_MAX);
	mm_drain_all();
	before = page_free_count();
	KEXPECT_EQ(run_bomb(pg), 0);
	log_bomb("fork bomb", pg);
	KEXPECT_GE(pg->refused, 1);
	KEXPECT_EQ(pg->nomem, 0);
	KEXPECT_EQ(pg->failed, 0);
	KEXPECT_EQ(pg->killed, 0);
	KEXPECT_GE(pg->spawned, NPROC_TREE_MAX - 1);
	KEXPECT_EQ(pg->completed, pg->spawned + 1);
	mm_drain_all();
	KEXPECT_EQ(page_free_count(), before);
}

/* With kmalloc (and so the page allocator) exhausted, a spawn fails with
 * -ENOMEM and gives back what it had taken. Tasks are freed a grace
 * period after their last reference: rcu_barrier() before each count. */
KTEST(user, spawn_without_memory)
{
	char *argv[] = {"hello"};
	long in_use[KMALLOC_NR_CLASSES + 1];
	struct process *p;
	void *blocks;
	int err;

	rcu_barrier();
	for (int cls = 0; cls <= KMALLOC_NR_CLASSES; cls++)
		in_use[cls] = kmalloc_objects_in_use(cls);
	blocks = ktest_kmalloc_exhaust();
	err = process_spawn("hello", 1, argv, 0, &p);
	if (!err)
		process_wait(p);
	ktest_kmalloc_release(blocks);
	KEXPECT_EQ(err, -ENOMEM);
	rcu_barrier();
	for (int cls = 0; cls <= KMALLOC_NR_CLASSES; cls++)
		KEXPECT_EQ(kmalloc_objects_in_use(cls), in_use[cls]);
	KEXPECT_EQ(RUN_USER(0, "hello"), 0);
}

/* Memory for a few processes only (BOMB_ROOM_MB): the bomb meets -ENOMEM
 * before its limit, and its copies may fail their own system calls for
 * lack of memory (status 2 or 3, see user/forkbomb.c), but none is
 * killed, the first one's wait() returns (so every process ended and was
 * reaped), the kernel goes on, and every page comes back. */
#define BOMB_ROOM_MB 2

KTEST(user, fork_bomb_out_of_memory)
{
	struct bomb_page *pg = shm_page(BOMB_KEY);
	void *room[BOMB_ROOM_MB], *blocks;
	size_t before;
	int status;

	KASSERT_TRUE(pg);
	ktest_warm_kstacks(4 * NPROC_TREE_MAX);
	mm_drain_all();
	before = page_free_count();
	for (int i = 0; i < BOMB_ROOM_MB; i++)
		room[i] = kmalloc(1ul << 20);
	blocks = ktest_kmalloc_exhaust();
	for (int i = 0; i < BOMB_ROOM_MB; i++)
		kfree(room[i]);
	status = run_bomb(pg);
	ktest_kmalloc_release(blocks);
	log_bomb("fork bomb in 2 MiB", pg);
	ktest_log("its status: %d", status);
	KEXPECT_TRUE(status == 0 || status == 2 || status == 3 ||
		     status == -ENOMEM);
	KEXPECT_TRUE(pg->nomem >= 1 || status == -ENOMEM);
	KEXPECT_EQ(pg->refused, 0);
	KEXPECT_EQ(pg->failed, 0);
	KEXPECT_EQ(pg->killed, 0);
	KEXPECT_LE(pg->completed, pg->spawned + 1);
	mm_drain_all();
	KEXPECT_EQ(page_free_count(), before);
	KEXPECT_EQ(RUN_USER(0, "hello"), 0);
}

/*
 * A parent that exits leaving a child that keeps writing: the caller
 * waits for the parent and drops its capture while the orphan writes.
 * The orphan's reference keeps the capture alive: a block of the same
 * size taken and poisoned right after the caller's put is not the
 * capture (it would take the orphan's text if it were), and the capture
 * is freed only when the orphan exits (the objects in use of its size
 * return to their figure before, taken once the tasks of the tests
 * before are freed: a grace period after their last reference).
 */
KTEST(user, orphan_output_outlives_caller)
{
	struct orphan_page *pg = shm_page(ORPHAN_KEY);
	char *argv[] = {"usertest", "orphan"};
	struct process_output *out;
	unsigned char *poison;
	struct process *p;
	long bad = 0, large;
	bool writing;
	int w, status;

	rcu_barrier();
	large = kmalloc_objects_in_use(KMALLOC_NR_CLASSES);
	KASSERT_TRUE(pg);
	memset((void *)pg, 0, sizeof(*pg));
	KASSERT_TRUE(out = process_output_alloc());
	KASSERT_EQ(process_spawn("usertest", 2, argv, out, &p), 0);
	status = process_wait(p);
	KEXPECT_EQ(status, 0);
	/* A parent that failed may have left no orphan to wait for. */
	writing = status == 0 && ktest_poll_int(&pg->writes, 1, KTEST_WAIT_MS);
	KEXPECT_TRUE(writing);
	process_output_put(out);
	if (!writing) { /* no orphan: each wait below would only time out */
		store_int(&pg->stop, 1);
		if (load_int(&pg->writes)) /* one came after all: let it end */
			KEXPECT_TRUE(ktest_poll_int(&pg->done, 1,
						    KTEST_WAIT_MS));
		return;
	}
	/* No KASSERT until the orphan is told to stop: it writes on. */
	poison = kmalloc(sizeof(*out));
	KEXPECT_TRUE(poison);
	if (poison) {
		memset(poison, 0xa5, sizeof(*out));
		w = load_int(&pg->writes);
		KEXPECT_TRUE(ktest_poll_int(&pg->writes, w + 5, KTEST_WAIT_MS));
		for (size_t i = 0; i < sizeof(*out); i++)
			bad += poison[i] != 0xa5;
		KEXPECT_EQ(bad, 0);
		kfree(poison);
	}
	store_int(&pg->stop, 1);
	KEXPECT_TRUE(ktest_poll_int(&pg->done, 1, KTEST_WAIT_MS));
	KEXPECT_TRUE(ktest_poll_until((rcu_barrier(),
				       kmalloc_objects_in_use(
					       KMALLOC_NR_CLASSES) == large),
				      KTEST_WAIT_MS, POLL_SLEEP));
	KEXPECT_EQ(kmalloc_objects_in_use(KMALLOC_NR_CLASSES), large);
}

/* RLIMIT_NPROC is a limit like the others: getrlimit() reads it (it was
 * -EINVAL, although the limit was enforced), and a process that lowers
 * it is held to what it set. */
KTEST(user, nproc_limit_read_and_lowered)
{
	KEXPECT_EQ(RUN_USER(0, "usertest", "nproclimit"), 0);
	KEXPECT_TRUE(strstr(user_out->buf, "RLIMIT_NPROC enforced"));
}
