#!/usr/bin/env bash
# The host side of `make bench`. For each RT setting:
#
# 1. builds a benchmark kernel with LOCKDEP=0 (so the validator's hooks
#    cost nothing) in $O/rt$RT-ld0 (the build directory `make` shares), boots it with kbench=$KBENCH on $CPUS
#    CPUs, prints its table and writes its figures as JSON lines to
#    $O/bench/rt$RT.json (one object per figure: bench, variant, cpus,
#    value, unit, plus rt and "lockdep": 0);
# 2. if $KBENCH selects lockdep_overhead (tests/bench/bench_lockdep.c), builds
#    the same kernel with LOCKDEP=1 TSAN=0 (the validator without the
#    compiler's hooks) in $O/rt$RT-ld1-notsan, boots it on
#    $CPUS CPUs with kbench=lockdep_overhead only, prints its table and
#    writes its figures to $O/bench/rt$RT-lockdep.json ("lockdep": 1);
# 3. if $KBENCH selects kmalloc_scaling (tests/bench/bench_alloc.c), boots
#    the LOCKDEP=0 kernel once more on $ALLOC_CPUS CPUs (default 8) with
#    kbench=kmalloc_scaling alone (step 1 leaves it out), so that it can
#    measure 1, 2, 4 and 8 CPUs, into $O/bench/rt$RT-alloc.json; after the
#    last RT setting scripts/alloc-report prints its table and writes
#    $O/bench/alloc-summary.json and $O/bench/alloc.png;
# 4. then prints, for each lock type and validator path, the cycles per
#    acquire+release with LOCKDEP=0 and with LOCKDEP=1 (each a median,
#    with the spread of its runs: max - min over the median) and their
#    ratio (LOCKDEP=1 over LOCKDEP=0), and writes those rows as JSON lines to
#    $O/bench/rt$RT-lockdep-overhead.json. That ratio compares two boots of
#    two different kernels, so it is coarser than the ratios taken within
#    one run;
# 4. boots the LOCKDEP=1 kernel built with TSAN=1 (the default, with the
#    compiler's hooks: $O/rt$RT-ld1) and prints the same figures with
#    TSAN=0 and TSAN=1 side by side ($O/bench/rt$RT-tsan-overhead.json):
#    what the hooks cost a lock operation, a per-CPU access and another
#    memory access.
#
# 5. if $KBENCH selects smp_bringup, boots the LOCKDEP=0 kernel on 2, 4
#    and 8 CPUs, 5 times each, in the deterministic mode and prints the AP
#    bring-up time and its ratio to one AP's (scripts/bringup-bench.sh),
#    into $O/bench/rt$RT-bringup.json.
#
# Environment: CPUS (default 4), RT_LIST (default "0 1"), KBENCH (glob,
# default '*'), ALLOC_CPUS (default 8), TIMEOUT (seconds per boot, default 600), O (default build).
# Exit status: 2 if a build failed; 1 if a boot did not end with QEMU exit
# 33 and `== bench done`, if a log contains ERROR, or if an overhead row
# lacks a side; else 0.
# Figures are for comparing within one run: QEMU on a shared host is noisy.
set -uo pipefail
cd "$(dirname "$0")/.."

CPUS=${CPUS:-4}
RT_LIST=${RT_LIST:-"0 1"}
KBENCH=${KBENCH:-'*'}
ALLOC_CPUS=${ALLOC_CPUS:-8}
TIMEOUT=${TIMEOUT:-600}
O=${O:-build}
JOBS=${JOBS:-$(nproc)}
unset MAKEFLAGS MFLAGS

# Whether the comma-separated globs in $KBENCH select benchmark $1 (the
# kernel's globs: * and ?).
selects() {
	local g globs
	IFS=, read -ra globs <<<"$KBENCH"
	for g in "${globs[@]}"; do
		# shellcheck disable=SC2053 # $g is a pattern on purpose
		[[ $1 == $g ]] && return 0
	done
	return 1
}

# run_bench TAG RT LOCKDEP DIR GLOB LOG JSON [TSAN [NCPUS]]: build, boot
# on NCPUS CPUs (default $CPUS), print the table, write the JSON lines;
# exits 2 on a build failure, returns 1 on a failed run.
run_bench() {
	local tag=$1 rt=$2 lockdep=$3 dir=$4 glob=$5 log=$6 json=$7 tsan=${8:-1}
	local CPUS=${9:-$CPUS}
	local rc ok=0

	echo "[bench $tag] building (LOCKDEP=$lockdep TSAN=$tsan)..."
	if ! make -s -j"$JOBS" O="$O" RT="$rt" LOCKDEP="$lockdep" TSAN="$tsan" elf; then
		echo "[bench $tag] build failed" >&2
		exit 2
	fi
	bash scripts/build/mkiso.sh "$dir/kernel.elf" "kbench=$glob" "$dir/bench.iso" || exit 2
	echo "[bench $tag] running on $CPUS CPUs..."
	if [ "$CPUS" -gt "$(nproc)" ]; then
		echo "[bench $tag] WARNING: $CPUS vCPUs on $(nproc) host cores:" \
			"vCPUs time-share the cores, so contended-lock figures" \
			"(a spinner waiting for a descheduled vCPU) are meaningless"
	fi
	timeout -k 5 "$TIMEOUT" bash scripts/qemu.sh "$dir/bench.iso" "$CPUS" \
		</dev/null >"$log" 2>&1
	rc=$?
	tr -d '\r' <"$log" | sed -n '/^== bench /,/^== bench done/p' | grep -v '^BENCH '
	tr -d '\r' <"$log" |
		sed -n 's/^BENCH {\(.*\)}$/{"rt": '"$rt"', "lockdep": '"$lockdep"', \1}/p' >"$json"
	if [ "$rc" -ne 33 ] || ! grep -q '^== bench done' <(tr -d '\r' <"$log"); then
		echo "[bench $tag] FAILED (QEMU exit $rc); last lines of $log:" >&2
		tail -n 40 "$log" >&2
		ok=1
	elif grep -q 'ERROR' "$log"; then
		ok=1
	fi
	echo "[bench $tag] $(wc -l <"$json") figures in $json"
	return $ok
}

# overhead RT JSON0 JSON1 OUT [NAME0 NAME1 WHAT]: the lockdep_overhead
# figures of the two boots side by side ("LOCK PATH" variants), the
# ratio, and OUT's JSON lines; NAME0 and NAME1 name the two kernels
# (LOCKDEP=0 and LOCKDEP=1), WHAT what is compared. Returns 1 when a row
# lacks one side, or when there is no row.
overhead() {
	awk -v rt="$1" -v out="$4" -v n0="${5:-LOCKDEP=0}" -v n1="${6:-LOCKDEP=1}" \
		-v what="${7:-lockdep overhead}" '
	BEGIN {
		# The JSON keys: cycles_lockdep0, or cycles_tsan0 for TSAN=0.
		k0 = tolower(n0); k1 = tolower(n1)
		gsub(/=/, "", k0); gsub(/=/, "", k1)
	}
	function str(s, name,   re) {
		re = "\"" name "\": \"[^\"]*\""
		if (!match(s, re))
			return ""
		return substr(s, RSTART + length(name) + 5, RLENGTH - length(name) - 6)
	}
	function num(s, name,   re) {
		re = "\"" name "\": [0-9.]+"
		if (!match(s, re))
			return ""
		return substr(s, RSTART + length(name) + 4, RLENGTH - length(name) - 4)
	}
	str($0, "bench") != "lockdep_overhead" { next }
	{
		v = str($0, "variant")
		if (!(v in seen)) {
			seen[v] = 1
			order[n++] = v
		}
		side = FILENAME == ARGV[1] ? 0 : 1
		val[side, v] = num($0, "value")
		# The range of the runs behind a median, as a percentage of it.
		lo = num($0, "min"); hi = num($0, "max")
		spr[side, v] = "-"
		if (lo != "" && val[side, v] + 0 > 0)
			spr[side, v] = sprintf("%d%%", (hi - lo) * 100 / val[side, v])
	}
	END {
		printf "[bench rt%s] %s: cycles per acquire+release (per access for \"access\"), %s over %s (two boots)\n", rt, what, n1, n0
		printf "  %-16s %-12s %12s %7s %12s %7s %9s\n", "lock", "path", n0, "spread", n1, "spread", "ratio"
		bad = (n == 0)
		printf "" > out
		for (i = 0; i < n; i++) {
			v = order[i]
			lock = v; path = v
			sub(/ [^ ]*$/, "", lock)
			sub(/^.* /, "", path)
			a = ((0, v) in val) ? val[0, v] : ""
			b = ((1, v) in val) ? val[1, v] : ""
			if (a == "" || b == "") {
				printf "  %-16s %-12s %12s %7s %12s %7s %9s\n", lock, path,
				       a == "" ? "-" : a, "", b == "" ? "-" : b, "", "-"
				bad = 1
				continue
			}
			ratio = a + 0 > 0 ? sprintf("%.2f", b / a) : ""
			printf "  %-16s %-12s %12s %7s %12s %7s %9s\n", lock, path, a,
			       spr[0, v], b, spr[1, v], ratio == "" ? "-" : ratio "x"
			printf("{\"rt\": %s, \"bench\": \"lockdep_overhead\", \"lock\": \"%s\", \"path\": \"%s\", \"cycles_%s\": %s, \"cycles_%s\": %s, \"ratio\": %s}\n",
			       rt, lock, path, k0, a, k1, b, ratio == "" ? "null" : ratio) > out
		}
		if (n == 0)
			printf "  (no lockdep_overhead figures)\n"
		exit bad
	}' "$2" "$3"
}

# The benchmarks $KBENCH selects other than kmalloc_scaling, which has a
# boot of its own on $ALLOC_CPUS CPUs: their names (from the KBENCH()
# lines of tests/), comma-separated; empty when there are none.
main_glob() {
	local b names=()

	for b in $(sed -n 's/^KBENCH(\([a-z0-9_]*\)).*/\1/p' \
		$(find tests -name '*.c') | sort -u); do
		[[ $b != kmalloc_scaling ]] && selects "$b" && names+=("$b")
	done
	(IFS=,; echo "${names[*]}")
}

mkdir -p "$O/bench"
status=0
glob=$(main_glob)
for rt in $RT_LIST; do
	json=$O/bench/rt$rt.json
	dir=$(make -s --no-print-directory O="$O" RT="$rt" LOCKDEP=0 builddir)
	if [[ -n $glob ]]; then
		run_bench "rt$rt" "$rt" 0 "$dir" "$glob" \
			"$O/bench/rt$rt.log" "$json" || status=1
	fi
	if selects smp_bringup; then
		make -s -j"$JOBS" O="$O" RT="$rt" LOCKDEP=0 elf || exit 2
		KERNEL=$dir/kernel.elf OUT=$O/bench RT=$rt TIMEOUT=$TIMEOUT \
			bash scripts/bringup-bench.sh || status=1
	fi
	if selects kmalloc_scaling; then
		run_bench "rt$rt-alloc" "$rt" 0 "$dir" kmalloc_scaling \
			"$O/bench/rt$rt-alloc.log" "$O/bench/rt$rt-alloc.json" \
			1 "$ALLOC_CPUS" || status=1
	fi
	if ! selects lockdep_overhead; then
		continue
	fi
	ldjson=$O/bench/rt$rt-lockdep.json
	run_bench "rt$rt-lockdep" "$rt" 1 \
		"$(make -s --no-print-directory O="$O" RT="$rt" LOCKDEP=1 TSAN=0 builddir)" \
		lockdep_overhead "$O/bench/rt$rt-lockdep.log" "$ldjson" 0 || status=1
	ovjson=$O/bench/rt$rt-lockdep-overhead.json
	overhead "$rt" "$json" "$ldjson" "$ovjson" || status=1
	echo "[bench rt$rt] $(wc -l <"$ovjson") overhead rows in $ovjson"
	tsanjson=$O/bench/rt$rt-lockdep-tsan.json
	run_bench "rt$rt-lockdep-tsan" "$rt" 1 \
		"$(make -s --no-print-directory O="$O" RT="$rt" LOCKDEP=1 TSAN=1 builddir)" \
		lockdep_overhead "$O/bench/rt$rt-lockdep-tsan.log" "$tsanjson" 1 || status=1
	tsjson=$O/bench/rt$rt-tsan-overhead.json
	overhead "$rt" "$ldjson" "$tsanjson" "$tsjson" "TSAN=0" "TSAN=1" \
		"compiler hooks (both LOCKDEP=1)" || status=1
	echo "[bench rt$rt] $(wc -l <"$tsjson") overhead rows in $tsjson"
done
if selects kmalloc_scaling; then
	for rt in 0 1; do
		# Only this run's RT settings: no stale file from an earlier one.
		[[ " $RT_LIST " == *" $rt "* ]] || rm -f "$O/bench/rt$rt-alloc.json"
	done
	python3 scripts/alloc-report "$O/bench" || status=1
fi
exit $status
