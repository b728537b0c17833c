#!/usr/bin/env bash
# The Gradescope autograder end to end (scripts/autograder/, docs/labs/
# README.md), on a fake /autograder in a temporary folder
# (AUTOGRADER_ROOT): the upload `make autograder` makes is unzipped into
# source/ as Gradescope does, and run_autograder grades two submissions
# of lab LAB (default 1, the cheapest to grade: one kernel, three boots):
# the untouched starter as a repository upload (its files at their
# paths), which must score what its spec's `# starter scores:` says
# (more than 0, less than 100), and the
# solution's files uploaded alone (found by their names), which must
# score 100; each results.json is checked against Gradescope's format and
# the lab's spec (tests/host/gradescope_check.py). Then an upload that is
# not one gives results that say so, not a missing file.
# cores: 1 (its kernel builds take JOBS make jobs, and its boots one at a
# time; `make test` gives it JOBS=1)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
lab=${LAB:-1} fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
bash scripts/autograder/package "$lab" "$tmp/upload.zip" || exit 1

# fake_root NAME: a fresh /autograder with the upload unzipped in source/
# and run_autograder where Gradescope puts it; prints its path.
fake_root() {
	local r=$tmp/$1
	mkdir -p "$r/submission" "$r/results"
	python3 -m zipfile -e "$tmp/upload.zip" "$r/source" || return 1
	cp "$r/source/run_autograder" "$r/run_autograder"
	echo "$r"
}

# grade NAME KIND: runs the autograder of fake root NAME and checks its
# results.json as KIND's (starter or solution).
grade() {
	local r=$tmp/$1 start=$SECONDS
	if ! AUTOGRADER_ROOT=$r bash "$r/run_autograder" >"$r/out" 2>&1; then
		fail "$2: run_autograder failed"
		tail -n 30 "$r/out"
	fi
	echo "$2: $(sed -n 's/^Score: //p' "$r/out") in $((SECONDS - start)) s"
	python3 -B tests/host/gradescope_check.py "$r/results/results.json" \
		"tests/labs/lab$lab.grade" "$2" || fail "$2: results.json (above)"
}

# The starter as a student's repository: the whole tree, at its paths.
r=$(fake_root starter) || exit 1
cp -a "$r/source/starter/." "$r/submission/"
grade starter starter

# The solution's files alone, as a drag-and-drop upload.
r=$(fake_root solution) || exit 1
while read -r f; do cp "$f" "$r/submission/"; done <"$r/source/files"
grade solution solution
grep -q "from the submission" "$r/out" || fail "solution: no file taken from the submission"

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
