/*
 * rseqabi CASE: the rseq ABI's rules from user space (docs/usermode.md,
 * kernel/user/rseq.c), one case per run:
 *   register    the system call's answers: Linux's errors for a bad area,
 *               length, flag, signature or a second registration
 *   good        a valid section that sleeps inside: the kernel sends it
 *               to its abort handler; exit 0 (a sleep that ended without
 *               a switch, on a host that held the vCPU back, is retried)
 * and one broken rule each, on top of the good case, which the kernel
 * answers by killing the process (WAIT_KILLED | 0xff):
 *   badsig      registered with another signature than the one before
 *               the abort handler
 *   abort-in-cs       abort_ip inside the section
 *   abort-kernel      abort_ip in the kernel's half
 *   abort-noncanon    abort_ip just past the user half (not canonical)
 *   cs-kernel         start_ip in the kernel's half
 *   cs-wrap           post_commit_offset running past the end of memory
 *   version           rseq_cs version 1
 *   cs-flags          a flag in the descriptor
 *   rseq-flags        a flag in struct rseq
 *   cs-unreadable     rseq_cs pointing into the kernel
 * Exit status 1 if a broken case was not killed, 2 if the good one did
 * not abort; the register case exits with the number of the failed check.
 */
#include "ulib.h"

#define KERNEL_ADDR 0xffffffff80100000ul
#define NONCANON    0x0000800000000000ul

static struct rseq rs;
static struct rseq_cs cs;

/*
 * long cs_run(uint64_t *rseq_cs, struct rseq_cs *desc, struct timespec *ts,
 *             long nr_nanosleep)
 * Publishes desc in *rseq_cs, then runs the section [cs_start, cs_end):
 * a nanosleep, which switches the task out, so the kernel looks at the
 * descriptor on the way back and moves RIP (just after the syscall,
 * inside) to cs_abort. Returns 1 from the abort handler, 0 if the
 * section ran through.
 */
extern char cs_start[], cs_end[], cs_abort[];
long cs_run(uint64_t *rseq_cs, struct rseq_cs *desc, struct timespec *ts,
	    long nr_nanosleep);
__asm__(".text\n"
	".globl cs_run, cs_start, cs_end, cs_abort\n"
	"cs_run:\n\t"
	"mov %rsi, (%rdi)\n"
	"cs_start:\n\t"
	"mov %rdx, %rdi\n\t"
	"xor %esi, %esi\n\t"
	"mov %ecx, %eax\n\t"
	"syscall\n\t"
	"nop\n"
	"cs_end:\n\t"
	"xor %eax, %eax\n\t"
	"ret\n\t"
	RSEQ_SIG_BYTES
	"cs_abort:\n\t"
	"mov $1, %eax\n\t"
	"ret\n");

static int checks;

#define CHECK(cond)                                                          \
	do {                                                                 \
		checks++;                                                    \
		if (!(cond)) {                                               \
			printf("rseqabi: check %d failed: %s\n", checks,     \
			       #cond);                                       \
			exit(checks);                                        \
		}                                                            \
	} while (0)

/* The system call's answers, as Linux's sys_rseq gives them. */
static int test_register(void)
{
	static struct rseq other;
	char *misaligned = (char *)&other + 8;

	CHECK(rseq(&rs, sizeof(rs), 2, RSEQ_SIG) == -EINVAL);
	CHECK(rseq(&rs, 16, 0, RSEQ_SIG) == -EINVAL);
	CHECK(rseq((struct rseq *)misaligned, sizeof(rs), 0, RSEQ_SIG) ==
	      -EINVAL);
	CHECK(rseq((struct rseq *)KERNEL_ADDR, sizeof(rs), 0, RSEQ_SIG) ==
	      -EFAULT);
	CHECK(rseq(&rs, sizeof(rs), RSEQ_FLAG_UNREGISTER, RSEQ_SIG) ==
	      -EINVAL); /* nothing registered */
	CHECK(rseq(&rs, sizeof(rs), 0, RSEQ_SIG) == 0);
	CHECK(rseq(&rs, sizeof(rs), 0, RSEQ_SIG) == -EBUSY);
	CHECK(rseq(&rs, sizeof(rs), 0, RSEQ_SIG + 1) == -EPERM);
	CHECK(rseq(&other, sizeof(rs), 0, RSEQ_SIG) == -EINVAL);
	CHECK(rseq(&rs, sizeof(rs), RSEQ_FLAG_UNREGISTER, RSEQ_SIG + 1) ==
	      -EPERM);
	CHECK(rseq(&rs, sizeof(rs), RSEQ_FLAG_UNREGISTER | 2, RSEQ_SIG) ==
	      -EINVAL);
	CHECK(rseq(&other, sizeof(rs), RSEQ_FLAG_UNREGISTER, RSEQ_SIG) ==
	      -EINVAL);
	CHECK(rseq(&rs, sizeof(rs), RSEQ_FLAG_UNREGISTER, RSEQ_SIG) == 0);
	CHECK(rseq(&rs, sizeof(rs), RSEQ_FLAG_UNREGISTER, RSEQ_SIG) ==
	      -EINVAL);
	printf("rseqabi: register ok\n");
	return 0;
}

/*
 * Run the section until the kernel has switched the process out inside
 * it (cs_run() returns 1); true once it has. A nanosleep whose time has
 * passed by the time the kernel would switch (a host that held this vCPU
 * back for that long) returns without switching, and then nothing is
 * aborted: try again, each sleep twice as long, 1 ms to about 1 s.
 */
static bool run_until_switched(uint64_t desc)
{
	for (unsigned long ns = 1000000; ns < 2000000000ul; ns *= 2) {
		struct timespec ts = {ns / 1000000000, ns % 1000000000};

		/* cs_run stores desc itself: the pointer may be one the
		 * compiler would not store for us (a kernel address). */
		if (cs_run(&rs.rseq_cs, (struct rseq_cs *)desc, &ts,
			   SYS_nanosleep) == 1)
			return true;
	}
	return false;
}

/* Break one rule of the good descriptor (or registration); false if
 * kind names none. */
static bool break_rule(const char *kind, uint32_t *sig, uint64_t *desc)
{
	if (!strcmp(kind, "badsig"))
		*sig = RSEQ_SIG + 1;
	else if (!strcmp(kind, "abort-in-cs"))
		cs.abort_ip = cs.start_ip + 1;
	else if (!strcmp(kind, "abort-kernel"))
		cs.abort_ip = KERNEL_ADDR;
	else if (!strcmp(kind, "abort-noncanon"))
		cs.abort_ip = NONCANON;
	else if (!strcmp(kind, "cs-kernel"))
		cs.start_ip = KERNEL_ADDR;
	else if (!strcmp(kind, "cs-wrap"))
		cs.post_commit_offset = ~0ul - 8;
	else if (!strcmp(kind, "version"))
		cs.version = 1;
	else if (!strcmp(kind, "cs-flags"))
		cs.flags = 1;
	else if (!strcmp(kind, "rseq-flags"))
		rs.flags = 1;
	else if (!strcmp(kind, "cs-unreadable"))
		*desc = KERNEL_ADDR;
	else
		return false;
	return true;
}

int main(int argc, char **argv)
{
	const char *kind = argc > 1 ? argv[1] : "";
	uint64_t desc = (uint64_t)&cs;
	uint32_t sig = RSEQ_SIG;
	bool broken;

	if (!strcmp(kind, "register"))
		return test_register();
	cs = (struct rseq_cs){
		.start_ip = (uintptr_t)cs_start,
		.post_commit_offset = cs_end - cs_start,
		.abort_ip = (uintptr_t)cs_abort,
	};
	broken = break_rule(kind, &sig, &desc);
	if (!broken && strcmp(kind, "good")) {
		printf("usage: rseqabi register | good | BROKEN-RULE\n");
		return 100;
	}
	if (rseq(&rs, sizeof(rs), 0, sig))
		return 3;
	if (!run_until_switched(desc)) {
		printf("rseqabi: %s: the section was not aborted\n", kind);
		return 2;
	}
	if (broken) {
		printf("rseqabi: %s: not killed\n", kind);
		return 1;
	}
	printf("rseqabi: good: aborted and restarted\n");
	return 0;
}
