/*
 * Lab 5's hidden check (docs/labs/lab5.md): the graph search the student
 * writes (bfs() in kernel/locking/lockdep_graph.c) on graphs larger than the
 * visible tests': a cycle of ten classes closed by its last edge, and a
 * lattice of many paths between two classes that has no cycle until one
 * edge closes all of them at once, reported exactly once. A search that
 * stops at a fixed depth, or that never marks what it has seen, fails.
 */
#ifdef CONFIG_LOCKDEP

#include "ktest.h"
#include "ktest_util.h"
#include "lockdep.h"
#include "spinlock.h"

KTEST_SUITE(lockdep_lab5, .init = lockdep_reset, .exit = lockdep_reset);

#define RING 10
#define LAYERS 6
#define WIDTH 4

static raw_spinlock_t ring[RING];
static struct lock_class_key ring_keys[RING];
static raw_spinlock_t grid[LAYERS][WIDTH];
static struct lock_class_key grid_keys[LAYERS][WIDTH];

/* Take a, then b, then let both go: the edge a -> b. */
static void edge(raw_spinlock_t *a, raw_spinlock_t *b)
{
	raw_spin_lock(a);
	raw_spin_lock(b);
	raw_spin_unlock(b);
	raw_spin_unlock(a);
}

KTEST(lockdep_lab5, ten_class_cycle)
{
	for (int i = 0; i < RING; i++) {
		raw_spin_lock_init(&ring[i]);
		lockdep_set_class(&ring[i], &ring_keys[i]);
	}
	for (int i = 0; i + 1 < RING; i++)
		edge(&ring[i], &ring[i + 1]);
	KEXPECT_LOCKDEP_NONE();
	edge(&ring[RING - 1], &ring[0]);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_CIRCULAR, 1);
}

/* Every class of a layer before every class of the next: WIDTH^(LAYERS-1)
 * paths from the first layer to the last, and no cycle. Then one edge
 * from the last layer back to the first closes a cycle through each. */
KTEST(lockdep_lab5, lattice_many_paths_one_report)
{
	for (int l = 0; l < LAYERS; l++)
		for (int w = 0; w < WIDTH; w++) {
			raw_spin_lock_init(&grid[l][w]);
			lockdep_set_class(&grid[l][w], &grid_keys[l][w]);
		}
	for (int l = 0; l + 1 < LAYERS; l++)
		for (int a = 0; a < WIDTH; a++)
			for (int b = 0; b < WIDTH; b++)
				edge(&grid[l][a], &grid[l + 1][b]);
	/* Orders the lattice already implies: no new cycle. */
	edge(&grid[0][0], &grid[LAYERS - 1][WIDTH - 1]);
	edge(&grid[1][2], &grid[4][1]);
	KEXPECT_LOCKDEP_NONE();
	edge(&grid[LAYERS - 1][0], &grid[0][WIDTH - 1]);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_CIRCULAR, 1);
}

#endif
