#!/usr/bin/env bash
# The boundary check (scripts/build/boundary.sh) on the objects of the
# kernel the runner built: it passes on the tree as it is, and fails, with
# its one-line message, on each kind of crossing planted beside it: a core
# object that calls an arch function no asm/ header declares, and an arch
# object that calls a core function off the allow-list. Crossings that
# are allowed (a declared arch function, printk) go unreported.
#
# usage: KERNEL=ELF tests/host/boundary.sh   (the objects sit beside ELF)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
objdir=$(dirname "${KERNEL:?KERNEL names a built kernel.elf}")
CC=${CC:-gcc}
NM=${NM:-nm}
# The build's -D options, first on its config stamp (Makefile).
CPPFLAGS=$(tr ' ' '\n' <"$objdir/config" | grep '^-D' | tr '\n' ' ')
export CC NM CPPFLAGS

# The objects the Makefile links, from the sources (not whatever else a
# reused build directory holds).
objs_of() {
	find "$@" \( -name '*.c' -o -name '*.asm' \) | sort |
		sed "s|^|$objdir/|; s|\.[a-z]*\$|.o|"
}
mapfile -t core < <(objs_of kernel)
mapfile -t arch < <(objs_of arch/x86_64 boot)
for o in "${core[@]}" "${arch[@]}"; do
	[[ -f $o ]] || { echo "no $o: build the kernel first"; exit 1; }
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

# plant NAME C-SOURCE: an object compiled from the source, in tmp.
plant() {
	echo "$2" >"$tmp/$1.c"
	"$CC" -c -ffreestanding -fno-pie -O2 "$tmp/$1.c" -o "$tmp/$1.o" ||
		{ echo "cannot compile the planted $1.c"; exit 1; }
}

# expect WHAT STATUS PATTERN...: the last run exited with STATUS and each
# PATTERN (an extended regex) matches a line of its messages; a pattern
# that starts with ! must match none.
expect() {
	local what=$1 status=$2 p bad=0
	shift 2
	if [[ $rc != "$status" ]]; then
		echo "FAIL $what: exit $rc, expected $status"
		sed 's/^/    | /' "$tmp/out"
		fails=1
		return
	fi
	for p; do
		if [[ $p == !* ]]; then
			! grep -Eq -- "${p#!}" "$tmp/out" && continue
			echo "FAIL $what: reported what it should not: ${p#!}"
		else
			grep -Eq -- "$p" "$tmp/out" && continue
			echo "FAIL $what: no message matching: $p"
		fi
		sed 's/^/    | /' "$tmp/out"
		bad=1 fails=1
	done
	((bad)) || echo "ok $what"
}

check() {
	bash scripts/build/boundary.sh "$@" >"$tmp/out" 2>&1
	rc=$?
}

check --core "${core[@]}" --arch "${arch[@]}"
expect "the tree as built passes" 0 '!: uses '

# A core file that calls an arch-internal function through its own extern
# (trap.h is arch's, not asm/), next to one the asm/ headers declare.
plant core_bad 'extern void trap_set_nmi_handler(void *);
extern void serial_putc(char c);
void planted_core(void) { trap_set_nmi_handler(0); serial_putc(0); }'
check --core "${core[@]}" "$tmp/core_bad.o" --arch "${arch[@]}"
expect "a core call into arch internals fails" 1 \
	"^$tmp/core_bad.o: uses trap_set_nmi_handler \(defined in $objdir/arch/x86_64/trap.o\), which no arch/x86_64/asm/\*\.h declares$" \
	'!: uses serial_putc'

# An arch file that calls the scheduler, next to a call of printk (on the
# allow-list).
plant arch_bad 'extern void schedule(void);
extern int printk(const char *fmt, ...);
void planted_arch(void) { schedule(); printk("x"); }'
check --core "${core[@]}" --arch "${arch[@]}" "$tmp/arch_bad.o"
expect "an arch call into the scheduler fails" 1 \
	"^$tmp/arch_bad.o: uses the core's schedule \(defined in $objdir/kernel/sched/sched.o\), which is not on the arch's allow-list \(scripts/build/boundary.sh\)$" \
	"!: uses the core's printk"

# Both at once: one line each.
check --core "${core[@]}" "$tmp/core_bad.o" --arch "${arch[@]}" "$tmp/arch_bad.o"
expect "both crossings, one line each" 1 'uses trap_set_nmi_handler' \
	"uses the core's schedule"
[[ $(grep -c ': uses ' "$tmp/out") == 2 ]] ||
	{ echo "FAIL: expected exactly two violation lines"; cat "$tmp/out"; fails=1; }

check --core "${core[@]}"
expect "a call without both sides is a usage error" 2 '^usage: '

exit $fails
