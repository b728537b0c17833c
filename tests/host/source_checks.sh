#!/usr/bin/env bash
# The build's checks on the sources themselves: the memory-model
# vocabulary (scripts/build/check-vocabulary.sh), the paths the comments
# and docs name (scripts/build/check-paths.sh), and the layer rule's one
# door into kernel/debug/ (scripts/build/includes.sh). Each passes on
# the tree as it is, and fails, with one line per fault naming its file
# and line, on a small tree planted beside it: a raw __atomic builtin
# and a volatile with no reason given; a missing file named in a doc, in
# a comment, as a bare doc name and as a Markdown link; a core file that
# includes a debug/ header other than the hook header. What is allowed
# goes unreported: asm volatile, a commented volatile, the words in
# comments and strings, the vocabulary's own headers, an #include line,
# Linux's paths, build products, existing paths and globs that match.
#
# usage: tests/host/source_checks.sh   (needs no kernel)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

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

# run ROOT SCRIPT [ARG]: the check, as the build runs it, on the tree at
# ROOT.
run() {
	# shellcheck disable=SC2086 # the script and its argument
	bash "$1"/scripts/build/$2 >"$tmp/out" 2>&1
	rc=$?
}

run . check-vocabulary.sh
expect "the vocabulary check passes on the tree" 0
run . check-paths.sh
expect "the path check passes on the tree" 0

# A planted tree: the two scripts and the folders they read.
t=$tmp/tree
mkdir -p "$t/scripts/build" "$t/arch/x86_64/asm" "$t/boot" "$t/docs" \
	"$t/kernel" "$t/lib" "$t/tests" "$t/user"
cp scripts/build/check-vocabulary.sh scripts/build/check-paths.sh \
	scripts/build/includes.sh "$t/scripts/build/"
touch "$t/README.md" "$t/Makefile" "$t/linker.ld"

cat >"$t/kernel/bad.c" <<'EOF'
static int x;
static volatile int unexplained;
/* volatile: MMIO, each access reaches the device. */
static volatile unsigned int *regs;
int f(void)
{
	const char *s = "__atomic_load_n and volatile, in a string";

	__asm__ volatile("" ::: "memory"); /* volatile and __atomic_ here */
	asm volatile("pause");
	return __atomic_load_n(&x, __ATOMIC_RELAXED) + *regs + s[0];
}
static __volatile__ int spelled_otherwise;
/* A comment about something else. */
static volatile int beside_another_comment;
/*
 * volatile, as the comment block that ends just above says: a
 * value the compiler must reload.
 */
static volatile int explained_above;
EOF
cat >"$t/lib/rwonce.h" <<'EOF'
#define READ_ONCE(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
static volatile int the_vocabulary_may;
EOF
run "$t" check-vocabulary.sh
expect "a raw builtin and an unexplained volatile fail the build" 1 \
	'^kernel/bad.c:11: raw __atomic builtin' \
	'^kernel/bad.c:2: volatile with no comment' \
	'^kernel/bad.c:13: volatile with no comment' \
	'^kernel/bad.c:15: volatile with no comment' \
	'!bad.c:(4|7|9|10|20):' '!rwonce.h'

mkdir -p "$t/kernel/sched" "$t/docs/labs" "$t/tests/labs"
touch "$t/kernel/sched/sched.c" "$t/docs/other.md" "$t/tests/labs/lab3.grade"
cat >"$t/docs/page.md" <<'EOF'
# A page

`kernel/sched/sched.c` and `kernel/sched/*.c` exist, and so do
`tests/labs/labN.grade`, [the other page](other.md#a-section) and
`other.md`; `$(O)/kernel.elf` is built; Linux's `kernel/sched/core.c` is
Linux's. But `kernel/sched/gone.c` is not there, nor is [a link](missing.md),
and DESIGN.md is not in the repository.
EOF
cat >"$t/kernel/sched/sched.c" <<'EOF'
#include "user/process.h"
/* See tests/sched/vanished.c and kernel/sched/sched.c. */
static const char *name = "tests/in/a/string.c"; /* code, not a comment */
/* As sched/sched.c and sched.c say, not nosuch.h; x.h is any header. */
EOF
run "$t" check-paths.sh
expect "missing paths fail the build, each with its place" 1 \
	'^docs/page.md:6: kernel/sched/gone.c does not exist' \
	'^docs/page.md:6: missing.md does not exist' \
	'^docs/page.md:7: DESIGN.md does not exist' \
	'^kernel/sched/sched.c:2: tests/sched/vanished.c does not exist' \
	'^kernel/sched/sched.c:4: nosuch.h does not exist' \
	'!page.md:[3-5]:' '!core.c' '!process.h' '!string.c' '!x.h' \
	'!sched.c:4: (sched/)?sched.c'

# In a git work tree a file must be in git: a doc on the disk only is
# still missing from a clone; and one removed from the disk is gone.
sed -i '/gone.c/d; s/, nor is \[a link\](missing.md)//' "$t/docs/page.md"
sed -i 's#tests/sched/vanished.c#kernel/sched/sched.c#; s/not nosuch.h/not sched.h/' "$t/kernel/sched/sched.c"
touch "$t/kernel/sched/sched.h"
git -C "$t" init -q && git -C "$t" add -A &&
	git -C "$t" -c user.name=t -c user.email=t@t commit -q -m tree
touch "$t/DESIGN.md"
run "$t" check-paths.sh
expect "a file only on the disk is not in the repository" 1 \
	'^docs/page.md:[0-9]+: DESIGN.md is not in git' '!kernel/sched/sched.c:'
rm "$t/DESIGN.md" "$t/kernel/sched/sched.h"
run "$t" check-paths.sh
expect "a file removed from the disk is gone, tracked or not" 1 \
	'^kernel/sched/sched.c:4: sched.h does not exist'
rm -rf "${t:?}/.git"

mkdir -p "$t/kernel/debug"
touch "$t/kernel/debug/explore.h" "$t/kernel/debug/ktest.h"
printf '#include "debug/ktest.h"\n' >"$t/kernel/runner.c"
printf '#include "debug/explore.h"\n' >"$t/kernel/hooked.c"
printf '#include "debug/ktest.h"\n' >"$t/kernel/debug/harness.c"
printf '#include "debug/ktest.h"\n' >"$t/tests/a_test.c"
run "$t" "includes.sh check"
expect "the core reaches kernel/debug/ through its hook header only" 1 \
	'^kernel/runner.c: includes kernel/debug/ktest.h: the core reaches kernel/debug/ only through debug/explore.h' \
	'!hooked.c' '!harness.c' '!a_test.c'

exit $fails
