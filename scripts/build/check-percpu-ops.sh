#!/usr/bin/env bash
# Usage: check-percpu-ops.sh OBJDUMP OBJECT
# Proves that each this_cpu_* operation compiles to a single %gs:-relative
# instruction: disassembles the percpu_op_* functions (tests/percpu/percpu_ops.c,
# built without the validator, whose LOCKDEP=1 hooks sit beside the op)
# and fails unless each has exactly one instruction touching %gs:, and
# nothing else but register-to-register moves, the frame-pointer prologue
# and epilogue, and ret: no call, no cli/sti/pushf, no preempt count.
set -euo pipefail
objdump=$1
elf=$2
ops="read write add inc dec xchg cmpxchg"
status=0

for op in $ops; do
	body=$("$objdump" -d --no-show-raw-insn "$elf" |
		awk -v fn="<percpu_op_$op>:" '
			$2 == fn { on = 1; next }
			on && /^$/ { on = 0 }
			on { sub(/^[ \t]*[0-9a-f]+:[ \t]*/, ""); print }')
	if [ -z "$body" ]; then
		echo "check-percpu-ops: percpu_op_$op not found in $elf" >&2
		exit 1
	fi
	gs=$(grep -c '%gs:' <<<"$body" || true)
	other=$(grep -v '%gs:' <<<"$body" |
		grep -Ev '^(push +%rbp|mov +%rsp,%rbp|pop +%rbp|ret|leave|endbr64|nop.*|xchg +%ax,%ax|mov +%r[a-z0-9]+,%r[a-z0-9]+|mov +%e[a-z0-9]+,%e[a-z0-9]+|int3)$' || true)
	if [ "$gs" -ne 1 ] || [ -n "$other" ]; then
		echo "check-percpu-ops: this_cpu_$op is not one %gs: instruction:" >&2
		sed 's/^/    /' <<<"$body" >&2
		status=1
	fi
done
exit $status
