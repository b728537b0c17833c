#!/usr/bin/env bash
# The Gradescope autograder end to end (scripts/autograder/, docs/labs/
# README.md), on a fake /autograder in a temporary folder
# (AUTOGRADER_ROOT): the upload `make autograder` makes is unzipped into
# source/ as Gradescope does, its prebuild builds the starter as setup.sh
# does, and run_autograder grades two submissions
# of lab LAB (default 2: one kernel, three boots, and its files are
# sources few objects depend on, so a grade over the prebuilt starter
# compiles three files where lab 1's header recompiles most of them):
# the untouched starter as a repository upload (its files at their
# paths), which must score what its spec's `# starter scores:` says
# (more than 0, less than 100), and the
# solution's files uploaded alone (found by their names), which must
# score 100; each results.json is checked against Gradescope's format and
# the lab's spec (tests/host/gradescope_check.py), and the starter's grade
# compiled nothing over the prebuilt one. Then an upload that is
# not one gives results that say so, not a missing file.
# cores: 0 (a build and three short boots, at a low priority in the
# cores the matrix's boots leave idle; `make test` gives it JOBS=1, one
# make job and one boot at a time. Its bounds are far from what a slow
# boot needs: the grader's per-check silence of 60 s, the kernel's 5 s
# for a CPU to answer, against boots of 2-4 s of CPU)
# takes: 120 s
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
lab=${LAB:-2} fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
bash scripts/autograder/package "$lab" "$tmp/upload.zip" || exit 1

# A fresh /autograder with the upload unzipped in source/, run_autograder
# where Gradescope puts it, and what setup.sh builds last (prebuild); the
# two submissions are graded in it one after the other.
r=$tmp/root
mkdir -p "$r/results"
python3 -m zipfile -e "$tmp/upload.zip" "$r/source" || exit 1
cp "$r/source/run_autograder" "$r/run_autograder"
if ! AUTOGRADER_ROOT=$r bash "$r/source/prebuild" >"$tmp/prebuild.out" 2>&1; then
	fail "prebuild failed"
	tail -n 30 "$tmp/prebuild.out"
fi

# grade KIND: grade what is in submission/ as KIND's (starter or
# solution) and check its results.json; output in $tmp/KIND.out.
grade() {
	local out=$tmp/$1.out start=$SECONDS
	if ! AUTOGRADER_ROOT=$r bash "$r/run_autograder" >"$out" 2>&1; then
		fail "$1: run_autograder failed"
		tail -n 30 "$out"
	fi
	echo "$1: $(sed -n 's/^Score: //p' "$out") in $((SECONDS - start)) s"
	python3 -B tests/host/gradescope_check.py "$r/results/results.json" \
		"tests/labs/lab$lab.grade" "$1" || fail "$1: results.json (above)"
}

# The starter as a student's repository: the whole tree, at its paths.
mkdir -p "$r/submission"
cp -a "$r/source/starter/." "$r/submission/"
grade starter

# The solution's files alone, as a drag-and-drop upload.
rm -rf "$r/submission" && mkdir -p "$r/submission"
while read -r f; do cp "$f" "$r/submission/"; done <"$r/source/files"
grade solution
grep -q "from the submission" "$tmp/solution.out" ||
	fail "solution: no file taken from the submission"

# What each grade compiled, over the prebuilt starter: nothing for the
# starter's own files; for the solution's, what they changed (a header
# recompiles what includes it: at least one file).
compiled() {
	sed -n 's/^built RT=.*: \([0-9]*\) file(s) compiled$/\1/p' "$tmp/$1.out" |
		awk '{ n += $1 } END { print n + 0 }'
}
n=$(compiled starter)
((n == 0)) || fail "starter: $n file(s) compiled over the prebuilt starter, not 0"
n=$(compiled solution)
((n >= 1)) || fail "solution: nothing compiled over the prebuilt starter"

# Not an autograder upload: results that say what is wrong, exit 1.
r=$tmp/broken
mkdir -p "$r/source" "$r/submission"
cp scripts/autograder/run_autograder "$r/"
AUTOGRADER_ROOT=$r bash "$r/run_autograder" >/dev/null 2>&1 && fail "a broken upload graded"
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["score"] == 0 and "not what scripts/autograder/package makes" in r["output"], r
' "$r/results/results.json" || fail "a broken upload: no results.json saying why"

((fails == 0)) && echo "autograder: all checks passed"
((fails == 0))
