# The helpers of scripts/kernel_gdb.py (ps, runqueues, held-locks,
# lockdep-graph, dmesg, next-unlocked), and a warning before a locked
# step over a line that waits for another CPU. Sourced by kernel.gdb;
# any session can source it after `target remote`.
source scripts/kernel_gdb.py

define hook-next
	cross-cpu-check
end
define hook-step
	cross-cpu-check
end
