/*
 * How a contended arch_spinlock_t spins (asm/spinlock.h): in FIFO ticket
 * order on a machine of its own, test-and-set in a guest, as Linux's
 * virt_spin_lock(). Under QEMU the host time-shares the vCPUs; a ticket
 * lock hands itself to the next waiter even when the host is not running
 * that vCPU, and everyone waits for it. With every vCPU hammering one lock
 * (interrupts off, each taking the lock validator's lock for every
 * per-CPU access) a burst that takes 50 ms test-and-set took 30 to 160 s
 * in tickets on 8 vCPUs of 2 host cores.
 *
 * virt_spin_lock=0 keeps the tickets in a guest (the fairness tests and
 * the benchmark compare both), virt_spin_lock=1 takes test-and-set on
 * any machine.
 */
#include "asm/setup.h"
#include "asm/spinlock.h"
#include "cmdline.h"
#include "printk.h"

/* On the boot CPU, before the other CPUs start. */
void virt_spin_lock_init(void)
{
	unsigned long on = cpu_has_hypervisor();

	cmdline_get_ulong("virt_spin_lock", &on, 0, 1);
	WRITE_ONCE(virt_spin_lock_on, on);
	printk("spinlock: contended locks spin %s\n",
	       on ? "test-and-set (virt_spin_lock)" : "in ticket order");
}
