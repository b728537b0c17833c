#!/usr/bin/env bash
# The build's FPU check (scripts/build/check-nofpu.sh) does its job: it
# passes the kernel that was built, and refuses an object with an SSE, an
# x87 or an MMX instruction outside the two save/restore functions, naming
# the function; FXSAVE/FXRSTOR inside them are allowed.
#
# usage: KERNEL=ELF O=BUILD_ROOT tests/host/nofpu_check.sh
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1

dir=$O/host-nofpu
mkdir -p "$dir" || exit 1
check() { bash scripts/build/check-nofpu.sh objdump "$1" 2>&1; }

if ! out=$(check "$KERNEL"); then
	echo "the kernel fails the check:"
	echo "$out"
	exit 1
fi
status=0
for insn in "addsd xmm0, xmm1" "fld1" "movq mm0, rax" "ldmxcsr [rdi]"; do
	cat >"$dir/bad.asm" <<-ASM
	section .text
	global save_fpregs_to_fpstate, restore_fpregs_from_fpstate, uses_fpu
	save_fpregs_to_fpstate:
		fxsave64 [rdi]
		ret
	restore_fpregs_from_fpstate:
		fxrstor64 [rdi]
		ret
	uses_fpu:
		$insn
		ret
	ASM
	nasm -f elf64 "$dir/bad.asm" -o "$dir/bad.o" || exit 1
	if out=$(check "$dir/bad.o"); then
		echo "'$insn' outside fpregs.asm was not refused"
		status=1
	elif ! grep -q '<uses_fpu>' <<<"$out"; then
		echo "'$insn' refused without naming its function:"
		echo "$out"
		status=1
	fi
done
((status == 0)) && echo "kernel clean; 4 kinds of FPU instruction refused"
exit $status
