/*
 * Faults on purpose, one per run, for the containment tests
 * (tests/user/user.c): fault KIND, where KIND is
 *   ud        an invalid opcode                       #UD
 *   de        a division by zero                      #DE
 *   gp        a privileged instruction (cli)          #GP
 *   null      a store through NULL                    #PF
 *   kernel    a load from the kernel's text           #PF (not user)
 *   nx        a jump into the (non-executable) stack  #PF
 *   sgdt, sidt, sldt, smsw, str
 *             reading where the kernel keeps its descriptor tables:
 *             #GP with UMIP (else they work, and fault returns 1)
 * None returns: the kernel kills the process.
 */
#include "ulib.h"

static volatile int zero;

/* The instructions UMIP makes privileged (nothing if kind is none). */
static void umip_insn(const char *kind)
{
	struct {
		uint16_t limit;
		uint64_t base;
	} __attribute__((packed)) table;
	unsigned long v;

	if (!strcmp(kind, "sgdt"))
		__asm__ volatile("sgdt %0" : "=m"(table));
	else if (!strcmp(kind, "sidt"))
		__asm__ volatile("sidt %0" : "=m"(table));
	else if (!strcmp(kind, "sldt"))
		__asm__ volatile("sldt %0" : "=r"(v));
	else if (!strcmp(kind, "smsw"))
		__asm__ volatile("smsw %0" : "=r"(v));
	else if (!strcmp(kind, "str"))
		__asm__ volatile("str %0" : "=r"(v));
}

int main(int argc, char **argv)
{
	const char *kind = argc > 1 ? argv[1] : "";

	if (!strcmp(kind, "ud"))
		__asm__ volatile("ud2");
	else if (!strcmp(kind, "de"))
		__asm__ volatile("divl %0" : : "r"(zero), "a"(1), "d"(0));
	else if (!strcmp(kind, "gp"))
		__asm__ volatile("cli");
	else if (!strcmp(kind, "null"))
		*(volatile int *)0 = 1;
	else if (!strcmp(kind, "kernel"))
		zero = *(volatile int *)0xffffffff80100000ul;
	else if (!strcmp(kind, "nx")) {
		unsigned char code[16] = {0xc3}; /* ret */

		((void (*)(void))(uintptr_t)code)();
	} else {
		umip_insn(kind);
	}
	printf("fault: %s did not fault\n", kind);
	return 1;
}
