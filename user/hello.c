/* The first user program: greets from ring 3 and says where it runs. */
#include "ulib.h"

int main(int argc, char **argv)
{
	unsigned cpu;

	getcpu(&cpu, 0);
	printf("hello from user mode: pid %d on CPU %u, argv[0] \"%s\"\n",
	       getpid(), cpu, argc > 0 ? argv[0] : "");
	return 0;
}
