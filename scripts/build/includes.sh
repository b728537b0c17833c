#!/usr/bin/env bash
# The include graph of the sources, and the rule for what may include what.
#
# usage: scripts/build/includes.sh check    fail (exit 1) on every include that
#                                     breaks the layer rule, one line each
#        scripts/build/includes.sh layers   the graph between layers, as a
#                                     Mermaid diagram (docs/architecture.md)
#        scripts/build/includes.sh dot      the graph between files, for Graphviz
#
# The layers, lowest first (docs/architecture.md says why):
#   lib    lib/                 freestanding C library; includes only lib
#   asm    arch/x86_64/asm/     the arch interface; includes asm and lib
#   arch   arch/x86_64/*        the hardware; anything below it and the
#                               core's services, but never the scheduler's
#                               or the lock validator's headers
#   core   kernel/              lib, asm, core; never arch internals, and
#                               of kernel/debug/ (the test harness and
#                               instruments) only its hook header,
#                               DEBUG_HOOKS
#   tests  tests/               lib, asm, core, tests
#   user   user/                ring-3 programs: their own headers, lib,
#                               and the system call ABI (kernel/user/uapi.h)
#
# An include "x.h" is resolved as the compiler does: the including file's
# directory first, then kernel/, arch/x86_64/ and lib/ (the Makefile's -I
# order); tests also search tests/ and every kernel/*/ folder, so that a
# test names a public header bare ("sched.h"). The core and arch spell a
# subsystem's folder ("sched/sched.h"): a bare name that only the
# including file's own subsystem folder holds is an error, so an include
# always says where it goes. <x.h> may only name a freestanding C header.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

# Headers of the scheduler and the lock validator: arch never reaches them.
ARCH_FORBIDDEN="sched.h sched_internal.h lockdep.h lockdep_internal.h lockdep_fast.h rtmutex.h mutex.h wait.h completion.h"
FREESTANDING="stdint.h stdbool.h stddef.h stdarg.h"
# The one header of kernel/debug/ the rest of the core may include: the
# interleaving explorer's injection points, which the per-CPU operations,
# preemption and the sleeping locks call (docs/architecture.md).
DEBUG_HOOKS=kernel/debug/explore.h

# The helpers below return in globals (LAYER, TARGET, REPLY) instead of
# printing into $(...): a subshell per include made the check cost a
# minute and a half of CPU on a 2-core host, and it runs after every
# edit (the Makefile's includes.ok).

# layer_of FILE: sets LAYER.
layer_of() {
	case $1 in
	lib/*) LAYER=lib ;;
	arch/x86_64/asm/*) LAYER=asm ;;
	arch/*) LAYER=arch ;;
	kernel/*) LAYER=core ;;
	tests/*) LAYER=tests ;;
	user/*) LAYER=user ;;
	*) LAYER=other ;;
	esac
}

KERNEL_SUBDIRS=$(find kernel -mindepth 1 -maxdepth 1 -type d | sort)

# normalize PATH: sets REPLY to PATH without its "." and ".." components
# (the tree has no symbolic links, so this is what realpath would say).
normalize() {
	local part out=() IFS=/
	for part in $1; do
		case $part in
		'' | .) ;;
		..)
			if ((${#out[@]})) && [[ ${out[-1]} != .. ]]; then
				unset 'out[-1]'
			else
				out+=(..)
			fi ;;
		*) out+=("$part") ;;
		esac
	done
	REPLY="${out[*]}"
}

# resolve FROM NAME: sets TARGET to the path the compiler would open for
# FROM's quoted include of NAME, or to nothing. The search path: FROM's
# directory, then the Makefile's -I order.
resolve() {
	local from=$1 name=$2 d dirs
	dirs="${from%/*} kernel arch/x86_64 lib"
	[[ $from == tests/* ]] && dirs="${from%/*} tests kernel arch/x86_64 lib $KERNEL_SUBDIRS"
	TARGET=
	for d in $dirs; do
		if [[ -f $d/$name ]]; then
			normalize "$d/$name"
			TARGET=$REPLY
			return
		fi
	done
}

# bare_in_subsystem FROM NAME: true when a core file in a subsystem folder
# reaches NAME only through its own folder (it should spell "sub/NAME").
bare_in_subsystem() {
	[[ $1 == kernel/*/* && $2 != */* && -f ${1%/*}/$2 ]]
}

# Every C source and header, and each "..." or <...> include it makes:
# prints FILE KIND NAME, KIND being q (quotes) or a (angle brackets).
# One grep and one sed for the whole tree.
edges() {
	find lib arch kernel tests user -name '*.[ch]' 2>/dev/null | sort |
		xargs grep -H '^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]' |
		sed -n -e 's/^\([^:]*\):[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^">]*\)[">].*/\1 q \2/p' \
			-e 's/^\([^:]*\):[[:space:]]*#[[:space:]]*include[[:space:]]*<\([^">]*\)[">].*/\1 a \2/p'
}

# allowed FROM_LAYER TO_LAYER TO_FILE: may a file of FROM_LAYER include it?
allowed() {
	local from=$1 to=$2 file=$3
	case $from in
	lib) [[ $to == lib ]] ;;
	asm) [[ $to == asm || $to == lib ]] ;;
	arch) [[ $to != tests && $to != user ]] &&
		! [[ $to == core && " $ARCH_FORBIDDEN " == *" ${file##*/} "* ]] ;;
	core) [[ $to == lib || $to == asm || $to == core ]] ;;
	tests) [[ $to == lib || $to == asm || $to == core || $to == tests ]] ;;
	user) [[ $to == user || $to == lib || $file == kernel/user/uapi.h ]] ;;
	*) true ;;
	esac
}

# why FROM_LAYER TO_LAYER: the rule an include between them broke.
why() {
	if [[ $1 == arch && $2 == core ]]; then
		echo "arch may not include the scheduler or the lock validator"
	elif [[ $1 == core || $1 == tests ]] && [[ $2 == arch ]]; then
		echo "$1 reaches arch only through asm/*.h"
	else
		echo "$1 may not include $2"
	fi
}

check() {
	local bad=0 file kind name from to
	while read -r file kind name; do
		layer_of "$file"
		from=$LAYER
		if [[ $kind == a ]]; then
			if [[ " $FREESTANDING " != *" $name "* ]]; then
				echo "$file: <$name> is not a freestanding C header" >&2
				bad=1
			fi
			continue
		fi
		resolve "$file" "$name"
		if [[ -z $TARGET ]]; then
			echo "$file: \"$name\" is not in the tree" >&2
			bad=1
			continue
		fi
		if bare_in_subsystem "$file" "$name"; then
			echo "$file: \"$name\": spell its folder, \"${TARGET#kernel/}\"" \
				"(docs/architecture.md)" >&2
			bad=1
		fi
		layer_of "$TARGET"
		to=$LAYER
		if [[ $file == kernel/* && $file != kernel/debug/* &&
			$TARGET == kernel/debug/* && $TARGET != "$DEBUG_HOOKS" ]]; then
			echo "$file: includes $TARGET: the core reaches kernel/debug/" \
				"only through ${DEBUG_HOOKS#kernel/} (docs/architecture.md)" >&2
			bad=1
		fi
		if ! allowed "$from" "$to" "$TARGET"; then
			echo "$file: includes $TARGET: $(why "$from" "$to")" \
				"(docs/architecture.md)" >&2
			bad=1
		fi
	done < <(edges)
	return $bad
}

layers() {
	local file kind name from
	echo "flowchart BT"
	while read -r file kind name; do
		[[ $kind == a ]] && continue
		resolve "$file" "$name"
		[[ -n $TARGET ]] || continue
		layer_of "$file"
		from=$LAYER
		layer_of "$TARGET"
		echo "$from $LAYER"
	done < <(edges) | awk '$1 != $2' | sort | uniq -c |
		awk '{ printf "    %s -->|%d| %s\n", $2, $1, $3 }'
}

dot() {
	local file kind name
	echo "digraph includes {"
	echo "    rankdir=BT; node [shape=box, fontsize=10];"
	while read -r file kind name; do
		[[ $kind == a ]] && continue
		resolve "$file" "$name"
		[[ -n $TARGET ]] && echo "    \"$file\" -> \"$TARGET\";"
	done < <(edges)
	echo "}"
}

case ${1:-} in
check) check ;;
layers) layers ;;
dot) dot ;;
*) echo "usage: $0 check|layers|dot" >&2; exit 2 ;;
esac
