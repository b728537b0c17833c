#!/usr/bin/env bash
# The memory-model vocabulary (docs/memory-model.md): outside the headers
# that define it, kernel/, arch/ and lib/ say READ_ONCE(), WRITE_ONCE(),
# smp_load_acquire(), smp_store_release(), smp_mb(), atomic_t,
# refcount_t, xchg() and cmpxchg(), never a raw __atomic_* builtin of
# the compiler, and a `volatile` (or `__volatile__`) object or pointer
# only with a comment that names it and says why, on its line or in the
# comment that ends on the line above ("volatile: MMIO registers, ...",
# "volatile, as ..."). `asm volatile` is the inline-assembly qualifier,
# not a volatile object, and is not counted.
#
# usage: scripts/build/check-vocabulary.sh
# Fails (exit 1) with one line per use, FILE:LINE: what, and the rule.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

# The vocabulary itself: its implementation may use what it hides.
VOCABULARY=(
	lib/rwonce.h
	arch/x86_64/asm/atomic.h
	arch/x86_64/asm/barrier.h
	arch/x86_64/asm/bitops.h
	arch/x86_64/asm/cmpxchg.h
	kernel/atomic.h
	kernel/refcount.h
)
# The per-CPU checker's compiler hooks implement the __tsan_atomic*
# entry points, each of which must perform the builtin it stands for, on
# the volatile pointer the compiler's signature for it has.
TSAN_HOOKS=(
	kernel/locking/lockdep_percpu_tsan.c
)

skip=" ${VOCABULARY[*]} ${TSAN_HOOKS[*]} "
files=()
while IFS= read -r f; do
	[[ $skip == *" $f "* ]] || files+=("$f")
done < <(find kernel arch lib -name '*.[ch]' | sort)

# Each line without its comments, strings and character constants,
# and whether a comment was on it: the code is what the rules read.
found=$(awk '
# why: the text of the comments on this line names volatile; block: the
# same for the comment still open; prevwhy: the comment that ended on
# the line above (or was on it) did.
FNR == 1 { incomment = 0; prevwhy = 0; block = 0 }
{
	line = $0; code = ""; text = ""
	i = 1; n = length(line)
	while (i <= n) {
		c = substr(line, i, 1); c2 = substr(line, i, 2)
		if (incomment) {
			if (c2 == "*/") { incomment = 0; i += 2; continue }
			text = text c; i++
			continue
		}
		if (c2 == "/*") { incomment = 1; i += 2; continue }
		if (c2 == "//") { text = text substr(line, i); break }
		if (c == "\"" || c == "\x27") {
			q = c; i++
			while (i <= n && substr(line, i, 1) != q)
				i += substr(line, i, 1) == "\\" ? 2 : 1
			i++; code = code " "; continue
		}
		code = code c; i++
	}
	if (code ~ /__atomic_/)
		printf "%s:%d: raw __atomic builtin: use READ_ONCE/WRITE_ONCE, smp_load_acquire/smp_store_release, atomic_t or xchg/cmpxchg\n", FILENAME, FNR
	names = text ~ /volatile/
	why = names || block
	gsub(/(__asm__|asm)[ \t]+(__volatile__|volatile)/, "asm", code)
	if (code ~ /(^|[^A-Za-z0-9_])(__)?volatile(__)?([^A-Za-z0-9_]|$)/ && !why && !prevwhy)
		printf "%s:%d: volatile with no comment saying why: use READ_ONCE/WRITE_ONCE, or say why (\"volatile: ...\") on its line or the line above\n", FILENAME, FNR
	# A comment block that names volatile counts up to its last line.
	if (incomment) block = block || names; else block = 0
	prevwhy = why
}' "${files[@]}")
[[ -z $found ]] && exit 0
echo "$found" >&2
exit 1
