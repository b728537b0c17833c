#!/usr/bin/env bash
# Usage: check-nofpu.sh OBJDUMP ELF
# Proves that the kernel never touches the x87/MMX/SSE/AVX registers but
# where it saves and restores a user process's (arch/x86_64/fpregs.asm): the
# registers belong to user processes, and are switched only at a context
# switch (docs/usermode.md). -mgeneral-regs-only keeps the compiler from
# using them; this catches what it cannot see: inline asm, NASM files, a
# file built with other flags. Fails listing each instruction found, with
# its function.
set -euo pipefail
objdump=$1
elf=$2
# The functions allowed to touch the FPU state.
allowed="save_fpregs_to_fpstate restore_fpregs_from_fpstate"

if [ ! -f "$elf" ]; then
	echo "check-nofpu: $elf: no such file" >&2
	exit 1
fi
disasm=$("$objdump" -d --no-show-raw-insn "$elf")
found=$(awk -v allowed="$allowed" '
	BEGIN { n = split(allowed, a, " "); for (i = 1; i <= n; i++) ok["<" a[i] ">:"] = 1 }
	/^[0-9a-f]+ <.*>:$/ { fn = $2; next }
	/^ +[0-9a-f]+:\t/ {
		line = $0
		sub(/^ +[0-9a-f]+:\t/, "", line)
		nw = split(line, w, /[ \t]+/)
		# The mnemonic: the first word that is not a prefix.
		for (i = 1; i < nw && w[i] ~ /^(rex(\.[WRXB]+)?|data16|addr32|lock|rep|repz|repnz|repe|repne|notrack|bnd|[c-gs]s)$/; i++)
			;
		m = w[i]
		fpu = m ~ /^f/ || m ~ /^(emms|ldmxcsr|stmxcsr|vldmxcsr|vstmxcsr|fxsave|fxrstor|xsave|xrstor|xsaveopt|xsaves|xsavec|xrstors|wait)/ ||
		      line ~ /%([xyz]mm[0-9]|mm[0-7]|st\(|st$|st,|k[0-7])/
		if (fpu && !(fn in ok))
			printf "    %s %s\n", fn, line
	}' <<<"$disasm")
if [ -n "$found" ]; then
	echo "check-nofpu: FPU/SIMD instructions in the kernel outside fpregs.asm:" >&2
	echo "$found" | head -n 20 >&2
	exit 1
fi
# The two functions must be there: a check that finds nothing because the
# disassembly came out empty proves nothing.
for fn in $allowed; do
	grep -qF "<$fn>:" <<<"$disasm" || {
		echo "check-nofpu: $fn not found in $elf" >&2
		exit 1
	}
done
