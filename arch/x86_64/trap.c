/*
 * trap_dispatch: where every interrupt and exception lands (from
 * entry.asm). Device and IPI vectors go to their registered handlers; an
 * exception in user mode is the process's (the core kills it); a fault on
 * the user side of a user copy continues at the copy's fixup; any other
 * exception is fatal, and gets a full report: vector, error code,
 * CR2, registers and a symbolised call trace.
 */
#include "atomic.h"
#include "compiler.h"
#include "trap.h"
#include "asm/processor.h"
#include "asm/apic.h"
#include "asm/smp.h"
#include "asm/uaccess.h"
#include "ksyms.h"
#include "entry.h"
#include "extable.h"
#include "asm/text-patching.h"
#include "percpu.h"
#include "panic.h"
#include "printk.h"
#include "asm/stacktrace.h"

static irq_handler_t irq_handlers[256];
static irq_handler_t nmi_handler;
static unsigned long spurious_count;
/* NMIs before nmi_handler was set: from the first instruction that has
 * an IDT on, an NMI (a watchdog, the QEMU monitor's nmi) must not kill
 * the boot. A plain global: there may be no per-CPU area yet. Atomic:
 * every CPU may take one at once. */
static atomic_long_t early_nmis;

static const char *const exception_names[NR_EXCEPTIONS] = {
	"#DE divide error", "#DB debug", "NMI", "#BP breakpoint",
	"#OF overflow", "#BR bound range", "#UD invalid opcode",
	"#NM device not available", "#DF double fault",
	"coprocessor segment overrun", "#TS invalid TSS",
	"#NP segment not present", "#SS stack fault",
	"#GP general protection", "#PF page fault", "reserved",
	"#MF x87 FP error", "#AC alignment check", "#MC machine check",
	"#XM SIMD FP error", "#VE virtualization", "#CP control protection",
};

void trap_set_handler(unsigned vector, irq_handler_t handler)
{
	if (vector < NR_EXCEPTIONS || vector > 255 || irq_handlers[vector])
		panic("trap_set_handler: vector %u invalid or taken", vector);
	irq_handlers[vector] = handler;
}

void trap_set_nmi_handler(irq_handler_t handler)
{
	nmi_handler = handler;
}

unsigned long arch_nmis_before_handler(void)
{
	return atomic_long_read(&early_nmis);
}

static void show_page_fault(uint64_t err)
{
	printk("CR2: %016lx (%s %s in %s mode%s%s)\n", read_cr2(),
	       err & 1 ? "protection violation on" : "not-present page on",
	       err & 16 ? "instruction fetch" : err & 2 ? "write" : "read",
	       err & 4 ? "user" : "kernel",
	       err & 8 ? ", reserved bit set" : "",
	       err & 16 ? ", NX" : "");
}

void trap_show_regs(const struct trap_frame *f)
{
	printk("RIP: %04lx:%016lx ", f->cs, f->rip);
	print_symbol(f->rip);
	printk("\nRSP: %04lx:%016lx EFLAGS: %08lx\n", f->ss, f->rsp, f->rflags);
	printk("RAX: %016lx RBX: %016lx RCX: %016lx\n", f->rax, f->rbx, f->rcx);
	printk("RDX: %016lx RSI: %016lx RDI: %016lx\n", f->rdx, f->rsi, f->rdi);
	printk("RBP: %016lx R08: %016lx R09: %016lx\n", f->rbp, f->r8, f->r9);
	printk("R10: %016lx R11: %016lx R12: %016lx\n", f->r10, f->r11, f->r12);
	printk("R13: %016lx R14: %016lx R15: %016lx\n", f->r13, f->r14, f->r15);
	printk("CR0: %016lx CR3: %016lx CR4: %016lx\n", read_cr0(), read_cr3(),
	       read_cr4());
	show_stack_regs(f);
}

static const char *exception_name(uint64_t vector)
{
	return vector < NR_EXCEPTIONS && exception_names[vector]
		       ? exception_names[vector]
		       : "unexpected interrupt";
}

__noreturn static void die(struct trap_frame *f)
{
	const char *name = exception_name(f->vector);

	if (oops_begin()) {
		printk("\nBUG: unhandled exception %lu (%s) on CPU %u, "
		       "error code 0x%lx\n",
		       f->vector, name, raw_smp_processor_id(), f->error_code);
		if (f->vector == VEC_PAGE_FAULT)
			show_page_fault(f->error_code);
		if (f->vector == VEC_DOUBLE_FAULT)
			printk("(on the double-fault IST stack: the kernel stack "
			       "probably overflowed into its guard page)\n");
		trap_show_regs(f);
	}
	oops_end();
}

extern char user_iret[];

/*
 * A fault at a user copy's instruction (the exception table): the user's,
 * and fixed up into a short copy, only if it hit the user side: a #PF
 * whose address lies in what is left of the user range (rep movsb leaves
 * RSI/RDI at the byte that faulted and RCX at the bytes left). Anything
 * else there, a #GP (a non-canonical kernel pointer: access_ok() keeps the
 * user side canonical) or a #PF on the kernel buffer, is a kernel bug; it
 * is reported as one, never absorbed as -EFAULT.
 */
static bool fixup_exception(struct trap_frame *f)
{
	const struct exception_table_entry *e;
	uintptr_t user, addr;

	if ((f->vector != VEC_PAGE_FAULT && f->vector != VEC_GP) ||
	    !(e = search_exception_tables(f->rip)))
		return false;
	user = e->type == EX_TYPE_UACCESS_FROM ? f->rsi : f->rdi;
	addr = f->vector == VEC_PAGE_FAULT ? read_cr2() : 0;
	if (f->vector == VEC_PAGE_FAULT && user < USER_TOP && addr >= user &&
	    addr - user < f->rcx) {
		f->rip = e->fixup;
		return true;
	}
	printk("\nBUG: %s on the kernel side of a user copy (copy %s user "
	       "%#lx, kernel %#lx, %lu bytes left): a kernel bug, not the "
	       "user's\n", exception_name(f->vector),
	       e->type == EX_TYPE_UACCESS_FROM ? "from" : "to", user,
	       e->type == EX_TYPE_UACCESS_FROM ? f->rdi : f->rsi, f->rcx);
	return false;
}

void trap_dispatch(struct trap_frame *f)
{
	if (f->vector == VEC_SPURIOUS) {
		/* Spurious APIC interrupts need no EOI (SDM vol. 3, 11.9). */
		spurious_count++;
		return;
	}
	if (f->vector == VEC_NMI) {
		if (!nmi_handler) {
			atomic_long_inc(&early_nmis);
			return;
		}
		nmi_enter();
		nmi_handler(f);
		nmi_exit();
		return;
	}
	/* A CPU at a static key's site while it is patched (text_patch.c). */
	if (f->vector == VEC_BREAKPOINT && !user_mode(f) &&
	    text_poke_int3_handler(f))
		return;
	if (f->vector >= NR_EXCEPTIONS && irq_handlers[f->vector]) {
		irqentry_enter(f->vector);
		irq_handlers[f->vector](f);
		/* The 8259's spurious vectors are the only ones the local APIC
		 * did not deliver; they take no EOI. */
		if (f->vector >= IRQ_VECTOR_BASE)
			lapic_eoi();
		irqentry_exit(f->rflags & RFLAGS_IF);
		return;
	}
	/* Not #DF or #MC: they run on IST stacks, where the task cannot
	 * sleep its way out; from ring 3 they are the machine's problem. */
	if (user_mode(f) && f->vector != VEC_DOUBLE_FAULT &&
	    f->vector != VEC_MACHINE_CHECK)
		user_exception(f->vector, exception_name(f->vector), f->rip,
			       f->vector == VEC_PAGE_FAULT ? read_cr2() : 0);
	if (f->rip == (uintptr_t)user_iret) {
		/* The iretq to ring 3 refused the user's frame (a
		 * non-canonical RIP); the frame (RIP first) is at RSP. */
		user_exception(f->vector, exception_name(f->vector),
			       *(const uint64_t *)f->rsp, 0);
	}
	if (fixup_exception(f))
		return;
	die(f);
}
