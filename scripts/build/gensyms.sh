#!/usr/bin/env bash
# Usage: gensyms.sh NM KERNEL_ELF > ksyms.asm
# Writes the kernel's function and data symbols (data, for the per-CPU
# checker's reports) as a NASM table for the .ksyms
# section (kernel/ksyms.c reads it): a count, (address, name offset) pairs
# sorted by address, then the names. With no ELF it writes an empty table,
# which the first link uses.
set -euo pipefail
nm_tool=$1
elf=${2:-}

echo 'section .note.GNU-stack noalloc noexec nowrite progbits'
echo 'section .ksyms progbits alloc noexec nowrite align=8'
echo 'global ksyms_count, ksyms_table, ksyms_names'
if [ -z "$elf" ]; then
	printf 'ksyms_count: dq 0\nksyms_table:\nksyms_names: db 0\n'
	exit 0
fi
"$nm_tool" -n --defined-only "$elf" | awk '
	$2 ~ /^[tTwWdDbBrR]$/ && $1 ~ /^ffffffff8/ { addr[n] = $1; name[n] = $3; n++ }
	END {
		printf "ksyms_count: dq %d\nksyms_table:\n", n
		off = 0
		for (i = 0; i < n; i++) {
			printf "\tdq 0x%s, %d\n", addr[i], off
			off += length(name[i]) + 1
		}
		print "ksyms_names:"
		for (i = 0; i < n; i++)
			printf "\tdb \"%s\", 0\n", name[i]
	}'
