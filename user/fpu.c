/*
 * fpu SLOT CPU ROUNDS: a process's x87, MMX and SSE registers are its own
 * (docs/usermode.md). Two of these run at once pinned to CPU, slots 0 and
 * 1 (tests/user/fpu.c); each, ROUNDS times:
 *   - SSE: loads all sixteen XMM registers with its own patterns and MXCSR
 *     with its own rounding mode, gives the CPU away (sched_yield, and
 *     spins long enough for a tick to preempt it) many times, then checks
 *     every register bit for bit and divides 1 by 3 under that rounding
 *     mode: slot 0 rounds down, slot 1 up, so the last bit tells;
 *   - x87: the same with the eight x87 registers (integers, exact) and the
 *     control word's rounding mode, and 1/3 in extended precision;
 *   - MMX: the same with MM0-7 (the x87 registers' other face);
 *   - C: a sum of doubles, with system calls in between, that must come
 *     out the same bits every round.
 * A register another process wrote, or a state not restored, shows as a
 * wrong bit. First of all, before anything else runs, the process checks
 * that it started with the clean state (FNINIT, default MXCSR, all vector
 * registers zero), not the registers of whoever ran before it. The mode
 * "clean" does only that. The processes meet through shared page
 * FPU_TEST_KEY and count how many of their yields the other one used
 * (printed: a run where the two never interleaved proves nothing).
 * Exit status: 0, or the number of the check that failed (printed).
 */
#include "ulib.h"

#define YIELDS 8       /* times the CPU is given away per phase */
#define SPIN 20000     /* loop rounds before each yield: a tick may land */

struct fxsave_area {
	uint16_t cwd, swd;
	uint8_t twd, pad0;
	uint16_t fop;
	uint64_t rip, rdp;
	uint32_t mxcsr, mxcsr_mask;
	uint8_t st[8][16];
	uint64_t xmm[16][2];
	uint8_t pad[96];
} __attribute__((aligned(16)));

static struct fxsave_area start_state;
static struct fpu_test_page *page;
static int slot;
static uint64_t seen; /* yields during which the other process ran */

#define CHECK(n, cond)                                                       \
	do {                                                                 \
		if (!(cond)) {                                               \
			printf("fpu %d: check %d failed: %s (line %d)\n",    \
			       slot, n, #cond, __LINE__);                    \
			exit(n);                                             \
		}                                                            \
	} while (0)

/* Inside each phase's asm, with its registers live: YIELDS times, spin
 * and yield, and count in seen the yields after which the other slot's
 * tick moved. Uses rax, rcx, rdx, r11, r12. */
#define YIELD_LOOP                                                           \
	"mov %[n], %%r12d\n"                                                 \
	"10:\n\t"                                                            \
	"mov (%[other]), %%rdx\n\t"                                          \
	"incq (%[mine])\n\t"                                                 \
	"mov %[spin], %%ecx\n"                                               \
	"11:\n\t"                                                            \
	"dec %%ecx\n\t"                                                      \
	"jnz 11b\n\t"                                                        \
	"mov %[nr], %%eax\n\t"                                               \
	"syscall\n\t"                                                        \
	"cmp (%[other]), %%rdx\n\t"                                          \
	"je 12f\n\t"                                                         \
	"incq %[seen]\n"                                                     \
	"12:\n\t"                                                            \
	"dec %%r12d\n\t"                                                     \
	"jnz 10b\n\t"

#define YIELD_OPERANDS                                                       \
	[n] "i"(YIELDS), [spin] "i"(SPIN), [nr] "i"(SYS_sched_yield),        \
	[mine] "r"(&page->ticks[slot]), [other] "r"(&page->ticks[!slot])
#define YIELD_CLOBBERS "rax", "rcx", "rdx", "r11", "r12", "memory", "cc"

static void fill(uint64_t *v, int n, uint64_t seed)
{
	for (int i = 0; i < n; i++)
		v[i] = rand64(&seed);
}

static void check_sse(int round)
{
	static const uint32_t mxcsr[2] = {
		FPU_INIT_MXCSR | 0x2000, /* round down */
		FPU_INIT_MXCSR | 0x4000, /* round up */
	};
	static const uint64_t third[2] = {0x3fd5555555555555ull,
					  0x3fd5555555555556ull};
	uint64_t in[16][2] __attribute__((aligned(16)));
	uint64_t out[16][2] __attribute__((aligned(16)));
	uint64_t q;
	uint32_t csr = mxcsr[slot], csr_out;

	fill(&in[0][0], 32, 0x5e5e0000 + slot * 1000 + round);
	__asm__ volatile(
		"ldmxcsr %[csr]\n\t"
		"movdqa 0x00(%[in]), %%xmm0\n\t"
		"movdqa 0x10(%[in]), %%xmm1\n\t"
		"movdqa 0x20(%[in]), %%xmm2\n\t"
		"movdqa 0x30(%[in]), %%xmm3\n\t"
		"movdqa 0x40(%[in]), %%xmm4\n\t"
		"movdqa 0x50(%[in]), %%xmm5\n\t"
		"movdqa 0x60(%[in]), %%xmm6\n\t"
		"movdqa 0x70(%[in]), %%xmm7\n\t"
		"movdqa 0x80(%[in]), %%xmm8\n\t"
		"movdqa 0x90(%[in]), %%xmm9\n\t"
		"movdqa 0xa0(%[in]), %%xmm10\n\t"
		"movdqa 0xb0(%[in]), %%xmm11\n\t"
		"movdqa 0xc0(%[in]), %%xmm12\n\t"
		"movdqa 0xd0(%[in]), %%xmm13\n\t"
		"movdqa 0xe0(%[in]), %%xmm14\n\t"
		"movdqa 0xf0(%[in]), %%xmm15\n\t"
		YIELD_LOOP
		"movdqa %%xmm0, 0x00(%[out])\n\t"
		"movdqa %%xmm1, 0x10(%[out])\n\t"
		"movdqa %%xmm2, 0x20(%[out])\n\t"
		"movdqa %%xmm3, 0x30(%[out])\n\t"
		"movdqa %%xmm4, 0x40(%[out])\n\t"
		"movdqa %%xmm5, 0x50(%[out])\n\t"
		"movdqa %%xmm6, 0x60(%[out])\n\t"
		"movdqa %%xmm7, 0x70(%[out])\n\t"
		"movdqa %%xmm8, 0x80(%[out])\n\t"
		"movdqa %%xmm9, 0x90(%[out])\n\t"
		"movdqa %%xmm10, 0xa0(%[out])\n\t"
		"movdqa %%xmm11, 0xb0(%[out])\n\t"
		"movdqa %%xmm12, 0xc0(%[out])\n\t"
		"movdqa %%xmm13, 0xd0(%[out])\n\t"
		"movdqa %%xmm14, 0xe0(%[out])\n\t"
		"movdqa %%xmm15, 0xf0(%[out])\n\t"
		/* 1/3 under this process's rounding mode. */
		"mov $1, %%eax\n\t"
		"cvtsi2sd %%eax, %%xmm0\n\t"
		"mov $3, %%eax\n\t"
		"cvtsi2sd %%eax, %%xmm1\n\t"
		"divsd %%xmm1, %%xmm0\n\t"
		"movq %%xmm0, %[q]\n\t"
		"stmxcsr %[csr_out]\n\t"
		"ldmxcsr %[dflt]\n\t"
		: [q] "=m"(q), [csr_out] "=m"(csr_out), [seen] "+m"(seen)
		: [in] "r"(in), [out] "r"(out), [csr] "m"(csr),
		  [dflt] "m"((uint32_t){FPU_INIT_MXCSR}), YIELD_OPERANDS
		: YIELD_CLOBBERS, "xmm0", "xmm1", "xmm2", "xmm3", "xmm4",
		  "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11",
		  "xmm12", "xmm13", "xmm14", "xmm15");
	CHECK(10, memcmp(in, out, sizeof(in)) == 0);
	CHECK(11, (csr_out & ~0x3fu) == csr); /* the flag bits may be set */
	CHECK(12, q == third[slot]);
}

static void check_x87(int round)
{
	static const uint16_t cwd[2] = {
		FPU_INIT_CWD | 0x400, /* round down */
		FPU_INIT_CWD | 0x800, /* round up */
	};
	static const uint64_t third[2] = {0xaaaaaaaaaaaaaaaaull,
					  0xaaaaaaaaaaaaaaabull};
	int64_t in[8], out[8];
	struct { uint64_t mant; uint16_t exp; } __attribute__((packed)) q;
	uint16_t cw = cwd[slot], cw_out;

	fill((uint64_t *)in, 8, 0x87870000 + slot * 1000 + round);
	for (int i = 0; i < 8; i++)
		in[i] >>= 2; /* well inside int64_t */
	__asm__ volatile(
		"fninit\n\t"
		"fldcw %[cw]\n\t"
		"fildq 0x00(%[in])\n\t"
		"fildq 0x08(%[in])\n\t"
		"fildq 0x10(%[in])\n\t"
		"fildq 0x18(%[in])\n\t"
		"fildq 0x20(%[in])\n\t"
		"fildq 0x28(%[in])\n\t"
		"fildq 0x30(%[in])\n\t"
		"fildq 0x38(%[in])\n\t"
		YIELD_LOOP
		"fistpq 0x38(%[out])\n\t"
		"fistpq 0x30(%[out])\n\t"
		"fistpq 0x28(%[out])\n\t"
		"fistpq 0x20(%[out])\n\t"
		"fistpq 0x18(%[out])\n\t"
		"fistpq 0x10(%[out])\n\t"
		"fistpq 0x08(%[out])\n\t"
		"fistpq 0x00(%[out])\n\t"
		/* 1/3 in extended precision under this rounding mode. */
		"fld1\n\t"
		"fildl %[three]\n\t"
		"fdivrp\n\t"
		"fstpt %[q]\n\t"
		"fnstcw %[cw_out]\n\t"
		"fninit\n\t"
		: [q] "=m"(q), [cw_out] "=m"(cw_out), [seen] "+m"(seen),
		  "=m"(out)
		: [in] "r"(in), [out] "r"(out), [cw] "m"(cw),
		  [three] "m"((int32_t){3}), YIELD_OPERANDS
		: YIELD_CLOBBERS, "st", "st(1)", "st(2)", "st(3)", "st(4)",
		  "st(5)", "st(6)", "st(7)");
	CHECK(20, memcmp(in, out, sizeof(in)) == 0);
	CHECK(21, cw_out == cw);
	CHECK(22, q.mant == third[slot] && q.exp == 0x3ffd);
}

static void check_mmx(int round)
{
	uint64_t in[8], out[8];

	fill(in, 8, 0x3d3d0000 + slot * 1000 + round);
	__asm__ volatile(
		"movq 0x00(%[in]), %%mm0\n\t"
		"movq 0x08(%[in]), %%mm1\n\t"
		"movq 0x10(%[in]), %%mm2\n\t"
		"movq 0x18(%[in]), %%mm3\n\t"
		"movq 0x20(%[in]), %%mm4\n\t"
		"movq 0x28(%[in]), %%mm5\n\t"
		"movq 0x30(%[in]), %%mm6\n\t"
		"movq 0x38(%[in]), %%mm7\n\t"
		YIELD_LOOP
		"movq %%mm0, 0x00(%[out])\n\t"
		"movq %%mm1, 0x08(%[out])\n\t"
		"movq %%mm2, 0x10(%[out])\n\t"
		"movq %%mm3, 0x18(%[out])\n\t"
		"movq %%mm4, 0x20(%[out])\n\t"
		"movq %%mm5, 0x28(%[out])\n\t"
		"movq %%mm6, 0x30(%[out])\n\t"
		"movq %%mm7, 0x38(%[out])\n\t"
		"emms\n\t"
		: [seen] "+m"(seen), "=m"(out)
		: [in] "r"(in), [out] "r"(out), YIELD_OPERANDS
		: YIELD_CLOBBERS, "mm0", "mm1", "mm2", "mm3", "mm4", "mm5",
		  "mm6", "mm7");
	CHECK(30, memcmp(in, out, sizeof(in)) == 0);
}

/* Plain C with double: the compiler's SSE code, interrupted by system
 * calls and ticks, must give the same bits every time. */
static uint64_t sum_doubles(void)
{
	double acc = 0;
	uint64_t bits;

	for (int k = 1; k <= 4000; k++) {
		acc += 1.0 / ((double)k * k + slot + 0.5);
		if (k % 500 == 0)
			getpid();
	}
	memcpy(&bits, &acc, sizeof(bits));
	return bits;
}

/* The registers this process started with (start_state, saved by main's
 * first instruction) are the clean state, not another process's. */
static void check_clean_start(void)
{
	static const uint8_t zero[16 * 16];

	CHECK(1, start_state.cwd == FPU_INIT_CWD);
	CHECK(2, start_state.swd == 0 && start_state.twd == 0);
	CHECK(3, start_state.mxcsr == FPU_INIT_MXCSR);
	CHECK(4, memcmp(start_state.st, zero, sizeof(start_state.st)) == 0);
	CHECK(5, memcmp(start_state.xmm, zero, sizeof(start_state.xmm)) == 0);
}

int main(int argc, char **argv)
{
	uint64_t sum;
	unsigned rounds;

	__asm__ volatile("fxsave64 %0" : "=m"(start_state));
	slot = argc > 1 && !strcmp(argv[1], "1");
	check_clean_start();
	if (argc > 1 && !strcmp(argv[1], "clean")) {
		printf("fpu clean: started clean\n");
		return 0;
	}
	if (argc < 4) {
		printf("usage: fpu SLOT CPU ROUNDS | fpu clean\n");
		return 100;
	}
	rounds = simple_strtoul(argv[3], 0, 10);
	page = shm_map(FPU_TEST_KEY);
	CHECK(6, (long)page > 0);
	CHECK(7, pin_to_cpu(simple_strtoul(argv[2], 0, 10)) == 0);
	WRITE_ONCE(page->ready[slot], 1);
	while (!READ_ONCE(page->ready[!slot]))
		sched_yield();
	sum = sum_doubles();
	for (unsigned r = 0; r < rounds; r++) {
		check_sse(r);
		check_x87(r);
		check_mmx(r);
		CHECK(40, sum_doubles() == sum);
	}
	printf("fpu %d: %u rounds exact, the other ran during %lu yields\n",
	       slot, rounds, (unsigned long)seen);
	return 0;
}
