#!/usr/bin/env bash
# Lab 1's proof that every this_cpu_* operation is one %gs: instruction
# (scripts/build/check-percpu-ops.sh) on the kernel the grader built: the
# object it checks sits beside KERNEL.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
obj=$(dirname "${KERNEL:?KERNEL names a built kernel.elf}")/percpu_ops.nolockdep.o
[[ -f $obj ]] || { echo "no $obj: build the kernel first"; exit 1; }
bash scripts/build/check-percpu-ops.sh "${OBJDUMP:-objdump}" "$obj"
echo "every this_cpu_* op is one %gs: instruction"
