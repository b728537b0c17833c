/*
 * Faults on purpose, one per run, for the containment tests
 * (tests/user/user.c): fault KIND, where KIND is
 *   ud        an invalid opcode                       #UD
 *   de        a division by zero                      #DE
 *   gp        a privileged instruction (cli)          #GP
 *   null      a store through NULL                    #PF
 *   kernel    a load from the kernel's text           #PF (not user)
 *   nx        a jump into the (non-executable) stack  #PF
 *   noncanon  an rseq abort handler at a non-canonical address: the
 *             return from the system call cannot be a sysretq; the
 *             iretq it becomes faults in the program's name
 *   sgdt, sidt, sldt, smsw, str
 *             reading where the kernel keeps its descriptor tables:
 *             #GP with UMIP (else they work, and fault returns 1)
 * None returns: the kernel kills the process.
 */
#include "ulib.h"

static volatile int zero;

static void fault_noncanon(void)
{
	static struct rseq rs;
	static struct rseq_cs cs;
	struct timespec ts = {0, 1000000};

	if (rseq(&rs, sizeof(rs), 0))
		exit(2);
	cs.abort_ip = 0x0000800000000000ul; /* just past the user half */
	__asm__ volatile("lea 1f(%%rip), %%rax\n\t"
			 "mov %%rax, %[start]\n\t"
			 "lea 2f(%%rip), %%rcx\n\t"
			 "sub %%rax, %%rcx\n\t"
			 "mov %%rcx, %[len]\n\t"
			 "lea %[cs], %%rax\n\t"
			 "mov %%rax, %[rcs]\n"
			 "1:\n\t"
			 "mov %[nr], %%eax\n\t"
			 "syscall\n\t" /* nanosleep: switched out in the section */
			 "nop\n"
			 "2:\n\t"
			 : [start] "=m"(cs.start_ip),
			   [len] "=m"(cs.post_commit_offset), [rcs] "=m"(rs.rseq_cs)
			 : [cs] "m"(cs), [nr] "i"(SYS_nanosleep), "D"(&ts), "S"(0)
			 : "rax", "rcx", "r11", "memory");
}

/* The instructions UMIP makes privileged; false if kind is none. */
static bool umip_insn(const char *kind)
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
	else
		return false;
	return true;
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
	} else if (!strcmp(kind, "noncanon")) {
		fault_noncanon();
	} else {
		umip_insn(kind);
	}
	printf("fault: %s did not fault\n", kind);
	return 1;
}
