#!/usr/bin/env bash
# The call boundary between the core (kernel/) and the arch code
# (arch/x86_64/, boot/), checked on the objects the kernel is linked from.
# scripts/build/includes.sh checks what a file may include; this checks
# what the linker joins, which no include rule sees (a local extern, a
# function the assembly calls by name).
#
# usage: scripts/build/boundary.sh --core OBJ... --arch OBJ...
#   NM        nm to read the objects with (default nm)
#   CC        compiler that reads the asm/ headers (default gcc)
#   CPPFLAGS  the build's -D options, so that the headers read as built
#
# Fails (exit 1) with one line per violation:
#  (a) a core object uses a symbol an arch object defines, and no header
#      under arch/x86_64/asm/ declares it: the core calls the arch only
#      through its interface headers. "Declared" is what the compiler
#      says: the symbol names a declared object or function in a file
#      that includes every asm/ header (comments and macros are read
#      the way the build reads them).
#  (b) an arch object uses a symbol a core object defines that is not on
#      ARCH_USES_CORE below: the arch is called by the core, and calls
#      back only into the few core services listed there.
# Symbols of lib/ and of the linker script belong to neither side.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

NM=${NM:-nm}
CC=${CC:-gcc}
CPPFLAGS=${CPPFLAGS:-}
ASM_HEADERS=arch/x86_64/asm

# The core symbols arch code may use, each with the reason it must. Keep
# it short: anything else the arch needs from the core is a sign that
# the work belongs on the other side, or behind a hook the core passes in.
ARCH_USES_CORE=(
	# Reports: the console, the symbol table and the end of the kernel.
	printk          # every message
	panic           # unrecoverable hardware or boot errors
	console_lock    # a call trace prints as one block (stacktrace.c)
	console_unlock
	print_symbol    # symbolised addresses in oopses and call traces
	oops_begin      # an unhandled exception is reported (trap.c) ...
	oops_end        # ... and ends the kernel as panic() does
	# Entry hooks: the core's side of the entry code (Linux's
	# kernel/entry/common.c), called from entry.asm and trap.c.
	kmain           # the boot CPU's C entry (boot/head64.asm)
	irqentry_enter  # around every interrupt and exception handler
	irqentry_exit
	nmi_enter       # around the NMI handler
	nmi_exit
	syscall_entry   # the system call dispatcher
	exit_to_user_mode # signals, preemption, rseq before the return to ring 3
	user_exception  # a fault in ring 3 goes to its process, not to oops
	search_exception_tables # uaccess fixups (kernel/extable.c), as Linux
	# Allocators: page tables, AP stacks, per-CPU IST stacks.
	page_alloc_phys # a page-table page before the direct map exists
	pages_alloc
	pages_free
	kzalloc
	kfree
	kstack_alloc    # stacks with a guard page (kernel/mm/stack.c)
	kstack_free
	# Cross-CPU calls: a TLB shootdown runs on every online CPU.
	smp_call_function_many
	__cpu_online_mask # cpu_online_mask, its target
	# Per-CPU data: raw_smp_processor_id() reads it.
	cpu_number
)

usage() {
	echo "usage: $0 --core OBJ... --arch OBJ..." >&2
	exit 2
}

CORE_OBJS=() ARCH_OBJS=()
side=
for arg; do
	case $arg in
	--core) side=core ;;
	--arch) side=arch ;;
	-*) usage ;;
	*)
		case $side in
		core) CORE_OBJS+=("$arg") ;;
		arch) ARCH_OBJS+=("$arg") ;;
		*) usage ;;
		esac
		;;
	esac
done
((${#CORE_OBJS[@]} && ${#ARCH_OBJS[@]})) || usage

# symbols OBJ...: "OBJ SYM KIND" for each global symbol, KIND U for an
# undefined (used) one, D for a defined one.
symbols() {
	"$NM" -P -g -A "$@" | awk '{
		obj = $1; sub(/:$/, "", obj)
		print obj, $2, ($3 == "U" || $3 == "w" || $3 == "v") ? "U" : "D"
	}'
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
symbols "${CORE_OBJS[@]}" >"$tmp/core"
symbols "${ARCH_OBJS[@]}" >"$tmp/arch"

# used_across FROM TO: "OBJ SYM DEFINER" for each symbol an object of FROM
# uses that an object of TO defines.
used_across() {
	awk 'NR == FNR { if ($3 == "D") def[$2] = $1; next }
	     $3 == "U" && ($2 in def) { print $1, $2, def[$2] }' "$2" "$1" | sort
}

# undeclared SYM...: those no asm/ header declares, one a line. Each
# symbol takes its address on a line of its own in a file that includes
# every asm/ header; the compiler's errors name the lines.
undeclared() {
	local probe=$tmp/probe.c h sym line=0
	declare -A at
	{
		for h in "$ASM_HEADERS"/*.h; do
			echo "#include \"asm/${h##*/}\""
			((++line))
		done
		echo "void boundary_probe(void);"
		echo "void boundary_probe(void) {"
		((line += 2))
		for sym; do
			echo "(void)&$sym;"
			at[$((++line))]=$sym
		done
		echo "}"
	} >"$probe"
	# shellcheck disable=SC2086 # CPPFLAGS is a list of options
	"$CC" -std=gnu11 -ffreestanding -fsyntax-only -Iarch/x86_64 -Ilib \
		$CPPFLAGS "$probe" 2>"$tmp/cc.err" && return 0
	grep -o "^$probe:[0-9]*:" "$tmp/cc.err" | cut -d: -f2 | sort -un |
		while read -r line; do
			if [[ -z ${at[$line]:-} ]]; then
				echo "boundary: the asm/ headers do not compile on their own:" >&2
				cat "$tmp/cc.err" >&2
				return 2
			fi
			echo "${at[$line]}"
		done
}

bad=0

# (a) the core through the arch interface only.
used_across "$tmp/core" "$tmp/arch" >"$tmp/core-uses"
mapfile -t syms < <(cut -d' ' -f2 "$tmp/core-uses" | sort -u)
if ((${#syms[@]})); then
	undeclared "${syms[@]}" >"$tmp/undeclared"
	while read -r obj sym def; do
		grep -qxF "$sym" "$tmp/undeclared" || continue
		echo "$obj: uses $sym (defined in $def), which no $ASM_HEADERS/*.h declares" >&2
		bad=1
	done <"$tmp/core-uses"
fi

# (b) the arch into the core's listed services only.
printf '%s\n' "${ARCH_USES_CORE[@]}" >"$tmp/allowed"
while read -r obj sym def; do
	grep -qxF "$sym" "$tmp/allowed" && continue
	echo "$obj: uses the core's $sym (defined in $def), which is not on the arch's allow-list (scripts/build/boundary.sh)" >&2
	bad=1
done < <(used_across "$tmp/arch" "$tmp/core")

exit $bad
