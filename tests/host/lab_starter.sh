#!/usr/bin/env bash
# The lab starter generator (scripts/lab-starter, docs/labs/README.md):
# regions replaced in C and NASM syntax with the STUB lines (or the
# named blocks of tests/labs/labN.starter), other labs'
# regions kept, every malformed marker refused with the file, line and
# reason; then the markers of this tree, and each lab's starter tree (no
# region left, no hidden test, every path it names there). Fixtures are in tests/host/lab_starter/.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
gen=scripts/lab-starter fix=tests/host/lab_starter fails=0 L=LAB

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

for f in good.c good.asm block.c; do
	if ! out=$(python3 "$gen" --file 7 "$fix/$f.in" 2>&1); then
		fail "$f: $out"
	elif ! diff -u "$fix/$f.lab7" - <<<"$out"; then
		fail "$f: starter differs from $fix/$f.lab7"
	fi
done

# A doc region: a Markdown file's markers are HTML comment lines, and a
# marker quoted in its prose is not one.
md=$(mktemp -d) || exit 1
cp "$fix/good.md.in" "$md/good.md"
if ! out=$(python3 "$gen" --file 7 "$md/good.md" 2>&1); then
	fail "good.md: $out"
elif ! diff -u "$fix/good.md.lab7" - <<<"$out"; then
	fail "good.md: starter differs from $fix/good.md.lab7"
fi
rm -rf "$md"

# --leaks finds a line of a solution region written anywhere in a tree.
leak=$(mktemp -d) || exit 1
sed -n "/${L}3 BEGIN/,/${L}3 END/p" kernel/sched/migrate.c | grep -v "${L}3" |
	awk 'length > 30' | head -n 1 >"$leak/notes.md"
[[ -s $leak/notes.md ]] || fail "no solution line of lab 3 to plant"
python3 "$gen" --leaks 3 "$leak" >/dev/null && fail "--leaks missed a planted solution line"
# ...and a solution statement quoted inside a document's sentence,
# wrapped over two lines.
printf 'Refill it: call\n`pcp->count =\npages_take_locked(pcp->pages, PCP_BATCH);` and go.\n' \
	>"$leak/notes.md"
grep -qF 'pcp->count = pages_take_locked(pcp->pages, PCP_BATCH);' kernel/mm/page_pcp.c ||
	fail "the statement planted for --leaks is no longer lab 8's"
out=$(python3 "$gen" --leaks 8 "$leak") && fail "--leaks missed a statement quoted in prose"
grep -qF 'notes.md: quotes pcp->count' <<<"$out" || fail "--leaks: unclear report: $out"
# ...and a `code` quote of part of a solution line (an expression of a
# condition), wrapped over two lines as a handout's may be, but not a
# call its handout gives on purpose (%given). (Each is spelt in pieces
# here: a source that held it whole would be one the starter keeps, and
# no leak.)
e1='ULONG_CMP_LT(seq,' e2='rsclp''->gp_seq[i])'
printf 'Break when `%s\n%s` holds, `not this`.\n' "$e1" "$e2" >"$leak/notes.md"
grep -qF "$e1 $e2" kernel/rcu/rcu_segcblist.c ||
	fail "the expression planted for --leaks is no longer lab 9's"
out=$(python3 "$gen" --leaks 9 "$leak") && fail "--leaks missed part of a line quoted"
grep -qF 'notes.md: quotes part of a line: ULONG_CMP_LT(seq' <<<"$out" ||
	fail "--leaks: unclear report: $out"
c='arch_cpu_init''_ap(cpu)'
grep -qxF "%given $c" tests/labs/lab2.starter ||
	fail "the call planted as given is no longer in lab 2's %given lines"
printf 'Call `%s` somewhere.\n' "$c" >"$leak/notes.md"
out=$(python3 "$gen" --leaks 2 "$leak") || fail "--leaks: a %given call reported: $out"
rm -rf "$leak"

# expect_error FIXTURE TEXT [LAB]: the generator exits 1 and says TEXT.
# ($L spells the markers' prefix: this file is a source the generator
# checks, and a marker's text outside a marker line is an error.)
expect_error() {
	local out rc
	out=$(python3 "$gen" --file "${3:-7}" "$fix/$1" 2>&1)
	rc=$?
	((rc == 1)) || fail "$1: exit $rc, want 1 (output: $out)"
	grep -qF -- "$2" <<<"$out" || fail "$1: no '$2' in: $out"
}
expect_error nested.c.in "nested.c.in:2: ${L}8 BEGIN inside the ${L}7 region opened at line 1: regions do not nest"
expect_error end-alone.c.in "end-alone.c.in:2: ${L}7 END with no BEGIN"
expect_error unclosed.c.in "unclosed.c.in:1: ${L}7 BEGIN is never closed"
expect_error mismatch.c.in "mismatch.c.in:3: ${L}8 END closes the ${L}7 region"
expect_error stub-outside.c.in "stub-outside.c.in:1: ${L}7 STUB outside any region"
expect_error stub-other.c.in "stub-other.c.in:2: ${L}8 STUB inside the ${L}7 region"
expect_error stub-noblock.c.in "stub-noblock.c.in:3: ${L}7 STUB @no_such_block: no block '== no_such_block' in tests/labs/lab7.starter"
expect_error inline.c.in 'inline.c.in:1: a lab marker must be a whole comment line'
expect_error open-comment.c.in 'open-comment.c.in:1: a lab marker must be a whole comment line'
expect_error good.c.in "no ${L}9 region" 9

# The tree's own markers, and a starter tree per lab.
if ! labs=$(python3 "$gen" --check 2>&1); then
	fail "markers of this tree: $labs"
	labs=""
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
for lab in $(sed -n 's/^lab \([0-9]*\):.*/\1/p' <<<"$labs"); do
	if ! out=$(python3 "$gen" "$lab" "$tmp/lab$lab" 2>&1); then
		fail "starter of lab $lab: $out"
		continue
	fi
	left=$(grep -rlE "LAB$lab (BEGIN|END|STUB)" "$tmp/lab$lab" --include='*.[chS]' \
		--include='*.asm' --include=Makefile)
	[[ -z $left ]] || fail "lab $lab starter still has its markers in: $left"
	# %unmarked: not even the line that sends the student to the handout.
	if grep -qx '%unmarked' "tests/labs/lab$lab.starter" 2>/dev/null &&
		grep -rqE "LAB$lab: " "$tmp/lab$lab" --include='*.[chS]'; then
		fail "lab $lab is %unmarked, but its starter marks where its regions were"
	fi
	hidden=$(cd "$tmp/lab$lab" && ls tests/labs/lab*_hidden_* tests/host/lab*_hidden_* 2>/dev/null)
	[[ -z $hidden ]] || fail "lab $lab starter has hidden tests: $hidden"
	# The build's path check passes there too: a starter that names what
	# it leaves out (the hidden tests, labN.starter) must still build.
	out=$(cd "$tmp/lab$lab" && bash scripts/build/check-paths.sh 2>&1) ||
		fail "lab $lab starter fails the path check: $out"
done
mkdir "$tmp/full" && touch "$tmp/full/file"
out=$(python3 "$gen" 1 "$tmp/full" 2>&1) && fail "a non-empty output directory was accepted"
grep -qF 'is not empty' <<<"$out" || fail "non-empty directory: unclear message: $out"

((fails == 0)) && echo "lab-starter: all checks passed"
((fails == 0))
