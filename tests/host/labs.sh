#!/usr/bin/env bash
# The lab kit's own check (`make labs-check`, a step of .ci/run): for every
# lab with a tests/labs/labN.grade, the solution (this tree) scores 100,
# and the starter tree (scripts/lab-starter) builds, boots and scores more
# than 0 and less than 100 when graded with the hidden checks, as an
# instructor grades a student's untouched starter, and exactly the score
# its spec states on a `# starter scores: N` line (as its handout does),
# so that a grade that moves with the host's load, or a change to the lab
# that moves the starter's score without its handout, fails here; and no
# line of the solution (short and blank lines aside) is left in the
# starter tree, docs included (scripts/lab-starter --leaks).
#
# Environment: O (build root of this tree, default build), LABS (the lab
# numbers to check, default all). `make labs-check LOAD=N` runs it beside
# N busy loops (scripts/load.sh), as `make test LOAD=N` does.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
O=${O:-build}
root=$PWD fails=0 summary=()

labs=${LABS:-$(ls tests/labs/lab*.grade 2>/dev/null |
	sed 's/.*lab\([0-9]*\)\.grade/\1/' | sort -n)}
[[ -n $labs ]] || { echo "labs-check: no tests/labs/lab*.grade"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# score DIR LAB [ARGS]: grade lab LAB in tree DIR; prints the score, or
# nothing if the grader could not grade.
score() {
	local dir=$1 lab=$2 o=$3
	shift 3
	(cd "$dir" && O=$o python3 scripts/grade "$lab" "$@") >"$tmp/out" 2>&1
	sed 's/^/    /' "$tmp/out"
	sed -n 's|^Score: \([0-9]*\)/100.*|\1|p' "$tmp/out" | tail -n 1 >"$tmp/score"
}

for lab in $labs; do
	echo "== lab $lab: solution"
	start=$SECONDS
	score "$root" "$lab" "$O"
	sol=$(<"$tmp/score") sol_s=$((SECONDS - start))
	[[ $sol == 100 ]] || { echo "FAIL lab $lab: solution scores '${sol:-no score}', not 100"; ((fails++)); }

	echo "== lab $lab: starter"
	start=$SECONDS
	if ! python3 scripts/lab-starter "$lab" "$tmp/lab$lab"; then
		echo "FAIL lab $lab: no starter tree"
		((fails++))
		summary+=("lab $lab: solution ${sol:-none}/100 (${sol_s}s), starter not generated")
		continue
	fi
	# The starter holds no line of the solution, docs included.
	python3 scripts/lab-starter --leaks "$lab" "$tmp/lab$lab" ||
		{ echo "FAIL lab $lab: its starter tree holds lines of the solution"; ((fails++)); }
	score "$tmp/lab$lab" "$lab" build --hidden "$root"
	st=$(<"$tmp/score") st_s=$((SECONDS - start))
	want=$(sed -n 's/^# starter scores: \([0-9]*\).*/\1/p' "tests/labs/lab$lab.grade")
	if [[ -z $st ]] || ((st <= 0 || st >= 100)); then
		echo "FAIL lab $lab: starter scores '${st:-no score}', want 0 < score < 100"
		((fails++))
	elif [[ -n $want && $st != "$want" ]]; then
		echo "FAIL lab $lab: starter scores $st, its spec says $want"
		((fails++))
	elif [[ -z $want ]]; then
		echo "note: lab $lab: tests/labs/lab$lab.grade states no '# starter scores: N'"
	fi
	summary+=("lab $lab: solution ${sol:-none}/100 (${sol_s}s), starter ${st:-none}/100 (${st_s}s)")
	rm -rf "$tmp/lab$lab"
done
printf '%s\n' "${summary[@]}"
((fails == 0)) && echo "labs-check: every lab passed"
((fails == 0))
