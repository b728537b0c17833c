/*
 * One function per this_cpu_* operation, each doing only that operation.
 * scripts/build/check-percpu-ops.sh disassembles them at build time and fails
 * the build unless each is a single %gs:-prefixed instruction (plus the
 * register moves that pass arguments); the tests below check that the
 * same functions do what the operation promises.
 */
#include "ktest.h"
#include "percpu.h"

static DEFINE_PER_CPU(long, op_var);

#define PERCPU_OP_FN __attribute__((noinline, used))

PERCPU_OP_FN long percpu_op_read(void) { return this_cpu_read(op_var); }
PERCPU_OP_FN void percpu_op_write(long v) { this_cpu_write(op_var, v); }
PERCPU_OP_FN void percpu_op_add(long v) { this_cpu_add(op_var, v); }
PERCPU_OP_FN void percpu_op_inc(void) { this_cpu_inc(op_var); }
PERCPU_OP_FN void percpu_op_dec(void) { this_cpu_dec(op_var); }
PERCPU_OP_FN long percpu_op_xchg(long v) { return this_cpu_xchg(op_var, v); }
PERCPU_OP_FN long percpu_op_cmpxchg(long o, long n)
{
	return this_cpu_cmpxchg(op_var, o, n);
}

/* The disassembly check proves the shape; this proves the meaning. */
KTEST(percpu_ops, checked_functions_behave)
{
	int cpu;

	/* A sequence of operations checked value by value: nothing else may
	 * run on this CPU in between. */
	preempt_disable();
	cpu = raw_smp_processor_id();
	percpu_op_write(10);
	KEXPECT_EQ(percpu_op_read(), 10);
	KEXPECT_EQ((*raw_per_cpu_ptr(&op_var, cpu)), 10);
	percpu_op_add(5);
	percpu_op_inc();
	percpu_op_dec();
	percpu_op_dec();
	KEXPECT_EQ(percpu_op_read(), 14);
	KEXPECT_EQ(percpu_op_xchg(3), 14);
	KEXPECT_EQ(percpu_op_cmpxchg(2, 7), 3);  /* fails: 3 != 2 */
	KEXPECT_EQ(percpu_op_read(), 3);
	KEXPECT_EQ(percpu_op_cmpxchg(3, 7), 3);  /* succeeds */
	KEXPECT_EQ((*raw_per_cpu_ptr(&op_var, cpu)), 7);
	preempt_enable();
}
