#!/usr/bin/env bash
# Usage: check-migrate-ops.sh OBJDUMP OBJECT
# Proves that migrate_disable()/migrate_enable() cost what
# preempt_disable()/preempt_enable() do when nothing is pending and the
# trace is off: disassembles migrate_op_disable and migrate_op_enable
# (tests/sched/migrate_ops.c, built without the validator and the
# compiler's hooks) and follows each along its fast path, from the entry
# to ret, taking every unconditional jmp and no conditional branch. That
# path must hold no call and no locked instruction (the trace's static
# key is a nop there, asm/jump_label.h), migrate_op_disable no
# conditional branch and migrate_op_enable at most two (the bound lab 3's
# Part B is written against).
set -euo pipefail
objdump=$1
obj=$2
status=0

# fast_path FN: the instructions on FN's fast path, one a line.
fast_path() {
	"$objdump" -d --no-show-raw-insn "$obj" |
		awk -v fn="<$1>:" '
			$2 == fn { on = 1; next }
			on && /^$/ { on = 0 }
			on && /^ *[0-9a-f]+:/ {
				addr = $1; sub(/:$/, "", addr)
				line = $0; sub(/^[ \t]*[0-9a-f]+:[ \t]*/, "", line)
				sub(/[ \t]*#.*$/, "", line)
				insn[addr] = line; order[n++] = addr
			}
			END {
				for (i = 0; i < n; i++) next_of[order[i]] = order[i + 1]
				pc = order[0]
				for (steps = 0; pc != "" && steps < 100; steps++) {
					print insn[pc]
					if (insn[pc] ~ /^ret/)
						exit
					if (insn[pc] ~ /^jmp +[0-9a-f]+ </) {
						split(insn[pc], f, " +")
						pc = f[2]
						continue
					}
					pc = next_of[pc]
				}
				print "(no ret on the fast path)"
			}'
}

check() {
	local fn=$1 max_branches=$2 body branches
	body=$(fast_path "$fn")
	if [ -z "$body" ]; then
		echo "check-migrate-ops: $fn not found in $obj" >&2
		exit 1
	fi
	branches=$(grep -E '^j[a-z]+ ' <<<"$body" | grep -cvE '^jmp ' || true)
	if grep -qE '^(call|lock|xchg .*\(|\(no ret)' <<<"$body" ||
		[ "$branches" -gt "$max_branches" ]; then
		echo "check-migrate-ops: ${fn#migrate_op_} fast path is not a" \
			"counter update with at most $max_branches conditional branch(es)," \
			"free of calls and locked instructions:" >&2
		sed 's/^/    /' <<<"$body" >&2
		status=1
	fi
}

check migrate_op_disable 0
check migrate_op_enable 2
exit $status
