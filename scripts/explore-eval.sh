#!/usr/bin/env bash
# `make explore-eval`: how well the explorer finds the planted bugs
# (tests/debug/explore_bugs*.c) against plain stress, and whether what it finds
# replays (docs/debugging.md).
#
# For each planted bug: (a) the explorer, SEEDS seeds on one CPU in the
# deterministic mode, shrinking the first failure (scripts/explore.sh);
# (b) plain stress: the same test, the same number of boots, no injection,
# multi-threaded TCG on 2 CPUs (real parallelism); (c) the explorer's find
# booted 3 times more from its seed and minimal decision list: it must
# fail 3 times of 3 with identical serial logs; (d) the per-CPU and lock
# checker: one plain boot with LOCKDEP=1 on the explorer's CPU count, does
# it report? (On one CPU the two tasks share each copy, so a use the
# checker judges by who else can touch the copy is seen without any
# injected interleaving; on two, each task may keep a CPU to itself.)
#
# usage: [SEEDS=8] [JOBS=2] [RT=1] [O=build] [BUGS="name ..."] scripts/explore-eval.sh
#   TABLE_ONLY=1 prints the table of the last run again, measuring nothing.
# Passes when the explorer finds at least 9 of at least 10 bugs, stress at
# most half as many as the explorer, and every find replays 3 of 3.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2

SEEDS=${SEEDS:-8} JOBS=${JOBS:-2} RT=${RT:-1} O=${O:-build}
SHRINK_BOOTS=${SHRINK_BOOTS:-24}
ALL_BUGS="missing_lock lost_wakeup pi_chain double_checked_init
unlock_before_last_use abba_deadlock get_cpu_pairing missing_preempt_disable
this_cpu_lost_update migrate_enable_early percpu_hardirq"
read -ra BUGS <<<"$(echo ${BUGS:-$ALL_BUGS})"
out=$O/explore-eval
mkdir -p "$out" || exit 2
start=$SECONDS

# The bugs that need more than one CPU to happen at all.
cpus_of() {
	case $1 in
	migrate_enable_early) echo 2 ;;
	*) echo 1 ;;
	esac
}

for ld in 0 1; do
	((${TABLE_ONLY:-0})) && break
	make -s O="$O" RT="$RT" LOCKDEP=$ld EXPLORE=1 \
		EXPLORE_BUGS=1 elf >/dev/null || exit 2
done

# eval_bug NAME: the four measurements, into $out/NAME.*.
eval_bug() {
	local b=$1 t=explore_bugs.$1 cpus seed only
	cpus=$(cpus_of "$b")
	KTEST=$t SEEDS=$SEEDS CPUS=$cpus RT=$RT LOCKDEP=0 O=$O \
		SHRINK_BOOTS=$SHRINK_BOOTS bash scripts/explore.sh >"$out/$b.search" 2>&1
	KTEST=$t SEEDS=$SEEDS STRESS=1 RT=$RT LOCKDEP=0 O=$O \
		bash scripts/explore.sh >"$out/$b.stress" 2>&1
	KTEST=$t SEEDS=1 STRESS=1 STRESS_CPUS=$cpus RT=$RT LOCKDEP=1 O=$O \
		bash scripts/explore.sh >"$out/$b.checker" 2>&1
	: >"$out/$b.replay"
	seed=$(sed -n 's/^explore-result: search .* found=1 seed=\([0-9]*\) .*/\1/p' "$out/$b.search")
	only=$(sed -n 's/^explore-result: search .* found=1 .* only=\([^ ]*\) .*/\1/p' "$out/$b.search")
	if [[ -n $seed ]]; then
		KTEST=$t KSEED=$seed EXPLORE_ONLY=$only RUNS=3 CPUS=$cpus RT=$RT \
			LOCKDEP=0 O=$O bash scripts/explore.sh >"$out/$b.replay" 2>&1
	fi
	echo "explore-eval: $b done"
}

running=0
((${TABLE_ONLY:-0})) && BUGS_TO_RUN=() || BUGS_TO_RUN=("${BUGS[@]}")
for b in "${BUGS_TO_RUN[@]}"; do
	eval_bug "$b" &
	if ((++running >= JOBS)); then
		wait -n
		running=$((running - 1))
	fi
done
wait

row() {
	printf '%-24s %-4s %-9s %-6s %-7s %-7s %-8s %s\n' "$@"
}
row variant cpus explorer boots stress replay checker "decisions after shrinking"
found=0 stressed=0 replayed=0 n=0
for b in "${BUGS[@]}"; do
	n=$((n + 1))
	s=$(grep '^explore-result: search' "$out/$b.search")
	d=-
	if [[ $s == *found=1* ]]; then
		found=$((found + 1))
		e="seed $(sed 's/.*seed=\([0-9]*\).*/\1/' <<<"$s")"
		d=$(sed 's/.* only=\([^ ]*\).*/\1/' <<<"$s")
		[[ $s == *minimal=0* ]] && d="$d (boot cap: not 1-minimal)"
	else
		e="no"
	fi
	boots=$(sed -n 's/.* boots=\([0-9]*\).*/\1/p' <<<"$s")
	st=$(sed -n 's/^explore-result: stress .* failed=\([0-9]*\) boots=\([0-9]*\).*/\1\/\2/p' "$out/$b.stress")
	[[ ${st%%/*} =~ ^[1-9] ]] && stressed=$((stressed + 1))
	r=$(sed -n 's/^explore-result: replay .* failed=\([0-9]*\) runs=\([0-9]*\) identical=\([01]\)/\1\/\2 \3/p' "$out/$b.replay")
	case $r in
	"3/3 1") replayed=$((replayed + 1)) r=3/3 ;;
	*" 1") r=${r% *} ;;
	*" 0") r="${r% *},differ" ;;
	*) r=- ;;
	esac
	if grep -q 'unexpected lockdep report' "$(make -s --no-print-directory O="$O" RT="$RT" LOCKDEP=1 EXPLORE=1 EXPLORE_BUGS=1 builddir)/explore_bugs.$b/stress1.log" 2>/dev/null; then
		c="flags"
	else
		c="-"
	fi
	row "$b" "$(cpus_of "$b")" "$e" "${boots:-?}" "${st:-?}" "$r" "$c" "$d"
done
echo "explorer found $found of $n; plain stress found $stressed; $replayed of $found finds replayed 3 of 3${TABLE_ONLY:+}$( ((${TABLE_ONLY:-0})) || echo " ($((SECONDS - start)) s)")"
problems=()
((n >= 10)) || problems+=("fewer than 10 planted bugs")
((found >= 9)) || problems+=("the explorer found fewer than 9")
((2 * stressed <= found)) || problems+=("stress found more than half as many as the explorer")
((replayed == found)) || problems+=("a find did not replay 3 of 3")
if ((${#problems[@]})); then
	printf 'explore-eval: FAIL: %s\n' "${problems[@]}"
	exit 1
fi
echo "explore-eval: PASS"
