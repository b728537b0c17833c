#!/usr/bin/env bash
# `make explore-eval`: how well the explorer finds the planted bugs
# (tests/debug/explore_bugs*.c) against plain stress, and whether what it finds
# replays (docs/debugging.md).
#
# For each planted bug: (a) the explorer, SEEDS seeds on one CPU in the
# deterministic mode, shrinking the first failure (scripts/explore.sh),
# once with injections and once in PCT mode (depth DEPTH, default 2);
# (b) plain stress: the same test, the same number of boots, no injection,
# multi-threaded TCG on 2 CPUs (real parallelism); (c) each mode's find
# booted 3 times more from its seed and minimal decision list: it must
# fail 3 times of 3 with identical serial logs; (d) the per-CPU and lock
# checker: one plain boot with LOCKDEP=1 on the explorer's CPU count, does
# it report? (On one CPU the two tasks share each copy, so a use the
# checker judges by who else can touch the copy is seen without any
# injected interleaving; on two, each task may keep a CPU to itself.)
#
# usage: [SEEDS=8] [JOBS=2] [RT=1] [O=build] [BUGS="name ..."] scripts/explore-eval.sh
#   TABLE_ONLY=1 prints the table of the last run again, measuring nothing.
# Passes when the two modes together find all but one of at least 12
# bugs, PCT finds every bug planted for it (the ones a window must stay
# open across another task's sleep or wait: PCT_BUGS), stress finds at
# most half as many, and every find replays 3 of 3.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2

SEEDS=${SEEDS:-8} JOBS=${JOBS:-2} RT=${RT:-1} O=${O:-build}
SHRINK_BOOTS=${SHRINK_BOOTS:-24} DEPTH=${DEPTH:-2}
PCT_BUGS="sleep_as_grace_period ack_as_grace_period"
ALL_BUGS="missing_lock lost_wakeup pi_chain double_checked_init
unlock_before_last_use abba_deadlock get_cpu_pairing missing_preempt_disable
this_cpu_lost_update migrate_enable_early percpu_hardirq $PCT_BUGS"
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

# search_and_replay NAME MODE SUFFIX: one mode's search into
# $out/NAME.SUFFIX, and its find replayed 3 times into $out/NAME.SUFFIX-replay.
search_and_replay() {
	local b=$1 mode=$2 f=$out/$1.$3 t=explore_bugs.$1 cpus seed only steps
	cpus=$(cpus_of "$b")
	KTEST=$t SEEDS=$SEEDS CPUS=$cpus RT=$RT LOCKDEP=0 O=$O MODE=$mode \
		DEPTH=$DEPTH SHRINK_BOOTS=$SHRINK_BOOTS bash scripts/explore.sh \
		>"$f" 2>&1
	: >"$f-replay"
	seed=$(sed -n 's/^explore-result: search .* found=1 seed=\([0-9]*\) .*/\1/p' "$f")
	only=$(sed -n 's/^explore-result: search .* found=1 .* only=\([^ ]*\) .*/\1/p' "$f")
	steps=$(sed -n 's/^explore-result: search .* steps=\([0-9]*\).*/\1/p' "$f")
	if [[ -n $seed ]]; then
		KTEST=$t KSEED=$seed EXPLORE_ONLY=$only RUNS=3 CPUS=$cpus RT=$RT \
			LOCKDEP=0 O=$O MODE=$mode DEPTH=$DEPTH PCT_STEPS=$steps \
			bash scripts/explore.sh >"$f-replay" 2>&1
	fi
}

# eval_bug NAME: the measurements, into $out/NAME.*.
eval_bug() {
	local b=$1 t=explore_bugs.$1 cpus
	cpus=$(cpus_of "$b")
	search_and_replay "$b" inject search
	search_and_replay "$b" pct pct
	KTEST=$t SEEDS=$SEEDS STRESS=1 RT=$RT LOCKDEP=0 O=$O \
		bash scripts/explore.sh >"$out/$b.stress" 2>&1
	KTEST=$t SEEDS=1 STRESS=1 STRESS_CPUS=$cpus RT=$RT LOCKDEP=1 O=$O \
		bash scripts/explore.sh >"$out/$b.checker" 2>&1
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
	printf '%-24s %-4s %-9s %-6s %-9s %-6s %-7s %-9s %-8s %s\n' "$@"
}

# find FILE: "seed N" or "no", its boots, its shrunk list; FOUND is 1 or 0.
find_of() {
	local s
	s=$(grep '^explore-result: search' "$1" 2>/dev/null)
	FOUND=0 SEEDCOL=no LIST=-
	BOOTSCOL=$(sed -n 's/.* boots=\([0-9]*\).*/\1/p' <<<"$s")
	if [[ $s == *found=1* ]]; then
		FOUND=1
		SEEDCOL="seed $(sed 's/.*seed=\([0-9]*\).*/\1/' <<<"$s")"
		LIST=$(sed 's/.* only=\([^ ]*\).*/\1/' <<<"$s")
		[[ $s == *minimal=0* ]] && LIST="$LIST (boot cap)"
	fi
}

# replay_of FILE: 3/3 when every run failed with identical logs; REPLAYED 1.
replay_of() {
	local r
	r=$(sed -n 's/^explore-result: replay .* failed=\([0-9]*\) runs=\([0-9]*\) identical=\([01]\)/\1\/\2 \3/p' "$1" 2>/dev/null)
	REPLAYED=0
	case $r in
	"3/3 1") REPLAYED=1 REPLAYCOL=3/3 ;;
	*" 1") REPLAYCOL=${r% *} ;;
	*" 0") REPLAYCOL="${r% *},differ" ;;
	*) REPLAYCOL=- ;;
	esac
}

row bug cpus inject boots pct boots stress replay checker "decisions after shrinking (inject; pct)"
found=0 injected=0 pcted=0 stressed=0 replayed=0 finds=0 n=0 pct_missed=()
for b in "${BUGS[@]}"; do
	n=$((n + 1))
	find_of "$out/$b.search"
	ie=$SEEDCOL ib=${BOOTSCOL:-?} il=$LIST ifound=$FOUND
	replay_of "$out/$b.search-replay"
	ir=$REPLAYCOL
	((ifound)) && finds=$((finds + 1)) && replayed=$((replayed + REPLAYED))
	find_of "$out/$b.pct"
	pe=$SEEDCOL pb=${BOOTSCOL:-?} pl=$LIST pfound=$FOUND
	replay_of "$out/$b.pct-replay"
	pr=$REPLAYCOL
	((pfound)) && finds=$((finds + 1)) && replayed=$((replayed + REPLAYED))
	injected=$((injected + ifound))
	pcted=$((pcted + pfound))
	((ifound || pfound)) && found=$((found + 1))
	if [[ " $PCT_BUGS " == *" $b "* ]] && ((!pfound)); then
		pct_missed+=("$b")
	fi
	st=$(sed -n 's/^explore-result: stress .* failed=\([0-9]*\) boots=\([0-9]*\).*/\1\/\2/p' "$out/$b.stress")
	[[ ${st%%/*} =~ ^[1-9] ]] && stressed=$((stressed + 1))
	if grep -q 'unexpected lockdep report' "$(make -s --no-print-directory O="$O" RT="$RT" LOCKDEP=1 EXPLORE=1 EXPLORE_BUGS=1 builddir)/explore_bugs.$b/stress1.log" 2>/dev/null; then
		c="flags"
	else
		c="-"
	fi
	row "$b" "$(cpus_of "$b")" "$ie" "$ib" "$pe" "$pb" "${st:-?}" "$ir;$pr" "$c" "$il; $pl"
done
echo "injections found $injected of $n, PCT $pcted, together $found; plain stress found $stressed; $replayed of $finds finds replayed 3 of 3$( ((${TABLE_ONLY:-0})) || echo " ($((SECONDS - start)) s)")"
problems=()
((n >= 12)) || problems+=("fewer than 12 planted bugs")
((found >= n - 1)) || problems+=("the two modes together missed more than one")
((${#pct_missed[@]} == 0)) || problems+=("PCT missed ${pct_missed[*]}")
((2 * stressed <= found)) || problems+=("stress found more than half as many as the explorer")
((replayed == finds)) || problems+=("a find did not replay 3 of 3")
if ((${#problems[@]})); then
	printf 'explore-eval: FAIL: %s\n' "${problems[@]}"
	exit 1
fi
echo "explore-eval: PASS"
