#!/usr/bin/env bash
# Lab 1's two instruction-level checks on the kernel the grader built:
# every this_cpu_* operation is one %gs: instruction
# (scripts/build/check-percpu-ops.sh, on the object built beside KERNEL),
# and percpu_enter() really sets this CPU's GS bases: each of the two
# MSRs that swapgs exchanges is written by a wrmsr in it, which is the
# student's arch_set_percpu_base() (Part B), inlined. Only that each is
# written is checked here; the boot tests check the values.
# The starter passes the first and fails the second.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
: "${KERNEL:?KERNEL names a built kernel.elf}"
objdump=${OBJDUMP:-objdump}
obj=$(dirname "$KERNEL")/percpu_ops.nolockdep.o
[[ -f $obj ]] || { echo "no $obj: build the kernel first"; exit 1; }
bash scripts/build/check-percpu-ops.sh "$objdump" "$obj"
echo "every this_cpu_* op is one %gs: instruction"

# The MSRs percpu_enter() writes: the %ecx each wrmsr finds.
written=$("$objdump" -d --no-show-raw-insn "$KERNEL" |
	awk '/<percpu_enter>:/ { f = 1; next } f && /^$/ { f = 0 }
	     f && /mov +\$0x[0-9a-f]+,%ecx/ { sub(/.*mov +\$/, ""); sub(/,%ecx.*/, ""); ecx = $0 }
	     f && /wrmsr/ { print ecx }')
for msr in 0xc0000101:MSR_GS_BASE 0xc0000102:MSR_KERNEL_GS_BASE; do
	if ! grep -qx "${msr%%:*}" <<<"$written"; then
		echo "percpu_enter() never writes ${msr#*:} (${msr%%:*}): arch_set_percpu_base() is Part B"
		exit 1
	fi
done
echo "percpu_enter() writes MSR_GS_BASE and MSR_KERNEL_GS_BASE"
