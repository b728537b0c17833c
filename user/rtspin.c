/*
 * rtspin SLOT CPU: the spinner of the RT throttling test
 * (tests/user/rt_throttle.c), one per CPU. Pinned to CPU, it asks for
 * SCHED_FIFO 99 at once and leaves the answer in denied[SLOT] of the
 * shared page (-EPERM under the default RLIMIT_RTPRIO), waits for go (the
 * kernel has raised its limit to 99 by then), becomes SCHED_FIFO 99,
 * raises ready[SLOT] and spins, with no system call and no sleep, until
 * stop: only RT throttling lets anything else run on its CPU meanwhile.
 * Exit 0; 2, 3 when pinning or the raised priority failed.
 */
#include "ulib.h"

int main(int argc, char **argv)
{
	unsigned slot = argc > 1 ? simple_strtoul(argv[1], 0, 0) : 0;
	unsigned cpu = argc > 2 ? simple_strtoul(argv[2], 0, 0) : 0;
	struct rt_spin_page *pg = shm_map(RT_SPIN_KEY);
	struct sched_param fifo = {99};
	struct timespec ms = {0, 1000000};
	unsigned long n = 0;

	if (slot >= RT_SPIN_SLOTS || pin_to_cpu(cpu))
		return 2;
	WRITE_ONCE(pg->denied[slot],
		   sched_setscheduler(0, SCHED_POLICY_FIFO, &fifo));
	while (!READ_ONCE(pg->go) && !READ_ONCE(pg->stop))
		nanosleep(&ms, 0);
	if (!READ_ONCE(pg->stop) &&
	    sched_setscheduler(0, SCHED_POLICY_FIFO, &fifo))
		return 3;
	WRITE_ONCE(pg->ready[slot], 1);
	while (!READ_ONCE(pg->stop))
		n++;
	printf("rtspin %u: %lu rounds on CPU %u\n", slot, n, cpu);
	return 0;
}
