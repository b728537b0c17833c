/*
 * A fork bomb, for the kernel's limit on processes (RLIMIT_NPROC,
 * docs/usermode.md): every process spawns copies of itself, up to
 * FANOUT, until the kernel refuses one (-EAGAIN at the limit, -ENOMEM
 * when memory runs out first), then waits for its children and
 * ends. "forkbomb DEPTH": the depth of this copy (0 for the first); at
 * MAX_DEPTH a copy spawns nothing. What happened is counted in the shared
 * page (struct bomb_page), which the kernel test reads. Exit status: 0;
 * 2 when a child's was not 0; 3 when even the shared page could not be
 * mapped (out of memory).
 */
#include "ulib.h"

#define FANOUT 4
#define MAX_DEPTH 6

static void count(int *c)
{
	__atomic_fetch_add(c, 1, __ATOMIC_SEQ_CST);
}

int main(int argc, char **argv)
{
	struct bomb_page *pg = shm_map(BOMB_KEY);
	int depth = argc > 1 ? (int)simple_strtoul(argv[1], 0, 10) : 0;
	int child[FANOUT], n = 0, bad = 0;
	char next[8];
	char *args[] = {"forkbomb", next, 0};

	if ((long)pg < 0)
		return 3; /* no memory to map it: a spawned copy can fail so */
	snprintf(next, sizeof(next), "%d", depth + 1);
	while (depth < MAX_DEPTH && n < FANOUT) {
		int pid = spawn("forkbomb", args);

		if (pid == -EAGAIN) {
			count(&pg->refused);
			break;
		}
		if (pid < 0) {
			count(pid == -ENOMEM ? &pg->nomem : &pg->failed);
			break;
		}
		count(&pg->spawned);
		child[n++] = pid;
	}
	for (int i = 0; i < n; i++) {
		int status = -1;

		if (wait(child[i], &status) != child[i] || status != 0)
			bad++;
		if (status >= 0 && (status & WAIT_KILLED))
			count(&pg->killed);
	}
	count(&pg->completed);
	return bad ? 2 : 0;
}
