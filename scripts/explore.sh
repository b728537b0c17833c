#!/usr/bin/env bash
# `make explore`: the seeded interleaving explorer from the host
# (kernel/debug/explore.c, docs/debugging.md). Every boot is DETERMINISTIC=1, so
# a seed's schedule is the same every time on one CPU.
#
# usage: [VAR=value ...] scripts/explore.sh
#   KTEST         the test (suite.name), required
#   search mode (no KSEED): boot seeds FIRST_SEED.. one at a time, SEEDS
#   of them (default 8), stop at the first that fails, then shrink its
#   injected decisions with delta debugging (ddmin) to a 1-minimal list
#   that still fails, and print the command that replays it.
#     SHRINK=0      do not shrink;  SHRINK_BOOTS  at most this many (40)
#   replay mode (KSEED=N): boot seed N RUNS times (default 1), with
#   EXPLORE_ONLY=LIST if given (all: no list, the seed's run as the
#   search booted it); says whether each run failed and whether
#   the serial logs are identical.
#   stress mode (STRESS=1): the plain control, SEEDS boots of the test
#   with no injection and multi-threaded TCG on STRESS_CPUS (default 2).
#   MODE=pct: PCT instead of injections (random task priorities and
#   DEPTH-1 priority change points, DEPTH default 2, among the first
#   PCT_STEPS decisions; without PCT_STEPS, one boot with no change point
#   counts the test's decisions first). The kernel prints the guarantee
#   for each run: a bug of depth DEPTH is found with probability at least
#   1/(n * k^(DEPTH-1)). Search, shrinking (of the change points) and
#   replay work the same way.
#   CPUS (default 1), RT (1), LOCKDEP (0: a failure is the test's own
#   invariant, not a checker report), O (build), TEST_TIMEOUT (20 s per
#   test, virtual), BOOT_TIMEOUT (120 s per boot, host).
#
# Exit status: search 0 if a failing seed was found (and shrunk), 1 if
# none failed; replay 0 if every run failed (the bug replays) and the logs
# are identical; stress 0 if any boot failed. 2 on usage or build errors.
# Lines starting "explore-result:" are for scripts/explore-eval.sh.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2

KTEST=${KTEST:-} SEEDS=${SEEDS:-8} FIRST_SEED=${FIRST_SEED:-1}
CPUS=${CPUS:-1} RT=${RT:-1} LOCKDEP=${LOCKDEP:-0} O=${O:-build}
RUNS=${RUNS:-1} SHRINK=${SHRINK:-1} SHRINK_BOOTS=${SHRINK_BOOTS:-40}
TEST_TIMEOUT=${TEST_TIMEOUT:-20} BOOT_TIMEOUT=${BOOT_TIMEOUT:-120}
STRESS=${STRESS:-0} STRESS_CPUS=${STRESS_CPUS:-2}
MODE=${MODE:-inject} DEPTH=${DEPTH:-2} PCT_STEPS=${PCT_STEPS:-}
case $MODE in
inject | pct) ;;
*)
	echo "explore: MODE=$MODE: inject (the default) or pct" >&2
	exit 2
	;;
esac
if [[ -z $KTEST || $KTEST == *[\ \*\?]* ]]; then
	echo "explore: KTEST=suite.name names one test (no spaces or globs)" >&2
	exit 2
fi
dir=$(make -s --no-print-directory O="$O" RT="$RT" LOCKDEP="$LOCKDEP" EXPLORE=1 EXPLORE_BUGS=1 builddir)
work=$dir/${KTEST//[^A-Za-z0-9_.]/_}
mkdir -p "$work" || exit 2
make -s O="$O" RT="$RT" LOCKDEP="$LOCKDEP" EXPLORE=1 EXPLORE_BUGS=1 \
	kernel || exit 2
BOOTS=0

clean_log() {
	tr -d '\r' <"$1" | sed 's/\x1b\[[0-9;?]*[A-Za-z]//g'
}

# boot NAME CMDLINE [DETERMINISTIC] [CPUS]: one boot; its log is
# $work/NAME.log. Sets RESULT: pass, fail or error (why in $work/NAME.why).
boot() {
	local name=$1 cmdline="ktest=$KTEST ktest_timeout=$TEST_TIMEOUT $2"
	local det=${3:-1} cpus=${4:-$CPUS} log=$work/$1.log rc
	BOOTS=$((BOOTS + 1))
	bash scripts/build/mkiso.sh "$dir/kernel.elf" "$cmdline" "$work/$name.iso" ||
		exit 2
	DETERMINISTIC=$det timeout -k 5 "$BOOT_TIMEOUT" bash scripts/qemu.sh \
		"$work/$name.iso" "$cpus" </dev/null >"$log" 2>&1
	rc=$?
	rm -f "$work/$name.iso"
	if clean_log "$log" | grep -q '^    ok [0-9]* .*# SKIP'; then
		RESULT=error
		clean_log "$log" | sed -n 's/^    ok [0-9]* .*# SKIP /skipped: /p' >"$work/$name.why"
	elif ((rc == 33)) && clean_log "$log" | grep -q '^    ok [0-9]'; then
		RESULT=pass
	elif ((rc == 35)) && clean_log "$log" | grep -q '^    not ok [0-9]'; then
		RESULT=fail
	elif ((rc == 35)) && clean_log "$log" | grep -q '# ktest: run ended by a timeout'; then
		RESULT=fail
	else
		RESULT=error
		echo "QEMU exit $rc and no test verdict (log $log)" >"$work/$name.why"
	fi
}

# The command line of a seeded boot in this mode.
seeded() {
	if [[ $MODE == pct ]]; then
		echo "ktest_seed=$1 explore_mode=pct explore_depth=${2:-$DEPTH} explore_steps=$PCT_STEPS"
	else
		echo "ktest_seed=$1"
	fi
}
# The decisions a PCT run made, from its bound line.
pct_steps_of() {
	clean_log "$1" | sed -n 's/^    # explore: pct: [0-9]* task(s), \([0-9]*\) step(s).*/\1/p' | tail -n 1
}
pct_bound_of() {
	clean_log "$1" | sed -n 's/^    # explore: pct: \(.*probability >= 1\/[0-9]*\).*/\1/p' | tail -n 1
}

# The explore_only= list the kernel printed for the failing test.
injected_list() {
	clean_log "$1" | sed -n 's/^    # explore: only=//p' | tail -n 1
}
decisions() {
	clean_log "$1" | sed -n 's/^    # explore: seed=[0-9]*: \([0-9]*\) decisions, \([0-9]*\) injected/\1 decisions, \2 injected/p' | tail -n 1
}

if ((STRESS)); then
	found=0 first=""
	for ((i = 1; i <= SEEDS; i++)); do
		boot "stress$i" "" 0 "$STRESS_CPUS"
		echo "explore: $KTEST: stress boot $i of $SEEDS ($STRESS_CPUS CPUs): $RESULT"
		[[ $RESULT == error ]] && cat "$work/stress$i.why"
		if [[ $RESULT == fail ]]; then
			found=$((found + 1))
			first=${first:-$i}
		fi
	done
	echo "explore-result: stress $KTEST failed=$found boots=$SEEDS first=${first:-none}"
	((found > 0))
	exit
fi

if [[ $MODE == pct && -z $PCT_STEPS ]]; then
	# k: the decisions of one run with the priorities alone (depth 1).
	PCT_STEPS=1000000
	boot calibrate "$(seeded "$FIRST_SEED" 1)"
	PCT_STEPS=$(pct_steps_of "$work/calibrate.log")
	if [[ -z $PCT_STEPS ]]; then
		echo "explore: $KTEST: the calibration boot printed no step count: $RESULT"
		[[ $RESULT == error ]] && cat "$work/calibrate.why"
		exit 2
	fi
	echo "explore: $KTEST: pct: $PCT_STEPS decisions in a run (k), depth $DEPTH"
fi

if [[ -n ${KSEED:-} ]]; then
	only=${EXPLORE_ONLY:+explore_only=$EXPLORE_ONLY}
	[[ ${EXPLORE_ONLY:-} == all ]] && only="" # the seed's run as it was
	failed=0 same=1
	for ((i = 1; i <= RUNS; i++)); do
		boot "replay$i" "$(seeded "$KSEED") $only"
		echo "explore: $KTEST seed $KSEED${EXPLORE_ONLY:+ only $EXPLORE_ONLY}: run $i: $RESULT"
		[[ $RESULT == error ]] && cat "$work/replay$i.why"
		[[ $RESULT == fail ]] && failed=$((failed + 1))
		if ((i > 1)) && ! cmp -s "$work/replay1.log" "$work/replay$i.log"; then
			same=0
			echo "explore: run $i's serial log differs from run 1's:"
			diff <(clean_log "$work/replay1.log") <(clean_log "$work/replay$i.log") | head -n 10
		fi
	done
	clean_log "$work/replay1.log" | grep '^explore:\|^    # explore:\|^    # .*expected' | head -n 40
	echo "explore-result: replay $KTEST seed=$KSEED failed=$failed runs=$RUNS identical=$same"
	((failed == RUNS && same))
	exit
fi

# ---- search ----
seed="" list=""
for ((s = FIRST_SEED; s < FIRST_SEED + SEEDS; s++)); do
	boot "seed$s" "$(seeded "$s")"
	case $RESULT in
	pass) echo "explore: $KTEST: seed $s passed" ;;
	fail)
		list=$(injected_list "$work/seed$s.log")
		echo "explore: $KTEST: seed $s FAILED ($(decisions "$work/seed$s.log"))"
		seed=$s
		break
		;;
	*)
		echo "explore: $KTEST: seed $s: $(cat "$work/seed$s.why")"
		exit 2
		;;
	esac
done
if [[ -z $seed ]]; then
	echo "explore: $KTEST: no failure in seeds $FIRST_SEED..$((FIRST_SEED + SEEDS - 1)) ($BOOTS boots)"
	[[ $MODE == pct ]] && echo "explore: pct: $(pct_bound_of "$work/seed$((FIRST_SEED + SEEDS - 1)).log")"
	echo "explore-result: search $KTEST mode=$MODE found=0 seeds=$SEEDS boots=$BOOTS"
	exit 1
fi
seed_boots=$BOOTS

# ---- ddmin over the decision numbers (Zeller and Hildebrandt, 2002) ----
declare -A TRIED
# fails LIST (space-separated): does the seed still fail injecting only
# these? On a failure, REDUCED is what the kernel actually injected (a
# subset: decisions past the failure are never reached).
fails() {
	local key=${1// /,}
	key=${key:-none}
	if [[ -n ${TRIED[$key]:-} ]]; then
		[[ ${TRIED[$key]} == fail* ]] || return 1
		REDUCED=${TRIED[$key]#fail|}
		return 0
	fi
	if ((BOOTS - seed_boots >= SHRINK_BOOTS)); then
		CAPPED=1
		return 1
	fi
	boot shrink "$(seeded "$seed") explore_only=$key"
	echo "explore:   only=$key: $RESULT"
	TRIED[$key]=$RESULT
	[[ $RESULT == fail ]] || return 1
	REDUCED=$(injected_list "$work/shrink.log")
	[[ $REDUCED == none ]] && REDUCED=""
	REDUCED=${REDUCED//,/ }
	TRIED[$key]="fail|$REDUCED"
	cp "$work/shrink.log" "$work/minimal.log"
	return 0
}

cp "$work/seed$seed.log" "$work/minimal.log"
CAPPED=0
read -ra L <<<"${list//,/ }"
[[ $list == none ]] && L=()
if ((SHRINK)) && ((${#L[@]})); then
	echo "explore: shrinking ${#L[@]} injected decisions (at most $SHRINK_BOOTS boots)"
	if fails ""; then
		L=()
	else
		n=2
		while ((${#L[@]} >= 2)); do
			size=$(((${#L[@]} + n - 1) / n))
			reduced=0
			for ((c = 0; c < ${#L[@]} && !reduced; c += size)); do
				chunk=("${L[@]:c:size}")
				if fails "${chunk[*]}"; then
					read -ra L <<<"$REDUCED"; n=2; reduced=1
				fi
			done
			for ((c = 0; c < ${#L[@]} && !reduced && n > 2; c += size)); do
				rest=("${L[@]:0:c}" "${L[@]:c+size}")
				if fails "${rest[*]}"; then
					read -ra L <<<"$REDUCED"; n=$((n > 3 ? n - 1 : 2)); reduced=1
				fi
			done
			((reduced)) && continue
			((n >= ${#L[@]})) && break
			n=$((2 * n > ${#L[@]} ? ${#L[@]} : 2 * n))
		done
		if ((${#L[@]} == 1)) && fails ""; then
			L=()
		fi
	fi
fi
minimal=$(IFS=,; echo "${L[*]}")
# The list is replayed as explore_only=LIST, a longer command line than
# the boot that failed: the kernel parses more before the test starts, so
# a hard interrupt lands at another instruction. A failure that hangs on
# an interrupt's timing can pass so. Unshrunk, the find is the seed's own
# boot (EXPLORE_ONLY=all: no list, as the search booted it); shrunk, the
# list is booted once in its replay's form unless that form failed (one
# boot past SHRINK_BOOTS if need be), and if it passes the find is the
# seed's whole run.
shrunk=${#L[@]}
if ((!SHRINK)) && ((shrunk)); then
	minimal=all
elif ((shrunk)) && [[ ${TRIED[$minimal]:-} != fail* ]]; then
	capped=$CAPPED
	SHRINK_BOOTS=$((BOOTS - seed_boots + 1))
	fails "${L[*]}"
	CAPPED=$capped
	case ${TRIED[$minimal]:-} in
	fail*) ;;
	pass)
		echo "explore: the list alone passes: the failure hangs on an interrupt's timing, which the command line's length moves; the find is the seed's whole run"
		minimal=all
		shrunk=$(injected_list "$work/seed$seed.log" | tr ',' ' ' | wc -w)
		cp "$work/seed$seed.log" "$work/minimal.log"
		;;
	*) echo "explore: the list's replay form ended in '${TRIED[$minimal]:-}', not a failure: replay it with care" ;;
	esac
fi
((CAPPED)) && echo "explore: shrinking stopped at SHRINK_BOOTS=$SHRINK_BOOTS: the list may not be minimal"
echo "explore: $KTEST: seed $seed fails with $shrunk injected decision(s): ${minimal:-none} ($BOOTS boots in all)"
clean_log "$work/minimal.log" | sed -n 's/^    # explore:   /explore:   /p'
clean_log "$work/minimal.log" | grep '^    # .*expected' | sed 's/^    # /explore: /'
replay_mode=""
if [[ $MODE == pct ]]; then
	replay_mode=" MODE=pct DEPTH=$DEPTH PCT_STEPS=$PCT_STEPS"
	echo "explore: pct: $(pct_bound_of "$work/seed$seed.log")"
fi
echo "explore: replay: make explore KTEST=$KTEST KSEED=$seed CPUS=$CPUS RT=$RT LOCKDEP=$LOCKDEP$replay_mode EXPLORE_ONLY=${minimal:-none}"
echo "explore-result: search $KTEST mode=$MODE found=1 seed=$seed only=${minimal:-none} boots=$BOOTS minimal=$((!CAPPED)) steps=${PCT_STEPS:--}"
