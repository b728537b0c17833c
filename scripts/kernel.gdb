# GDB set-up for percpu-kernel, loaded by `make gdb` (after `make qemu-gdb`
# in another terminal). It attaches to QEMU's gdbstub, runs the machine to
# kmain() and adds a few per-CPU helpers, and the task, run-queue, lock and
# log helpers of scripts/kernel_gdb.py; `help user-defined` lists them.
#
# QEMU starts halted at the reset vector in 16-bit mode. The architecture
# is fixed to x86-64 before connecting, so that gdb does not guess a 32-bit
# register layout and then choke on the 64-bit one ("Remote 'g' packet reply
# is too long"). The first breakpoint is a hardware one: QEMU checks it on
# every CPU and in every mode, before the kernel's pages are even mapped.

set architecture i386:x86-64
set pagination off
target remote :1234

# Each vCPU is a gdb thread ("Thread 1.N (CPU#N-1)"). Without this, a
# `step` or `next` may come back on another CPU.
set scheduler-locking step
# ps, runqueues, held-locks, lockdep-graph, dmesg, next-unlocked, and a
# warning before `next` over a line that waits for another CPU.
source scripts/kernel-helpers.gdb

hbreak kmain
continue

# percpu VAR CPU: CPU's copy of the per-CPU variable VAR, found as
# percpu.h's per_cpu() does: VAR's template address plus __per_cpu_offset[CPU].
define percpu
	if $argc != 2
		printf "usage: percpu VAR CPU\n"
	else
		if $arg1 != 0 && __per_cpu_offset[$arg1] == 0
			printf "(CPU %d has no per-CPU area yet: this is the template)\n", $arg1
		end
		print *(__typeof__(&$arg0))((char *)&$arg0 + __per_cpu_offset[$arg1])
	end
end
document percpu
Print CPU's copy of a per-CPU variable: percpu VAR CPU.
Example: `percpu cpu_number 2`.
Adds __per_cpu_offset[CPU] to VAR's address in the .percpu template, as
per_cpu(VAR, CPU) does. Before setup_per_cpu_areas() (called from
smp_prepare_cpus()) every offset is 0 and this shows the template itself.
end

# this_cpu VAR: the running CPU's copy, through its GS base, as a
# %gs:-relative instruction would find it.
define this_cpu
	if $argc != 1
		printf "usage: this_cpu VAR\n"
	else
		print *(__typeof__(&$arg0))((char *)&$arg0 + $gs_base)
	end
end
document this_cpu
Print the selected CPU's copy of a per-CPU variable: this_cpu VAR.
The selected CPU is the selected gdb thread (`thread N` selects QEMU's
CPU N-1). The copy is found as VAR's template address plus that CPU's GS
base, which is exactly what this_cpu_read(VAR) reads on that CPU.
end

define cpu_line
	if ($cr0 & 0x80000000) == 0
		printf "paging off: not started yet (waiting for INIT/SIPI)\n"
	else
		printf "GS base 0x%016lx  cpu_number %d  this_cpu_off 0x%016lx", $gs_base, *(int *)((char *)&cpu_number + $gs_base), *(unsigned long *)((char *)&this_cpu_off + $gs_base)
		set $t = *(struct task_struct **)((char *)&current_task + $gs_base)
		if $t != 0
			printf "  running \"%s\"", $t->comm
		end
		printf "\n"
	end
end
document cpu_line
One line about the selected CPU (used by `cpus`).
Its GS base and, read through it, its cpu_number, this_cpu_off and the
name of the task it runs; or a note that the CPU has paging off (an AP
that has not been started), where the kernel's addresses mean nothing.
end

# curtask: the task the selected CPU runs, as `current` on that CPU.
define curtask
	set $t = *(struct task_struct **)((char *)&current_task + $gs_base)
	if $t == 0
		printf "no task yet (before sched_init())\n"
	else
		printf "task %d \"%s\" on CPU %d, state %d, prio %d, migration_disabled %d\n", $t->pid, $t->comm, $t->cpu, $t->__state, $t->prio, $t->migration_disabled
	end
end
document curtask
Print the task the selected CPU (gdb thread) is running.
That is the CPU's current_task, read through its GS base, as `current`
does on that CPU.
end

define cpus
	info threads
	thread apply all -q -c cpu_line
end
document cpus
List the vCPUs, where each one is, and its per-CPU identity.
The gdb threads are the vCPUs: thread N is QEMU's CPU N-1, in QEMU's
order, not the kernel's numbering. For each one this prints its GS base
and the cpu_number, this_cpu_off and running task it reads through GS.
The boot CPU has GS base 0 until setup_per_cpu_areas() moves it off the
template; an AP that has not started yet has paging off, and says so.
end

define percpu_offsets
	set $i = 0
	while $i < nr_cpu_ids
		printf "CPU %3d: offset 0x%016lx  area 0x%016lx\n", $i, __per_cpu_offset[$i], (unsigned long)__per_cpu_start + __per_cpu_offset[$i]
		set $i = $i + 1
	end
end
document percpu_offsets
Print each CPU's per-CPU offset and area.
For CPUs 0..nr_cpu_ids-1: __per_cpu_offset[cpu] and the address of the
CPU's copy of the template (__per_cpu_start + offset).
end
